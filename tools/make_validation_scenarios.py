#!/usr/bin/python3
"""Writes the scenarios of a published training table, one per row, into scenarios/validation/<table>/.

Usage: tools/make_validation_scenarios.py nemo-24.07-h100|megatron-bridge-25.11-blackwell|megatron-bridge-25.11-h100|
       megatron-bridge-26.02-26.04.01
Reads data/validation/<csv> (the table's rows as published) and writes <row name>.json for each: the row's
hardware, cluster, model, parallelism, batch and precision; everything else comes from the row's software preset.
Also writes rows.csv there (scenario file, published tokens/s per GPU), which the table's test
(tests/validation/published_tables_test.cpp) and tools/calibrate.py read. The files are checked in; rerun after
changing a row's mapping.
"""
import csv
import json
import os
import sys
from tool_main import ArgumentParser, guarded

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NEMO_MODELS = {"GPT3-5B": "gpt3-5b", "GPT3-20B": "gpt3-20b", "GPT3-175B": "gpt3-175b", "LLAMA2-7B": "llama2-7b",
               "LLAMA2-13B": "llama2-13b", "LLAMA2-70B": "llama2-70b", "Nemotron-8B": "nemotron-8b",
               "Nemotron-22B": "nemotron-22b", "Nemotron-340B": "nemotron-340b", "LLAMA3-8B": "llama3-8b",
               "LLAMA3-70B": "llama3-70b"}


def row_name(model, gpus):
    return f"{model}-{gpus}gpus"


# What a model's NeMo training config sets that the table does not say and the software preset does not default:
# Nemotron-340B keeps its optimizer state in bf16 (optim.dtype: bf16, apex DistributedFusedAdam's state dtype) in
# NVIDIA/NeMo-Framework-Launcher launcher_scripts/conf/training/nemotron/nemotron_340b.yaml (every version read:
# commits 6daee02 and 3be81fc); the other models' configs leave it at fp32 (e.g. nemotron_22b.yaml, gpt3/175b.yaml).
NEMO_RECIPE_TRAINING = {"nemotron-340b": {"optimizer_state_precision": "bf16"}}


def pipeline_schedule(vp, ep_overlap=False):
    """Megatron's schedule: interleaved with vp virtual stages (or to host the combined 1F1B of ep_overlap), else 1F1B."""
    if vp == 1 and not ep_overlap:
        return {"name": "1f1b"}
    return dict({"name": "interleaved-1f1b", "virtual_stages": vp}, **({"ep_overlap": True} if ep_overlap else {}))


def nemo_h100(row):
    """NeMo 24.07 on DGX H100 (NVIDIA/NeMo docs/source/performance/performance_summary.md): every row FP8."""
    gpus, tp, pp, cp, vp = (int(row[k]) for k in ("num_gpus", "tp", "pp", "cp", "vp"))
    model = NEMO_MODELS[row["model"]]
    schedule = pipeline_schedule(vp)
    training = {"global_batch": int(row["gbs"]), "micro_batch": int(row["mbs"]), "seq_len": int(row["seq_len"]),
                "precision": "bf16", "fp8": "fp8-delayed", "iterations": 1, **NEMO_RECIPE_TRAINING.get(model, {})}
    return row_name(model, gpus), {
        "name": "nemo-24.07-h100-" + row_name(model, gpus),
        "description": f"NeMo 24.07 pre-training row {row['model']} on {gpus} H100 (tp {tp}, pp {pp}, cp {cp}, vp {vp}), "
                       f"FP8; published {row['tokens_per_s_per_gpu']} tokens/s/GPU",
        "hardware": "H100-SXM5-80GB",
        "software": "nemo-24.07",
        "cluster": {"preset": "dgx-h100-superpod", "nodes": gpus // 8},
        "model": model,
        "parallelism": {"tp": tp, "pp": pp, "cp": cp},
        "training": training,
        "strategies": {"pipeline_schedule": schedule},
        "output": {"trace": False},
    }


BRIDGE_MODELS = {"LLAMA3_8B": "llama3-8b", "LLAMA3_70B": "llama3-70b", "LLAMA3.1_405B": "llama3.1-405b",
                 "DeepSeekV3 (w/o MTP)": "deepseek-v3", "DeepSeekV3 (w/ MTP)": "deepseek-v3",
                 "DeepSeekV3": "deepseek-v3", "GPT OSS 120B": "gpt-oss-120b",
                 "Qwen3_30B_a3B": "qwen3-30b-a3b", "Qwen3_235B_a22B": "qwen3-235b-a22b", "Kimi_K2": "kimi-k2"}
BRIDGE_SYSTEMS = {"DGX-B200": "B200", "DGX-GB200": "GB200-NVL72", "DGX-GB300": "GB300-NVL72", "DGX-H100": "H100-SXM5-80GB"}
BRIDGE_FP8 = {"FP8-CS": "fp8-cs", "FP8-MX": "mxfp8", "NVFP4": "nvfp4", "BF16": "none"}


def bridge_cluster(system, gpus):
    """DGX B200: 8-GPU nodes. GB200/GB300 NVL72: NVLink domains of min(gpus, 64) GPUs, as a job is scheduled on
    16 of a rack's 18 compute trays (docs/decisions.md); each domain's trays reach the rail-optimised scale-out
    fabric through their own NICs."""
    per_domain = 8 if system in ("DGX-B200", "DGX-H100") else min(gpus, 64)
    return {"nodes": gpus // per_domain, "gpus_per_node": per_domain, "nics_per_node": per_domain,
            "topology": {"name": "fat-tree", "rail_optimized": True, "leaf_radix": 64, "switch_latency_us": 0.5},
            "nic_latency_us": 1.0}


# Rows llmsim cannot express as run, with the reason (settings from the Megatron-Bridge r0.2.0 performance configs)
BRIDGE_LEFT_OUT = {
    "LLAMA3_70B FSDP": "the recipe offloads 20 (GB300) / 40 (GB200) layers' activations to host memory "
                       "(cpu_offloading_num_layers), which llmsim does not model per layer: without it they need 365 GB",
}
# CUDA graph scopes of the MoE rows (cuda_graph_impl "transformer_engine", cuda_graph_scope), from the Megatron-Bridge
# v0.2.1 performance configs (scripts/performance/configs/qwen and gpt_oss workload base configs): moe_router stands
# for TE's "moe_router" + "moe_preprocess", which every row lists together. Rows not named capture nothing; the
# dense rows' graphs are not carried (without a host sync the GPU never waits for their host: docs/software.md).
BRIDGE_CUDA_GRAPHS = {
    ("DGX-B200", "Qwen3_30B_a3B", "FP8-MX"): ["moe_router"],
    ("DGX-GB200", "Qwen3_30B_a3B", "FP8-MX"): ["moe_router"],
    ("DGX-GB300", "Qwen3_30B_a3B", "FP8-MX"): ["moe_router"],
    ("DGX-GB200", "Qwen3_235B_a22B", "BF16"): ["attn", "moe_router"],
    ("DGX-GB300", "Qwen3_235B_a22B", "BF16"): ["moe_router"],
    ("DGX-GB300", "GPT OSS 120B", "BF16"): ["attn", "moe_router"],
    ("DGX-GB200", "DeepSeekV3 (w/o MTP)", "BF16"): ["moe_router"],
    ("DGX-GB200", "DeepSeekV3 (w/o MTP)", "FP8-MX"): ["moe_router"],
    ("DGX-GB300", "DeepSeekV3 (w/o MTP)", "BF16"): ["attn", "moe_router"],
    ("DGX-GB300", "DeepSeekV3 (w/o MTP)", "FP8-MX"): ["attn", "moe_router"],
    ("DGX-GB200", "DeepSeekV3", "FP8-MX"): ["attn", "moe_router"],
}
# Megatron-Core pipeline layouts of the DeepSeek-V3 and Kimi K2 recipes (parallelism.pipeline_layout) by (pp, vp),
# up to the loss: Megatron-Bridge v0.2.0 src/megatron/bridge/recipes/deepseek/deepseek_v3.py layout_map (the same at
# 067f987df, and Kimi K2's _get_kimi_k2_pipeline_layout in recipes/kimi/h100/kimi_k2.py there); (2, 8) is the
# GB300 26.x recipe's explicit layout (perf_recipes/deepseek/gb300 at 067f987df). The MTP layers ("m", the recipes'
# mtp_num_layers, 1 by default; the tables' "w/o MTP" rows have none) go before the loss. A row whose (pp, vp) is
# not here is left out: 61 layers do not split evenly and its layout was not published.
LAYOUT_MAP = {(4, 4): "Et*4|(t*4|)*14t", (8, 2): "Et*4|(t*4|)*14t", (16, 1): "Et*4|(t*4|)*14t",
              (2, 8): "Et*4|(t*4|)*14t", (4, 2): "Et*8|(t*8|)*6t*5", (8, 1): "Et*8|(t*8|)*6t*5",
              (4, 1): "Et*16|t*16|t*16|t*13"}
MTP_LAYERS = {"DeepSeekV3 (w/o MTP)": 0, "DeepSeekV3 (w/ MTP)": 1, "DeepSeekV3": 1, "Kimi_K2": 0}
# Selective recomputation of the recipes (recompute_modules; Megatron-Bridge v0.2.0 scripts/performance/configs/
# deepseek/workload_base_configs.py). gpt-oss's ["layernorm", "moe_act"] is not carried: layernorm recomputation
# is not modelled.
BRIDGE_RECOMPUTE = {("DGX-GB200", "DeepSeekV3 (w/o MTP)"): {"core_attn": False, "mla_up_proj": True},
                    ("DGX-GB300", "DeepSeekV3 (w/o MTP)"): {"core_attn": False, "moe_act": True},
                    ("DGX-GB300", "Kimi_K2"): {"core_attn": False, "mla_up_proj": True},
                    # 26.x DeepSeek-V3 (perf_recipes/deepseek/<system>/deepseek_v3.py at 067f987df, MXFP8): GB200 and
                    # B200 mla_up_proj (B200 also "mlp", not modelled), GB300 none; 25.11 B200 (w/ MTP): mla_up_proj
                    ("DGX-GB200", "DeepSeekV3"): {"core_attn": False, "mla_up_proj": True},
                    ("DGX-B200", "DeepSeekV3"): {"core_attn": False, "mla_up_proj": True},
                    ("DGX-B200", "DeepSeekV3 (w/ MTP)"): {"core_attn": False, "mla_up_proj": True}}
# Per-row training settings of the recipes that differ from the software preset: Kimi K2's MXFP8 recipe turns
# fp8_param_gather off (Megatron-Bridge perf_recipes/kimi/gb300/kimi_k2.py at 067f987df).
BRIDGE_TRAINING = {("DGX-GB300", "Kimi_K2", "FP8-MX"): {"fp8_param_gather": False}}
# Megatron's flex token dispatcher (DeepEP or HybridEP: one copy per destination GPU, one per remote node over the
# network) -> parallelism.ep_dispatch "per-node"; the other rows run the alltoall dispatcher (one copy per expert).
# 25.11: Megatron-Bridge v0.2.1 scripts/performance/configs/{deepseek,qwen3}/workload_base_configs.py
# (moe_flex_dispatcher_backend); 26.x: src/megatron/bridge/perf_recipes/<model>/<system>/*.py at 067f987df (the MXFP8
# and FP8-CS recipes; DeepSeek-V3's GB200/GB300 ones through _enable_deepseek_full_iteration_mxfp8).
BRIDGE_FLEX = {"25.11": {("DGX-GB200", "DeepSeekV3 (w/o MTP)"), ("DGX-GB300", "DeepSeekV3 (w/o MTP)"),
                         ("DGX-GB200", "Qwen3_30B_a3B"), ("DGX-GB300", "Qwen3_30B_a3B"),
                         ("DGX-GB200", "Qwen3_235B_a22B"), ("DGX-GB300", "Qwen3_235B_a22B")},
               "26": {("DGX-B200", "DeepSeekV3"), ("DGX-GB200", "DeepSeekV3"), ("DGX-GB300", "DeepSeekV3"),
                      ("DGX-B200", "Qwen3_30B_a3B"), ("DGX-GB200", "Qwen3_30B_a3B"), ("DGX-GB300", "Qwen3_30B_a3B"),
                      ("DGX-H100", "Qwen3_30B_a3B"), ("DGX-B200", "Qwen3_235B_a22B"),
                      ("DGX-GB200", "Qwen3_235B_a22B"), ("DGX-GB300", "Qwen3_235B_a22B"), ("DGX-GB300", "Kimi_K2")}}
# overlap_moe_expert_parallel_comm (Megatron's combined 1F1B; the schedule's ep_overlap), from the same sources:
# 25.11 moe_a2a_overlap=True, 26.x comm_overlap.overlap_moe_expert_parallel_comm = True. A row whose pp > 1 runs
# without virtual stages cannot host it (Megatron asserts vp) and keeps the plain schedule.
BRIDGE_EP_OVERLAP = {"25.11": {("DGX-B200", "Qwen3_235B_a22B"), ("DGX-H100", "Qwen3_30B_a3B"),
                               ("DGX-H100", "Qwen3_235B_a22B")},
                     "26": {("DGX-B200", "DeepSeekV3"), ("DGX-GB200", "DeepSeekV3"), ("DGX-GB300", "DeepSeekV3"),
                            ("DGX-GB200", "GPT OSS 120B"), ("DGX-B200", "Qwen3_30B_a3B"),
                            ("DGX-H100", "Qwen3_235B_a22B")}}
# Recipes that set account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split
BRIDGE_EMBEDDING_LOSS_SPLIT = {"LLAMA3.1_405B", "Qwen3_235B_a22B"}


def bridge_row(row, release_in_name=False):
    """A Megatron-Bridge performance-summary row on DGX H100, B200, GB200 NVL72 or GB300 NVL72
    (NVIDIA-NeMo/Megatron-Bridge), simulated under the megatron-bridge-25.11 preset; `release_in_name` for a table of
    several releases. Rows llmsim cannot express return (None, reason)."""
    key = row["model"] + (" FSDP" if int(row["fsdp"]) > 1 and row["model"] == "LLAMA3_70B" else "")
    if key in BRIDGE_LEFT_OUT:
        return None, BRIDGE_LEFT_OUT[key]
    if row["system"] not in BRIDGE_SYSTEMS:
        return None, "no hardware preset (a B300 preset would carry B200's efficiencies until a table fits it)"
    if row["model"] not in BRIDGE_MODELS:
        return None, f"no model preset for {row['model']} (Nemotron 3's hybrid Mamba layers are not modelled)"
    gpus, tp, pp, cp, ep, fsdp = (int(row[k]) for k in ("num_gpus", "tp", "pp", "cp", "ep", "fsdp"))
    if (gpus // (tp * pp * cp)) % ep != 0:
        return None, (f"ep {ep} over dp {gpus // (tp * pp * cp)} x tp {tp}: Megatron's expert-parallel folding across "
                      "tp is not modelled (llmsim's ep divides dp)")
    vp = 1 if row["vp"] == "n/a" else int(row["vp"])
    model, system, fp8 = BRIDGE_MODELS[row["model"]], row["system"], BRIDGE_FP8[row["precision"]]
    name = f"{BRIDGE_SYSTEMS[system].lower()}-{model}-{gpus}gpus-{row['precision'].lower()}"
    if release_in_name:
        name = f"r{row['release']}-{name}"
    family = "25.11" if row["release"] == "25.11" else "26"
    schedule = pipeline_schedule(vp, (system, row["model"]) in BRIDGE_EP_OVERLAP[family] and (pp == 1 or vp > 1))
    split = "embedding-loss" if row["model"] in BRIDGE_EMBEDDING_LOSS_SPLIT else "even"
    layout = ""
    if row["model"] in MTP_LAYERS:
        if (pp, vp) not in LAYOUT_MAP:
            return None, (f"the recipe's pipeline layout for pp {pp} x vp {vp} is not in Megatron-Bridge v0.2.0's "
                          "DeepSeek-V3 layout map (61 layers do not split evenly)")
        layout = LAYOUT_MAP[(pp, vp)] + "m" * MTP_LAYERS[row["model"]] + "L"
    training = {"global_batch": int(row["gbs"]), "micro_batch": int(row["mbs"]), "seq_len": int(row["seq_len"]),
                "precision": "bf16", "fp8": fp8, "zero_stage": 3 if fsdp > 1 else 1, "iterations": 1}
    training.update(BRIDGE_TRAINING.get((system, row["model"], row["precision"]), {}))
    if (system, row["model"]) in BRIDGE_RECOMPUTE:
        training.update(recompute="selective", recompute_modules=BRIDGE_RECOMPUTE[(system, row["model"])])
    graphs = BRIDGE_CUDA_GRAPHS.get((system, row["model"], row["precision"]), [])
    if graphs:
        training["cuda_graph"] = {scope: True for scope in graphs}
    model_field = {"preset": model, "mtp_layers": layout.count("m")} if "m" in layout else model
    return name, {
        "name": "megatron-bridge-" + (name if release_in_name else row["release"] + "-" + name),
        "description": f"Megatron-Bridge {row['release']} pre-training row {row['model']} on {gpus} {system} (tp {tp}, pp {pp}, "
                       f"cp {cp}, vp {row['vp']}, ep {ep}, fsdp {fsdp}), {row['precision']}; published "
                       f"{row['tokens_per_s_per_gpu']} tokens/s/GPU",
        "hardware": BRIDGE_SYSTEMS[system],
        "software": "megatron-bridge-25.11",
        "cluster": bridge_cluster(system, gpus),
        "model": model_field,
        "parallelism": dict({"tp": tp, "pp": pp, "cp": cp, "ep": ep, "pipeline_split": split},
                            **({"ep_dispatch": "per-node"} if (system, row["model"]) in BRIDGE_FLEX[family] else {}),
                            **({"pipeline_layout": layout} if layout else {})),
        "training": training,
        "strategies": {"pipeline_schedule": schedule},
        "output": {"trace": False},
    }


TABLES = {"nemo-24.07-h100": ("nemo-24.07-h100-pretrain.csv", nemo_h100),
          "megatron-bridge-25.11-blackwell": ("megatron-bridge-25.11-blackwell.csv", bridge_row),
          "megatron-bridge-25.11-h100": ("megatron-bridge-25.11-h100.csv", bridge_row),
          "megatron-bridge-26.02-26.04.01": ("megatron-bridge-26.02-26.04.01.csv",
                                             lambda row: bridge_row(row, release_in_name=True))}


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("table", choices=sorted(TABLES))
    args = ap.parse_args()
    csv_name, make = TABLES[args.table]
    out = os.path.join(ROOT, "scenarios", "validation", args.table)
    os.makedirs(out, exist_ok=True)
    lines = [l for l in open(os.path.join(ROOT, "data", "validation", csv_name)) if not l.startswith("#")]
    index = [f"# written by tools/make_validation_scenarios.py {args.table} from data/validation/{csv_name}\n",
             "scenario,tokens_per_s_per_gpu\n"]
    for row in csv.DictReader(lines):
        name, scenario = make(row)
        if name is None:
            print(f"left out: {row['system']} {row['model']} {row['precision']}: {scenario}")
            continue
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(scenario, f, indent=2)
            f.write("\n")
        index.append(f"{name}.json,{row['tokens_per_s_per_gpu']}\n")
        print(name)
    open(os.path.join(out, "rows.csv"), "w").writelines(index)


if __name__ == "__main__":
    sys.exit(guarded(main))

#!/usr/bin/python3
"""Writes the scenarios of a published training table, one per row, into scenarios/validation/<table>/.

Usage: tools/make_validation_scenarios.py nemo-24.07-h100
Reads data/validation/<csv> (the table's rows as published) and writes <row name>.json for each: the row's
hardware, cluster, model, parallelism, batch and precision; everything else comes from the row's software preset.
Also writes rows.csv there (scenario file, published tokens/s per GPU), which the table's test
(tests/validation/published_tables_test.cpp) and tools/calibrate.py read. The files are checked in; rerun after
changing a row's mapping.
"""
import argparse
import csv
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NEMO_MODELS = {"GPT3-5B": "gpt3-5b", "GPT3-20B": "gpt3-20b", "GPT3-175B": "gpt3-175b", "LLAMA2-7B": "llama2-7b",
               "LLAMA2-13B": "llama2-13b", "LLAMA2-70B": "llama2-70b", "Nemotron-8B": "nemotron-8b",
               "Nemotron-22B": "nemotron-22b", "Nemotron-340B": "nemotron-340b", "LLAMA3-8B": "llama3-8b",
               "LLAMA3-70B": "llama3-70b"}


def row_name(model, gpus):
    return f"{model}-{gpus}gpus"


def nemo_h100(row):
    """NeMo 24.07 on DGX H100 (NVIDIA/NeMo docs/source/performance/performance_summary.md): every row FP8."""
    gpus, tp, pp, cp, vp = (int(row[k]) for k in ("num_gpus", "tp", "pp", "cp", "vp"))
    model = NEMO_MODELS[row["model"]]
    schedule = {"name": "interleaved-1f1b", "virtual_stages": vp} if vp > 1 else {"name": "1f1b"}
    return row_name(model, gpus), {
        "name": "nemo-24.07-h100-" + row_name(model, gpus),
        "description": f"NeMo 24.07 pre-training row {row['model']} on {gpus} H100 (tp {tp}, pp {pp}, cp {cp}, vp {vp}), "
                       f"FP8; published {row['tokens_per_s_per_gpu']} tokens/s/GPU",
        "hardware": "H100-SXM5-80GB",
        "software": "nemo-24.07",
        "cluster": {"preset": "dgx-h100-superpod", "nodes": gpus // 8},
        "model": model,
        "parallelism": {"tp": tp, "pp": pp, "cp": cp},
        "training": {"global_batch": int(row["gbs"]), "micro_batch": int(row["mbs"]), "seq_len": int(row["seq_len"]),
                     "precision": "bf16", "fp8": "fp8-delayed", "iterations": 1},
        "strategies": {"pipeline_schedule": schedule},
        "output": {"trace": False},
    }


TABLES = {"nemo-24.07-h100": ("nemo-24.07-h100-pretrain.csv", nemo_h100)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(scenario, f, indent=2)
            f.write("\n")
        index.append(f"{name}.json,{row['tokens_per_s_per_gpu']}\n")
        print(name)
    open(os.path.join(out, "rows.csv"), "w").writelines(index)


if __name__ == "__main__":
    sys.exit(main())

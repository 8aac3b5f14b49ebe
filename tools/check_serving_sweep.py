#!/usr/bin/python3
"""Runs a published online-serving sweep (latency against request rate) through llmsim and prints both.

Usage: tools/check_serving_sweep.py [--table sglang-h200|trtllm-0.14] [--llmsim build/llmsim]
  sglang-h200  data/validation/sglang-h200-llama3.3-70b-online.csv (rate, requests, median TTFT, median ITL, ...):
               scenarios/validation/serving-sweep/h200-llama3.3-70b-tp4-bf16.json once per row with its rate and
               request count. llmsim's median TPOT (per request) stands for the published median ITL (per gap):
               with lengths spread 1..1024 and no speculative decoding the two differ by how the steps' batch
               changes during a request.
  trtllm-0.14  data/validation/trtllm-0.14-online-h100-h200.csv (TensorRT-LLM 0.14, BF16, 500 requests per row):
               one scenario per row, the row's GPU, model, tp and fixed input/output lengths under the
               tensorrt-llm-0.17 engine preset, Poisson arrivals at the row's QPS (INF: the offline workload, all
               500 at once); mean TTFT, mean TPOT (= mean ITL with fixed output lengths) and output tokens/s.
A held-out check: nothing is fitted to either table (docs/calibration.md).
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
from tool_main import ArgumentParser, guarded

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALIDATION = os.path.join(ROOT, "data", "validation")
SGLANG_SCENARIO = os.path.join(ROOT, "scenarios", "validation", "serving-sweep", "h200-llama3.3-70b-tp4-bf16.json")
TRTLLM_GPUS = {"H100 80GB HBM3": "H100-SXM5-80GB", "H200 131GB HBM3": "H200"}
TRTLLM_MODELS = {"LLaMA 3.1 70B": "llama3.1-70b", "LLaMA 3.1 8B": "llama3.1-8b"}
TRTLLM_REQUESTS = 500


def read_rows(name):
    with open(os.path.join(VALIDATION, name)) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def summary_of(llmsim, scenario_path, sets, out):
    cmd = [llmsim, "run", scenario_path, "--out", out]
    for s in sets:
        cmd += ["--set", s]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"llmsim failed on {scenario_path} {' '.join(sets)}: {run.stderr.strip()}")
    return json.load(open(os.path.join(out, "summary.json")))["serving"]


def sglang_rows(llmsim, tmp):
    """(label, {metric: (published, simulated)}) per row of the SGLang H200 sweep."""
    for row in read_rows("sglang-h200-llama3.3-70b-online.csv"):
        s = summary_of(llmsim, SGLANG_SCENARIO, [f"serving.workload.rate_rps={row['request_rate']}",
                                                 f"serving.max_requests={row['requests']}"],
                       os.path.join(tmp, row["request_rate"]))
        yield row["request_rate"], {
            "median TTFT [ms]": (float(row["median_ttft_ms"]), 1000 * s["ttft_s"]["p50"]),
            "median ITL [ms]": (float(row["median_itl_ms"]), 1000 * s["tpot_s"]["p50"]),
            "mean e2e [ms]": (float(row["mean_e2e_ms"]), 1000 * s["e2e_s"]["mean"]),
            "output tokens/s": (float(row["output_tokens_per_s"]), s["throughput"]["output_tokens_per_s"])}


def trtllm_scenario(row):
    tp, isl, osl = int(row["tp"]), int(row["isl"]), int(row["osl"])
    if row["qps"] == "INF":
        workload = {"name": "offline", "requests": TRTLLM_REQUESTS, "input_tokens": isl, "output_tokens": osl}
    else:
        workload = {"name": "poisson", "rate_rps": float(row["qps"]),
                    "prompt": {"distribution": "fixed", "tokens": isl},
                    "output": {"distribution": "fixed", "tokens": osl}}
    serving = {"precision": "bf16", "engine": {"name": "tensorrt-llm-0.17"}, "workload": workload}
    if workload["name"] != "offline":
        serving["max_requests"] = TRTLLM_REQUESTS
    return {"name": "trtllm-0.14-online", "kind": "serving", "hardware": TRTLLM_GPUS[row["gpu"]],
            "cluster": {"preset": "dgx-h100-superpod", "nodes": 1, "gpus_per_node": tp}, "model": TRTLLM_MODELS[row["model"]],
            "parallelism": {"tp": tp, "pp": 1, "dp": 1}, "serving": serving, "output": {"trace": False}}


def trtllm_rows(llmsim, tmp):
    for i, row in enumerate(read_rows("trtllm-0.14-online-h100-h200.csv")):
        path = os.path.join(tmp, f"row{i}.json")
        json.dump(trtllm_scenario(row), open(path, "w"))
        s = summary_of(llmsim, path, [], os.path.join(tmp, f"out{i}"))
        label = f"{row['gpu'].split()[0]} | {row['model']} | {row['tp']} | {row['isl']}/{row['osl']} | {row['qps']}"
        yield label, {"mean TTFT [ms]": (float(row["mean_ttft_ms"]), 1000 * s["ttft_s"]["mean"]),
                      "mean ITL [ms]": (float(row["mean_itl_ms"]), 1000 * s["tpot_s"]["mean"]),
                      "output tokens/s": (float(row["output_tokens_per_s"]), s["throughput"]["output_tokens_per_s"])}


TABLES = {"sglang-h200": ("rate [req/s]", sglang_rows), "trtllm-0.14": ("GPU | model | tp | in/out | QPS", trtllm_rows)}


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--table", choices=sorted(TABLES), default="sglang-h200")
    ap.add_argument("--llmsim", default=os.path.join(ROOT, "build", "llmsim"))
    args = ap.parse_args()
    if not os.access(args.llmsim, os.X_OK):
        raise SystemExit(f"--llmsim: {args.llmsim} is not an executable (build llmsim first: tools/build.sh)")
    head, rows = TABLES[args.table]
    with tempfile.TemporaryDirectory() as tmp:
        lines = []
        for label, cells in rows(args.llmsim, tmp):
            if not lines:
                lines.append(f"| {head} | " + " | ".join(cells) + " |")
                lines.append("|---" * (head.count("|") + 1 + len(cells)) + "|")
            text = [f"{pub:.0f} / {sim:.0f} ({100 * (sim / pub - 1):+.0f}%)" for pub, sim in cells.values()]
            lines.append(f"| {label} | " + " | ".join(text) + " |")
    print("\n".join(lines))
    print("cells: published / simulated (error)")


if __name__ == "__main__":
    sys.exit(guarded(main))

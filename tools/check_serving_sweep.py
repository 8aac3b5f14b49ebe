#!/usr/bin/python3
"""Runs a published online-serving sweep (latency against request rate) through llmsim and prints both.

Usage: tools/check_serving_sweep.py [--llmsim build/llmsim]
Reads data/validation/sglang-h200-llama3.3-70b-online.csv (rate, requests, median TTFT, median ITL, ...) and runs
scenarios/validation/serving-sweep/h200-llama3.3-70b-tp4-bf16.json once per row with its rate and request count.
llmsim's median TPOT (per request) stands for the published median ITL (per gap): with lengths spread 1..1024 and
no speculative decoding the two differ by how the steps' batch changes during a request. A held-out check: nothing
is fitted to it (docs/calibration.md).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from tool_main import guarded

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data", "validation", "sglang-h200-llama3.3-70b-online.csv")
SCENARIO = os.path.join(ROOT, "scenarios", "validation", "serving-sweep", "h200-llama3.3-70b-tp4-bf16.json")


def simulate(llmsim, rate, requests, out):
    run = subprocess.run([llmsim, "run", SCENARIO, "--set", f"serving.workload.rate_rps={rate}",
                          "--set", f"serving.max_requests={requests}", "--out", out], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"llmsim failed at rate {rate}: {run.stderr.strip()}")
    serving = json.load(open(os.path.join(out, "summary.json")))["serving"]
    return {"ttft": 1000 * serving["ttft_s"]["p50"], "itl": 1000 * serving["tpot_s"]["p50"],
            "e2e": 1000 * serving["e2e_s"]["mean"], "tps": serving["throughput"]["output_tokens_per_s"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--llmsim", default=os.path.join(ROOT, "build", "llmsim"))
    args = ap.parse_args()
    rows = list(csv.DictReader(l for l in open(DATA) if not l.startswith("#")))
    published = {"ttft": "median_ttft_ms", "itl": "median_itl_ms", "e2e": "mean_e2e_ms", "tps": "output_tokens_per_s"}
    print("| rate [req/s] | median TTFT [ms] | median ITL [ms] | mean e2e [ms] | output tokens/s |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            sim = simulate(args.llmsim, row["request_rate"], row["requests"], os.path.join(tmp, row["request_rate"]))
            cells = []
            for key, column in published.items():
                pub = float(row[column])
                cells.append(f"{pub:.0f} / {sim[key]:.0f} ({100 * (sim[key] / pub - 1):+.0f}%)")
            print(f"| {row['request_rate']} | " + " | ".join(cells) + " |")
    print("cells: published / simulated (error)")


if __name__ == "__main__":
    sys.exit(guarded(main))

#!/usr/bin/python3
"""Runs the Megatron-LM Table 1 scenarios and prints simulated vs published TFLOP/s per GPU.

Usage: tools/validate_table1.py [--llmsim build/llmsim] [--out results/validation] [--set k=v ...] [--rows N,...]
Prints one row per scenario with the error and llmsim's wall time, then the mean absolute error.
Exit code 0; the bounds are asserted by the test suite (tests/validation/table1_test.cpp), not here.
"""
import csv
import json
import os
import sys
from tool_main import ArgumentParser, guarded, run_llmsim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def scenario_for(row):
    p = row["params_B"]
    name = "gpt-" + (p[:-2] if p.endswith(".0") else p) + "b"
    return name, os.path.join(ROOT, "scenarios", "validation", name + ".json")


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--llmsim", default=os.path.join(ROOT, "build", "llmsim"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "validation"))
    ap.add_argument("--set", action="append", default=[], help="override passed to every run")
    ap.add_argument("--rows", default="", help="comma-separated model names to run (default: all)")
    args = ap.parse_args()

    rows = list(csv.DictReader(open(os.path.join(ROOT, "data", "validation", "megatron-lm-table1.csv"))))
    wanted = set(args.rows.split(",")) if args.rows else None
    unknown = sorted((wanted or set()) - {scenario_for(row)[0] for row in rows})
    if unknown:
        raise SystemExit(f"--rows {args.rows}: no Table 1 row {unknown[0]} (rows: "
                         f"{', '.join(scenario_for(row)[0] for row in rows)})")
    print(f"{'model':<12}{'gpus':>6}{'tp':>4}{'pp':>4}{'published':>11}{'simulated':>11}{'error':>9}{'wall_s':>9}")
    errors = []
    for row in rows:
        name, path = scenario_for(row)
        if wanted and name not in wanted:
            continue
        out = os.path.join(args.out, name)
        cmd = [args.llmsim, "run", path, "--out", out, "--log-level", "warn"]
        for s in args.set:
            cmd += ["--set", s]
        run_llmsim(cmd, f"llmsim on {name}")
        summary = json.load(open(os.path.join(out, "summary.json")))
        sim = summary["hardware_tflops_per_gpu"]
        pub = float(row["tflops_per_gpu"])
        err = (sim - pub) / pub
        errors.append(abs(err))
        print(f"{name:<12}{row['gpus']:>6}{row['tp']:>4}{row['pp']:>4}{pub:>11.1f}{sim:>11.1f}{100*err:>8.1f}%"
              f"{summary['wall_time_s']:>9.2f}")
        sys.stdout.flush()
    if errors:
        print(f"mean absolute error: {100*sum(errors)/len(errors):.2f}%   max: {100*max(errors):.2f}%")


if __name__ == "__main__":
    guarded(main)

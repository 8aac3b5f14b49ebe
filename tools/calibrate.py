#!/usr/bin/python3
"""Fits a hardware preset's calibration to published throughput measurements.

Usage: tools/calibrate.py [--table megatron-lm-table1|nemo-24.07-h100] [--llmsim build/llmsim]
                          [--fit matmul_efficiency,matmul_half_dim,memory_efficiency]
Runs the table's scenarios (megatron-lm-table1: scenarios/validation/*.json against hardware TFLOP/s per GPU of
data/validation/megatron-lm-table1.csv; nemo-24.07-h100: scenarios/validation/nemo-24.07-h100/*.json, written
by tools/make_validation_scenarios.py, against tokens/s per GPU) with the calibration fields overridden,
minimises the mean squared relative error with scipy's Nelder-Mead, and prints the fitted values to copy into
configs/hardware/<preset>.json. Fields not fitted keep the preset's values. Two scenarios run at a time.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from scipy.optimize import minimize

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOUNDS = {"matmul_efficiency": (0.3, 1.0), "matmul_half_dim": (0.0, 1024.0), "memory_efficiency": (0.3, 1.0),
          "nvlink_efficiency": (0.3, 1.0), "network_efficiency": (0.3, 1.0), "kernel_overhead_us": (0.0, 50.0)}


def table1_rows():
    for r in csv.DictReader(open(os.path.join(ROOT, "data", "validation", "megatron-lm-table1.csv"))):
        p = r["params_B"]
        name = "gpt-" + (p[:-2] if p.endswith(".0") else p) + "b"
        yield os.path.join(ROOT, "scenarios", "validation", name + ".json"), float(r["tflops_per_gpu"])


def nemo_rows():
    folder = os.path.join(ROOT, "scenarios", "validation", "nemo-24.07-h100")
    lines = [l for l in open(os.path.join(folder, "rows.csv")) if not l.startswith("#")]
    for r in csv.DictReader(lines):
        yield os.path.join(folder, r["scenario"]), float(r["tokens_per_s_per_gpu"])


# table -> (rows, hardware preset, summary metric compared)
TABLES = {"megatron-lm-table1": (table1_rows, "A100-SXM4-80GB", "hardware_tflops_per_gpu"),
          "nemo-24.07-h100": (nemo_rows, "H100-SXM5-80GB", "tokens_per_s_per_gpu")}


def simulate(llmsim, scenario, overrides, out, metric):
    cmd = [llmsim, "run", scenario, "--out", out, "--log-level", "warn"]
    for k, v in overrides.items():
        cmd += ["--set", f"hardware.calibration.{k}={v}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    summary = json.load(open(os.path.join(out, "summary.json")))
    return None if summary["status"] == "oom" else summary[metric]  # a row that does not fit is left out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", choices=sorted(TABLES), default="megatron-lm-table1")
    ap.add_argument("--llmsim", default=os.path.join(ROOT, "build", "llmsim"))
    ap.add_argument("--fit", default="matmul_efficiency,matmul_half_dim,memory_efficiency")
    ap.add_argument("--start", default="", help="comma-separated start values (default: the preset's)")
    ap.add_argument("--maxfev", type=int, default=80, help="most objective evaluations")
    args = ap.parse_args()
    names = args.fit.split(",")
    rows, hardware, metric = TABLES[args.table]
    preset = json.load(open(os.path.join(ROOT, "configs", "hardware", hardware + ".json")))["calibration"]
    x0 = [float(v) for v in args.start.split(",")] if args.start else [preset[n] for n in names]
    data = list(rows())
    tmp = tempfile.mkdtemp(prefix="llmsim-calibrate-")

    def errors(x):
        ov = {n: min(max(v, BOUNDS[n][0]), BOUNDS[n][1]) for n, v in zip(names, x)}
        with ThreadPoolExecutor(2) as pool:
            sims = list(pool.map(lambda i: simulate(args.llmsim, data[i][0], ov, f"{tmp}/{i}", metric), range(len(data))))
        return ov, [(s - pub) / pub for s, (_, pub) in zip(sims, data) if s is not None]

    def objective(x):
        ov, errs = errors(x)
        mse = sum(e * e for e in errs) / len(errs)
        print(f"{ov}  mae {100*sum(abs(e) for e in errs)/len(errs):.2f}%  max {100*max(abs(e) for e in errs):.2f}%",
              flush=True)
        return mse

    res = minimize(objective, x0, method="Nelder-Mead", options={"xatol": 1e-3, "fatol": 1e-6, "maxfev": args.maxfev})
    ov, errs = errors(res.x)
    print("fitted:", json.dumps(ov))
    print("errors per row (%):", [round(100 * e, 2) for e in errs])


if __name__ == "__main__":
    sys.exit(main())

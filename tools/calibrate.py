#!/usr/bin/python3
"""Fits a hardware preset's calibration to published throughput measurements.

Usage: tools/calibrate.py [--table megatron-lm-table1|nemo-24.07-h100|bridge-b200|bridge-gb200|bridge-gb300|
                                  bridge-26.02-gb200|bridge-26.02-gb300|bridge-26.02-26.04.01|
                                  deepspeed-2021|deepspeed-2021-heldout]
                          [--llmsim build/llmsim]
                          [--fit matmul_efficiency,matmul_half_dim,memory_efficiency]
Runs the table's scenarios (megatron-lm-table1: scenarios/validation/*.json against hardware TFLOP/s per GPU of
data/validation/megatron-lm-table1.csv; nemo-24.07-h100: scenarios/validation/nemo-24.07-h100/*.json, written
by tools/make_validation_scenarios.py, against tokens/s per GPU; bridge-*: the DGX B200, GB200 or GB300 rows of
scenarios/validation/megatron-bridge-25.11-blackwell/; bridge-26.02-26.04.01: later releases' rows, held out, only
reported with --maxfev 0; deepspeed-2021: the Megatron-Turing NLG rows of scenarios/validation/deepspeed-2021/, which
fit that software preset's multiplier software.efficiency.matmul, and deepspeed-2021-heldout its BLOOM rows) with the
calibration fields overridden (a dotted name, such as software.efficiency.matmul, is a scenario field),
minimises the mean squared relative error with scipy's Nelder-Mead, and prints the fitted values to copy into
configs/hardware/<preset>.json. Fields not fitted keep the preset's values. Two scenarios run at a time.
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from scipy.optimize import minimize
from tool_main import ArgumentParser, guarded

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOUNDS = {"matmul_efficiency": (0.3, 1.0), "matmul_half_dim": (0.0, 1024.0), "memory_efficiency": (0.3, 1.0),
          "nvlink_efficiency": (0.3, 1.0), "block_scaled_gemm_efficiency": (0.5, 1.0), "nvfp4_gemm_efficiency": (0.3, 1.0), "network_efficiency": (0.3, 1.0), "kernel_overhead_us": (0.0, 50.0),
          "software.efficiency.matmul": (0.3, 2.0), "software.efficiency.memory": (0.3, 2.0)}


def table1_rows():
    for r in csv.DictReader(open(os.path.join(ROOT, "data", "validation", "megatron-lm-table1.csv"))):
        p = r["params_B"]
        name = "gpt-" + (p[:-2] if p.endswith(".0") else p) + "b"
        yield os.path.join(ROOT, "scenarios", "validation", name + ".json"), float(r["tflops_per_gpu"])


def written_rows(table, prefix=""):
    """The rows of a table written by tools/make_validation_scenarios.py whose scenario file starts with prefix."""
    def rows():
        folder = os.path.join(ROOT, "scenarios", "validation", table)
        lines = [l for l in open(os.path.join(folder, "rows.csv")) if not l.startswith("#")]
        for r in csv.DictReader(lines):
            if r["scenario"].startswith(prefix):
                yield os.path.join(folder, r["scenario"]), float(r["tokens_per_s_per_gpu"])
    return rows


BRIDGE = "megatron-bridge-25.11-blackwell"
LATER = "megatron-bridge-26.02-26.04.01"
# table -> (rows, hardware preset, summary metric compared); the Blackwell table is fitted per system
TABLES = {"megatron-lm-table1": (table1_rows, "A100-SXM4-80GB", "hardware_tflops_per_gpu"),
          "nemo-24.07-h100": (written_rows("nemo-24.07-h100"), "H100-SXM5-80GB", "tokens_per_s_per_gpu"),
          "bridge-b200": (written_rows(BRIDGE, "b200-"), "B200", "tokens_per_s_per_gpu"),
          "bridge-gb200": (written_rows(BRIDGE, "gb200-"), "GB200-NVL72", "tokens_per_s_per_gpu"),
          "bridge-gb300": (written_rows(BRIDGE, "gb300-"), "GB300-NVL72", "tokens_per_s_per_gpu"),
          # the first release with NVFP4 rows, per system: its NVFP4 rows fit nvfp4_gemm_efficiency (--rows nvfp4)
          "bridge-26.02-gb200": (written_rows(LATER, "r26.02-gb200-"), "GB200-NVL72", "tokens_per_s_per_gpu"),
          "bridge-26.02-gb300": (written_rows(LATER, "r26.02-gb300-"), "GB300-NVL72", "tokens_per_s_per_gpu"),
          # held out, several presets: only reported (--maxfev 0), never fitted
          "bridge-26.02-26.04.01": (written_rows(LATER), None, "tokens_per_s_per_gpu"),
          # a software preset's multipliers on the A100 calibration: fitted on its own table, checked on another
          "deepspeed-2021": (written_rows("deepspeed-2021", "mtnlg-"), "A100-SXM4-80GB", "tokens_per_s_per_gpu"),
          "deepspeed-2021-heldout": (written_rows("deepspeed-2021", "bloom-"), None, "tokens_per_s_per_gpu")}
# what a table fits unless --fit says otherwise, and the software preset whose multipliers it fits
DEFAULT_FIT = {"deepspeed-2021": "software.efficiency.matmul"}
SOFTWARE = {"deepspeed-2021": "deepspeed-2021"}


def simulate(llmsim, scenario, overrides, out, metric):
    cmd = [llmsim, "run", scenario, "--out", out, "--log-level", "warn"]
    for k, v in overrides.items():
        cmd += ["--set", f"{k}={v}" if "." in k else f"hardware.calibration.{k}={v}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    summary = json.load(open(os.path.join(out, "summary.json")))
    return None if summary["status"] == "oom" else summary[metric]  # a row that does not fit is left out


def start_values(table, hardware, names):
    """The presets' current values of the fitted fields: hardware calibration keys or software.efficiency keys."""
    def preset(folder, name):
        return json.load(open(os.path.join(ROOT, "configs", folder, name + ".json")))
    software_names = [n for n in names if n.startswith("software.")]
    if software_names and table not in SOFTWARE:
        raise SystemExit(f"error: --fit {software_names[0]}: only with a software preset's table ({', '.join(SOFTWARE)})")
    software = preset("software", SOFTWARE[table])["efficiency"] if software_names else {}
    calibration = preset("hardware", hardware)["calibration"] if len(software_names) < len(names) else {}
    return [software[n.split(".")[-1]] if n.startswith("software.") else calibration[n] for n in names]


def start_points(text, names):
    """--start's values, one per fitted field, each finite and within the field's bounds."""
    values = text.split(",")
    if len(values) != len(names):
        raise SystemExit(f"--start {text}: {len(values)} values for {len(names)} fitted fields ({', '.join(names)})")
    out = []
    for n, v in zip(names, values):
        try:
            x = float(v)
        except ValueError:
            raise SystemExit(f"--start {text}: '{v}' is not a number")
        lo, hi = BOUNDS[n]
        if not lo <= x <= hi:  # also refuses nan
            raise SystemExit(f"--start {text}: {n} = {v} is outside {lo:g}..{hi:g}")
        out.append(x)
    return out


def row_pattern(text):
    """--rows as a compiled regular expression."""
    try:
        return re.compile(text)
    except re.error as e:
        raise SystemExit(f"--rows {text}: not a regular expression ({e})")


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--table", choices=sorted(TABLES), default="megatron-lm-table1")
    ap.add_argument("--llmsim", default=os.path.join(ROOT, "build", "llmsim"))
    ap.add_argument("--fit", default="", help="comma-separated fields to fit (default: the table's)")
    ap.add_argument("--rows", default="", help="regular expression: only the rows whose scenario file matches")
    ap.add_argument("--start", default="", help="comma-separated start values (default: the preset's)")
    ap.add_argument("--maxfev", type=int, default=80, help="most objective evaluations (0: only report the errors at the start values)")
    args = ap.parse_args()
    rows, hardware, metric = TABLES[args.table]
    if hardware is None and args.maxfev > 0:
        raise SystemExit(f"error: --table {args.table} is held out (several presets): only --maxfev 0 reports it")
    fit = args.fit or DEFAULT_FIT.get(args.table, "matmul_efficiency,matmul_half_dim,memory_efficiency")
    names = fit.split(",") if hardware else []
    for n in names:
        if n not in BOUNDS:
            raise SystemExit(f"--fit {n}: not a fitted field (one of: {', '.join(BOUNDS)})")
    x0 = start_points(args.start, names) if args.start else start_values(args.table, hardware, names)
    data = [r for r in rows() if re.search(row_pattern(args.rows), os.path.basename(r[0]))]
    if args.maxfev < 0:
        raise SystemExit(f"--maxfev {args.maxfev}: at least 0 (0 only reports the errors at the start values)")
    if not data:
        raise SystemExit(f"--rows {args.rows}: no scenario file of table {args.table} matches")
    tmp = tempfile.mkdtemp(prefix="llmsim-calibrate-")

    def simulated(x):
        ov = {n: min(max(v, BOUNDS[n][0]), BOUNDS[n][1]) for n, v in zip(names, x)}
        with ThreadPoolExecutor(2) as pool:
            sims = list(pool.map(lambda i: simulate(args.llmsim, data[i][0], ov, f"{tmp}/{i}", metric), range(len(data))))
        return ov, sims

    def objective(x):
        ov, sims = simulated(x)
        errs = [(s - pub) / pub for s, (_, pub) in zip(sims, data) if s is not None]
        mse = sum(e * e for e in errs) / len(errs)
        print(f"{ov}  mae {100*sum(abs(e) for e in errs)/len(errs):.2f}%  max {100*max(abs(e) for e in errs):.2f}%",
              flush=True)
        return mse

    x = x0
    if args.maxfev > 0:
        x = minimize(objective, x0, method="Nelder-Mead", options={"xatol": 1e-3, "fatol": 1e-6, "maxfev": args.maxfev}).x
    ov, sims = simulated(x)
    print("fitted:" if args.maxfev > 0 else "at:", json.dumps(ov))
    for s, (path, pub) in zip(sims, data):
        shown = "does not fit" if s is None else f"{s:.0f} {100 * (s - pub) / pub:+.1f}%"
        print(f"  {os.path.basename(path)}: published {pub:.0f}, simulated {shown}")


if __name__ == "__main__":
    sys.exit(guarded(main))

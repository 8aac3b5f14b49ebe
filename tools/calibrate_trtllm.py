#!/usr/bin/python3
"""Fits the serving parameters of a Hopper preset under TensorRT-LLM 0.17 to its published offline throughput.

Table: data/validation/trtllm-0.17-offline-throughput-h100-h200.csv (trtllm-bench throughput, FP8 weights and KV
cache, fixed input/output lengths). Every row is simulated as the benchmark runs: the offline workload (all requests
at time 0) on one replica of the row's tp with serving.engine tensorrt-llm-0.17 (in-flight batching, chunked context,
KV of input + output reserved at admission, 95% of the free memory for the KV cache). Requests per row: WAVES times
the requests whose whole KV fits at once (at least 64), so every row runs WAVES full batches.

Fitted once per GPU, never per row: hardware.calibration.serving_matmul_efficiency, serving_memory_efficiency and
serving_matmul_half_dim (the GEMM efficiency curve's half dimension; grid search) and, at each grid point, the
engine's step_overhead_us, sequence_overhead_us, collective_hop_us and moe_multiplier by non-negative least squares
of the relative time error. The schedule of an offline run does not depend on time, so each row is simulated once
per grid point with the engine costs at 0 and moe_multiplier 1 (a MoE row once more with moe_multiplier 0.5, which
gives its MoE kernels' time K_moe) and its time with costs is makespan + steps * step + sequences * sequence + 2 *
layers * ceil(log2 tp) * steps * hop + (1 / moe_multiplier - 1) * K_moe.

Usage: tools/calibrate_trtllm.py GPU [--grid M;M;H] [--at M,M,H] [--waves N] [--write] [--table]   GPU: H100 or H200
"""
import argparse
import concurrent.futures
import csv
import itertools
import json
import math
import os
import subprocess
import tempfile
from tool_main import ArgumentParser, guarded, number, numbers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLMSIM = os.path.join(ROOT, "build", "llmsim")
TABLE = os.path.join(ROOT, "data", "validation", "trtllm-0.17-offline-throughput-h100-h200.csv")
PRESETS = {"H100": "H100-SXM5-80GB", "H200": "H200"}
MODELS = {"LLaMA v3.1 8B": "llama3.1-8b", "LLaMA v3.1 70B": "llama3.1-70b", "LLaMA v3.1 405B": "llama3.1-405b",
          "Mistral 7B": "mistral-7b", "Mixtral 8x7B": "mixtral-8x7b", "Mixtral 8x22B": "mixtral-8x22b"}
ENGINE = "tensorrt-llm-0.17"
COSTS = ("step_overhead_us", "sequence_overhead_us", "collective_hop_us")
MOE = ("Mixtral 8x7B", "Mixtral 8x22B")


def rows(gpu):
    with open(TABLE) as f:
        lines = [line for line in f if not line.startswith("#")]
    return [r for r in csv.DictReader(lines) if r["gpu"].startswith(gpu + " ")]


def scenario(row, gpu, requests):
    tp = int(row["tp"])
    return {"name": "trtllm", "kind": "serving", "hardware": PRESETS[gpu],
            "cluster": {"preset": "dgx-h100-superpod", "nodes": 1, "gpus_per_node": tp},
            "model": MODELS[row["model"]], "parallelism": {"tp": tp, "pp": 1, "dp": 1},
            "serving": {"precision": "fp8", "engine": {"name": ENGINE},
                        "workload": {"name": "offline", "requests": requests, "input_tokens": int(row["isl"]),
                                     "output_tokens": int(row["osl"])}},
            "output": {"trace": False}}


def run(row, gpu, requests, overrides):
    """summary.json's serving part of one row."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.json")
        json.dump(scenario(row, gpu, requests), open(path, "w"))
        cmd = [LLMSIM, "run", path, "--out", os.path.join(d, "out"), "--log-level", "warn"]
        for k, v in overrides.items():
            cmd += ["--set", f"{k}={v}"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"llmsim failed on {row}: {done.stderr.strip()}")
        return json.load(open(os.path.join(d, "out", "summary.json")))["serving"]


def requests_of(row, gpu, waves):
    """WAVES times the requests whose input + output KV fits at once (at least 64, at most max_batch_size waves)."""
    kv = run(row, gpu, 1, {})["kv_cache"]
    whole = int(row["isl"]) + int(row["osl"])
    blocks = math.ceil(whole / kv["block_size"])
    return max(64, waves * min(4096, kv["blocks_per_replica"] // blocks))


def measure(row, gpu, requests, eff):
    """(kernel-only makespan [s], steps, sequences over the steps, collective hops, K_moe [s], output tokens)."""
    overrides = {f"serving.engine.{k}": 0 for k in COSTS}
    overrides["serving.engine.moe_multiplier"] = 1  # the preset's own would hide in the kernel-only makespan
    overrides.update({f"hardware.calibration.serving_{k}_efficiency": eff[k] for k in ("matmul", "memory")})
    overrides["hardware.calibration.serving_matmul_half_dim"] = eff["half_dim"]
    s = run(row, gpu, requests, overrides)
    moe = 0.0
    if row["model"] in MOE:
        moe = run(row, gpu, requests, dict(overrides, **{"serving.engine.moe_multiplier": 0.5}))["makespan_s"]
        moe -= s["makespan_s"]
    steps = s["steps"]
    layers = {"llama3.1-8b": 32, "llama3.1-70b": 80, "llama3.1-405b": 126, "mistral-7b": 32, "mixtral-8x7b": 32,
              "mixtral-8x22b": 56}[MODELS[row["model"]]]
    hops = 2 * layers * math.ceil(math.log2(int(row["tp"]))) * steps
    return s["makespan_s"], steps, s["batch_size"]["mean"] * steps, hops, moe, requests * int(row["osl"])


def nnls(a, b):
    """Least squares of a x = b with x >= 0: the best of every subset of free unknowns."""
    n = len(a[0])
    best = None
    for free in itertools.chain.from_iterable(itertools.combinations(range(n), k) for k in range(n + 1)):
        x = [0.0] * n
        if free:
            m = [[sum(r[i] * r[j] for r in a) for j in free] for i in free]
            v = [sum(r[i] * y for r, y in zip(a, b)) for i in free]
            sol = solve(m, v)
            if sol is None or min(sol) < 0:
                continue
            for i, s in zip(free, sol):
                x[i] = s
        res = sum((sum(r[i] * x[i] for i in range(n)) - y) ** 2 for r, y in zip(a, b))
        if best is None or res < best[0]:
            best = (res, x)
    return best[1]


def solve(m, v):
    """Gaussian elimination; None if singular."""
    n = len(v)
    m = [row[:] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-300:
            return None
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit_costs(data, published, hop=None):
    """Engine costs [s] and 1 / moe_multiplier - 1 minimising the relative time errors, and each row's simulated
    throughput; with `hop` [s] the collective hop cost is held at that measured value and the others fitted."""
    a, b = [], []
    for (k, steps, seqs, hops, moe, out), p in zip(data, published):
        target = out / p
        known = k + (hop * hops if hop is not None else 0)
        a.append([steps / target, seqs / target] + ([] if hop is not None else [hops / target]) + [moe / target])
        b.append(1 - known / target)
    x = nnls(a, b)
    if hop is not None:
        x = x[:2] + [hop] + x[2:]
    sims = [out / (k + x[0] * steps + x[1] * seqs + x[2] * hops + x[3] * moe) for k, steps, seqs, hops, moe, out in data]
    return x, sims


def errors(sims, published):
    e = [s / p - 1 for s, p in zip(sims, published)]
    return sum(abs(x) for x in e) / len(e), max(abs(x) for x in e), e


def evaluate(table, gpu, reqs, eff, pool, hop=None):
    data = list(pool.map(lambda r: measure(r[0], gpu, r[1], eff), zip(table, reqs)))
    published = [float(r["output_tokens_per_s"]) for r in table]
    x, sims = fit_costs(data, published, hop)
    mean, worst, e = errors(sims, published)
    return mean, worst, x, sims, e


def search(table, gpu, reqs, pool, grid, hop=None):
    best = None
    for mm, mem, half in grid:
        eff = {"matmul": round(mm, 4), "memory": round(mem, 4), "half_dim": half}
        mean, worst, x, sims, e = evaluate(table, gpu, reqs, eff, pool, hop)
        print(f"  matmul {eff['matmul']:.3f} memory {eff['memory']:.3f} half_dim {half}: mean {100 * mean:.2f}% "
              f"max {100 * worst:.2f}%"
              f"  costs {[round(v * 1e6, 2) for v in x[:3]]} us, moe_multiplier {1 / (1 + x[3]):.3f}", flush=True)
        if best is None or mean + 0.25 * worst < best[0]:
            best = (mean + 0.25 * worst, eff, x, sims, e, mean, worst)
    return best


def write(gpu, eff, x):
    path = os.path.join(ROOT, "configs", "hardware", PRESETS[gpu] + ".json")
    cfg = json.load(open(path))
    cfg["calibration"]["serving_matmul_efficiency"] = eff["matmul"]
    cfg["calibration"]["serving_memory_efficiency"] = eff["memory"]
    half = eff["half_dim"]
    cfg["calibration"]["serving_matmul_half_dim"] = int(half) if float(half).is_integer() else half
    with open(path, "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    path = os.path.join(ROOT, "configs", "engines", ENGINE + ".json")
    eng = json.load(open(path))
    fit = eng["fits"].setdefault(PRESETS[gpu], {})
    fit.update({k: round(v * 1e6, 2) for k, v in zip(COSTS, x)})
    fit.update({"matmul_multiplier": 1, "memory_multiplier": 1, "moe_multiplier": round(1 / (1 + x[3]), 4)})
    with open(path, "w") as f:
        json.dump(eng, f, indent=2)
        f.write("\n")


def grid(text):
    """--grid: the MATMULS;MEMORIES;HALF_DIMS searched, each a comma-separated list of numbers of at least 0."""
    axes = text.split(";")
    if len(axes) != 3:
        raise argparse.ArgumentTypeError(f"MATMULS;MEMORIES;HALF_DIMS (3 ';'-separated lists), not '{text}'")
    return [numbers(float, 0)(axis) for axis in axes]


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("gpu", choices=sorted(PRESETS))
    ap.add_argument("--waves", type=number(int, 1), default=4, help="full batches of requests per row")
    ap.add_argument("--jobs", type=number(int, 1), default=2, help="llmsim runs at once")
    ap.add_argument("--write", action="store_true", help="write the fit into the hardware and engine presets")
    ap.add_argument("--table", action="store_true", help="only print every row at the presets' current values")
    ap.add_argument("--at", type=numbers(float, 0, 3), help="only fit the engine costs at MATMUL,MEMORY,HALF_DIM "
                    "(efficiencies and the GEMM efficiency curve's half dimension) and print every row")
    ap.add_argument("--grid", type=grid, default="0.6,0.65,0.7,0.75;0.85,0.9;66,100,150",
                    help="MATMULS;MEMORIES;HALF_DIMS searched (default: the H100 fit's grid; the H200 fit's: "
                    "docs/calibration.md)")
    ap.add_argument("--hop-us", type=number(float, 0, 1e4),
                    help="hold collective_hop_us at this measured value, 0 to 10000 us (fit the others)")
    args = ap.parse_args()
    hop = args.hop_us * 1e-6 if args.hop_us is not None else None
    table = rows(args.gpu)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        reqs = list(pool.map(lambda r: requests_of(r, args.gpu, args.waves), table))
        if args.table:
            sims = [run(r, args.gpu, n, {})["throughput"]["output_tokens_per_s"] for r, n in zip(table, reqs)]
            published = [float(r["output_tokens_per_s"]) for r in table]
            mean, worst, e = errors(sims, published)
        elif args.at:
            mm, mem, half = args.at
            eff = {"matmul": mm, "memory": mem, "half_dim": half}
            mean, worst, x, sims, e = evaluate(table, args.gpu, reqs, eff, pool, hop)
            print("costs " + ", ".join(f"{k} {v * 1e6:.2f}" for k, v in zip(COSTS, x)) +
                  f", moe_multiplier {1 / (1 + x[3]):.4f}")
            if args.write:
                write(args.gpu, eff, x)
        else:
            _, eff, x, sims, e, mean, worst = search(table, args.gpu, reqs, pool, itertools.product(*args.grid), hop)
            print(f"{PRESETS[args.gpu]}: serving_matmul_efficiency {eff['matmul']}, serving_memory_efficiency "
                  f"{eff['memory']}, serving_matmul_half_dim {eff['half_dim']}, " +
                  ", ".join(f"{k} {v * 1e6:.2f}" for k, v in zip(COSTS, x)) +
                  f", moe_multiplier {1 / (1 + x[3]):.4f}")
            if args.write:
                write(args.gpu, eff, x)
    print(f"mean |error| {100 * mean:.2f}%, largest {100 * worst:.2f}% over {len(table)} rows")
    print("| model | tp | isl | osl | requests | published tok/s | llmsim tok/s | error |")
    print("|---|---|---|---|---|---|---|---|")
    for r, n, s, err in zip(table, reqs, sims, e):
        print(f"| {r['model']} | {r['tp']} | {r['isl']} | {r['osl']} | {n} | {float(r['output_tokens_per_s']):.0f} | "
              f"{s:.0f} | {100 * err:+.1f}% |")


if __name__ == "__main__":
    guarded(main)

#!/usr/bin/python3
"""Fits the vllm-2023 engine's costs on a hardware preset (configs/engines/vllm-2023.json, fits.<preset>:
step_overhead_us, sequence_overhead_us, collective_hop_us; serving/step_model.hpp) to published Llama-2-70B step
times (data/validation/llama2-70b-serving-steps.csv), and prints every row's error, calibration rows and held-out
rows apart.

Calibration rows: the Splitwise decode steps at tp 2 and tp 8 (batch 1-32/64). Held out: every prefill row, the tp 4
decode rows and the other sources. With --fit-matmul the preset's matmul_efficiency is refitted first to the tp 2
prefill rows and written as the engine's matmul_multiplier (fitted efficiency / the preset's
serving_matmul_efficiency, for presets whose serving efficiencies come from another engine's table, e.g. H100).

Usage: tools/calibrate_serving.py GPU [--fit-matmul] [--write]      GPU: A100 or H100
"""
import csv
import json
import math
import os
import subprocess
from tool_main import ArgumentParser, guarded

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLMSIM = os.path.join(ROOT, "build", "llmsim")
SCENARIO = os.path.join(ROOT, "scenarios", "serving", "llama2-70b-a100-conversation.json")
PRESETS = {"A100": "A100-SXM4-80GB", "H100": "H100-SXM5-80GB"}
ENGINE = ("step_overhead_us", "sequence_overhead_us", "collective_hop_us")
ENGINE_FILE = os.path.join(ROOT, "configs", "engines", "vllm-2023.json")
LAYERS = 80


def step_ms(preset, row, calibration):
    cmd = [LLMSIM, "step-time", SCENARIO, "--set", f"hardware={preset}", "--set", f"parallelism.tp={row['tp']}",
           "--set", f"cluster.nodes={max(1, 16 // 8)}"]
    cmd += ["--set", f"parallelism.dp={16 // int(row['tp'])}"]
    for key, value in calibration.items():
        cmd += ["--set", f"serving.engine.{key}={value}"]
    cmd += (["--prefill", row["tokens"]] if row["phase"] == "prefill"
            else ["--decode", row["batch"], "--context", row["context"]])
    if row["phase"] == "prefill" and int(row["tokens"]) >= 4096:  # Splitwise profiled prompts beyond Llama 2's
        # 4096-token context (with the token the prefill emits); step-time refuses them else
        cmd += ["--set", f"model.max_seq_len={int(row['tokens']) + 1}"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["time_ms"]


def is_calibration(row):
    return row["source"] == "splitwise-perf" and row["phase"] == "decode" and row["tp"] in ("2", "8")


def solve3(a, b):
    """Least squares of a (n x 3) x = b by the normal equations (Cramer's rule), x clipped at 0."""
    m = [[sum(r[i] * r[j] for r in a) for j in range(3)] for i in range(3)]
    v = [sum(r[i] * y for r, y in zip(a, b)) for i in range(3)]

    def det(x):
        return (x[0][0] * (x[1][1] * x[2][2] - x[1][2] * x[2][1]) - x[0][1] * (x[1][0] * x[2][2] - x[1][2] * x[2][0])
                + x[0][2] * (x[1][0] * x[2][1] - x[1][1] * x[2][0]))
    d = det(m)
    out = []
    for k in range(3):
        mk = [[v[i] if j == k else m[i][j] for j in range(3)] for i in range(3)]
        out.append(max(0.0, det(mk) / d))
    return out


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("gpu", choices=sorted(PRESETS))
    ap.add_argument("--fit-matmul", action="store_true")
    ap.add_argument("--write", action="store_true", help="write the fitted values into configs/engines/vllm-2023.json")
    args = ap.parse_args()
    preset = PRESETS[args.gpu]
    rows = [r for r in csv.DictReader(open(os.path.join(ROOT, "data", "validation", "llama2-70b-serving-steps.csv")))
            if r["gpu"] == args.gpu]
    calibration = {k: 0 for k in ENGINE}
    if args.fit_matmul:
        serving = json.load(open(os.path.join(ROOT, "configs", "hardware", preset + ".json")))["calibration"]
        base = serving.get("serving_matmul_efficiency") or serving["matmul_efficiency"]
        prefill = [r for r in rows if r["source"] == "splitwise-perf" and r["phase"] == "prefill" and r["tp"] == "2"]
        best = min((sum(math.log(step_ms(preset, r, dict(calibration, matmul_multiplier=e / 100 / base)) /
                                 float(r["time_ms"])) ** 2 for r in prefill), e / 100) for e in range(30, 91))
        calibration["matmul_multiplier"] = round(best[1] / base, 6)
    fit_rows = [r for r in rows if is_calibration(r)]
    a, b = [], []
    for r in fit_rows:
        tp = int(r["tp"])
        a.append([1.0, float(r["batch"]), 2 * LAYERS * math.ceil(math.log2(tp))])
        b.append((float(r["time_ms"]) - step_ms(preset, r, calibration)) * 1000)  # [us]
    for key, value in zip(ENGINE, solve3(a, b)):
        calibration[key] = round(value, 2)
    print(f"{preset}: " + ", ".join(f"{k} = {v}" for k, v in calibration.items()))
    print("| tp | phase | tokens | batch | measured ms | llmsim ms | error | source | role |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        t = step_ms(preset, r, calibration)
        err = t / float(r["time_ms"]) - 1
        role = "calibration" if is_calibration(r) else "held out"
        print(f"| {r['tp']} | {r['phase']} | {r['tokens']} | {r['batch']} | {float(r['time_ms']):.1f} | {t:.1f} | "
              f"{100 * err:+.1f}% | {r['source']} | {role} |")
    if args.write:
        cfg = json.load(open(ENGINE_FILE))
        cfg["fits"].setdefault(preset, {}).update(calibration)
        with open(ENGINE_FILE, "w") as f:
            json.dump(cfg, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    guarded(main)

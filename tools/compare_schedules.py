#!/usr/bin/python3
"""Runs one scenario under several pipeline schedules (and pipeline depths) and prints a Markdown table of
iteration time, exposed tp communication, idle time, peak memory and the change against a reference schedule.

Usage: tools/compare_schedules.py SCENARIO [--schedules interleaved-1f1b,zb-v,stp] [--pp 2,4,8]
                                  [--reference interleaved-1f1b] [--set k=v ...] [--llmsim build/llmsim]
With --pp, each depth runs on pp nodes with dp 1 (the scenario's tp, micro-batch and global batch kept). The
scenario's own schedule keeps its parameters (e.g. virtual_stages); every other schedule runs with its defaults.
"""
import json
import os
import tempfile

from llmsim_runs import DEFAULT_LLMSIM, resolve, run
from tool_main import ArgumentParser, guarded, numbers


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("scenario")
    ap.add_argument("--schedules", default="interleaved-1f1b,zb-v,stp")
    ap.add_argument("--pp", type=numbers(int, 1), help="comma-separated pipeline depths (default: the scenario's)")
    ap.add_argument("--reference", default="interleaved-1f1b")
    ap.add_argument("--set", action="append", default=[], help="override passed to every run")
    ap.add_argument("--llmsim", default=DEFAULT_LLMSIM)
    args = ap.parse_args()

    depths = args.pp or [None]
    schedules = args.schedules.split(",")
    if args.reference not in schedules:
        raise SystemExit(f"--reference {args.reference}: not one of --schedules ({args.schedules})")
    own = resolve(args.llmsim, args.scenario, args.set)["strategies"]["pipeline_schedule"]["name"]
    print("| pp | schedule | v | iteration [s] | vs " + args.reference + " | exposed tp comm [s] | idle [s] | "
          "peak memory [GB] |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for pp in depths:
            base = list(args.set)
            if pp is not None:
                base += [f"parallelism.pp={pp}", f"cluster.nodes={pp}", "parallelism.dp=1"]
            results = {}
            for name in schedules:
                choice = [] if name == own else [f"strategies.pipeline_schedule={json.dumps({'name': name})}"]
                results[name] = run(args.llmsim, args.scenario, base + choice, os.path.join(tmp, f"{pp}-{name}"))
            ref = results.get(args.reference)
            for name in schedules:
                s, resolved = results[name]
                t = s["iteration_time_s"]
                change = f"{(t / ref[0]['iteration_time_s'] - 1) * 100:+.1f}%" if ref else "-"
                peak = max(m["total"] for m in s["memory_breakdown_bytes"]) / 1e9
                v = resolved["strategies"]["pipeline_schedule"].get("virtual_stages", "-")
                print(f"| {resolved['parallelism']['pp']} | {name} | {v} | {t:.3f} | {change} | "
                      f"{s['time_breakdown_s']['tp_comm']:.3f} | {s['time_breakdown_s']['idle']:.3f} | {peak:.1f} |")


if __name__ == "__main__":
    guarded(main)

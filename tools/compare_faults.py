#!/usr/bin/python3
"""Runs fault scenarios under several failure processes and fault-tolerance modules and prints a Markdown
table of the throughput each keeps: effective tokens/s, the drop against the failure-free run, and the drop by
cause (summary.json faults.loss, percentage points: lost work, stall, wait, checkpoint, stopped, overhead with
every node up, degraded).

Usage: tools/compare_faults.py SCENARIO... [--processes mecefo-low,mecefo-mid,mecefo-high]
                               [--modules none,checkpoint-restart,bamboo,oobleck,mecefo] [--set k=v ...]
                               [--module-set MODULE:k=v ...]

--module-set applies an override to one module's runs only, e.g. `bamboo:parallelism.pp=4` to run a pipeline-based
baseline in its own setting (docs/faults.md).
"""
import json
import os
import tempfile

from llmsim_runs import comparison_parser, run
from tool_main import guarded


def main():
    ap = comparison_parser(__doc__)
    ap.add_argument("--processes", default="mecefo-low,mecefo-mid,mecefo-high",
                    help="comma-separated process names, or a JSON list of process names and objects")
    ap.add_argument("--modules", default="checkpoint-restart,bamboo,oobleck,mecefo")
    ap.add_argument("--module-set", action="append", default=[], metavar="MODULE:k=v",
                    help="override passed to one module's runs")
    args = ap.parse_args()
    processes = ([p if isinstance(p, str) else json.dumps(p) for p in json.loads(args.processes)]
                 if args.processes.startswith("[") else args.processes.split(","))
    per_module = {}
    for item in args.module_set:
        module, sep, override = item.partition(":")
        if not sep or "=" not in override:
            ap.error(f"--module-set expects MODULE:key=value, got '{item}'")
        per_module.setdefault(module, []).append(override)
    unknown = set(per_module) - set(args.modules.split(","))
    if unknown:
        ap.error(f"--module-set names {', '.join(sorted(unknown))}, not among --modules {args.modules}")

    causes = ["lost_work", "stall", "wait", "checkpoint", "stopped", "overhead_all_up", "degraded"]
    print("| model | process | module | failures | effective tokens/s | drop | " + " | ".join(causes) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(causes))
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in args.scenarios:
            for process in processes:
                for module in args.modules.split(","):
                    out = os.path.join(tmp, f"{len(os.listdir(tmp))}")
                    s, _ = run(args.llmsim, scenario, args.set + [f"faults.process={process}",
                                                                   f"strategies.fault_tolerance={module}"]
                                    + per_module.get(module, []), out)
                    f = s["faults"]
                    print(f"| {s['model']} | {s['faults']['process']} | {module} | {f['failures']} | "
                          f"{f['effective_tokens_per_s']:.0f} | {100 * f['throughput_drop']:.2f}% | "
                          + " | ".join(f"{100 * f['loss'][c]:.2f}" for c in causes) + " |")


if __name__ == "__main__":
    guarded(main)

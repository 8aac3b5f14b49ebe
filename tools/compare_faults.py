#!/usr/bin/python3
"""Runs fault scenarios under several failure processes and fault-tolerance modules and prints a Markdown
table of the throughput each keeps: effective tokens/s, the drop against the failure-free run, lost work,
stalled and degraded hours, and MeCeFO's neighbour multipliers.

Usage: tools/compare_faults.py SCENARIO... [--processes mecefo-low,mecefo-mid,mecefo-high]
                               [--modules none,checkpoint-restart,bamboo,oobleck,mecefo] [--set k=v ...]
"""
import os
import tempfile

from llmsim_runs import comparison_parser, run


def main():
    ap = comparison_parser(__doc__)
    ap.add_argument("--processes", default="mecefo-low,mecefo-mid,mecefo-high")
    ap.add_argument("--modules", default="checkpoint-restart,bamboo,oobleck,mecefo")
    args = ap.parse_args()

    print("| model | process | module | failures | effective tokens/s | drop | lost GPU-h | stalled h | degraded h |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in args.scenarios:
            for process in args.processes.split(","):
                for module in args.modules.split(","):
                    out = os.path.join(tmp, f"{len(os.listdir(tmp))}")
                    s, _ = run(args.llmsim, scenario, args.set + [f"faults.process={process}",
                                                                   f"strategies.fault_tolerance={module}"], out)
                    f = s["faults"]
                    print(f"| {s['model']} | {process} | {module} | {f['failures']} | "
                          f"{f['effective_tokens_per_s']:.0f} | {100 * f['throughput_drop']:.2f}% | "
                          f"{f['lost_gpu_hours']:.1f} | {f['stall_h']:.2f} | {f['degraded_h']:.2f} |")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Runs MoE scenarios under several MoE pipelines (strategies.moe_pipeline) and prints a Markdown table of
iteration time, exposed all-to-all and data-parallel communication, the change against a reference pipeline,
the S_p a flowmoe run chose, the job's energy per iteration (summary.json energy; "-" without a power model) and
the worst stage's peak memory per GPU.

Usage: tools/compare_moe_pipelines.py SCENARIO... [--pipelines vanilla-ep,tutel,schemoe,flowmoe]
                                      [--reference vanilla-ep] [--set k=v ...] [--llmsim build/llmsim]
Each pipeline keeps its defaults (R = 2; flowmoe searches S_p unless --set gives it).
"""
import os
import tempfile

from llmsim_runs import comparison_parser, run
from tool_main import guarded


def main():
    ap = comparison_parser(__doc__)
    ap.add_argument("--pipelines", default="vanilla-ep,tutel,schemoe,flowmoe")
    ap.add_argument("--reference", default="vanilla-ep")
    args = ap.parse_args()

    pipelines = args.pipelines.split(",")
    if args.reference not in pipelines:
        raise SystemExit(f"--reference {args.reference}: not one of --pipelines ({args.pipelines})")
    print(f"| model | pipeline | iteration [s] | vs {args.reference} | exposed ep_comm [s] | exposed dp_comm [s] | S_p |"
          " energy [kJ/iteration] | peak memory [GiB] |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in args.scenarios:
            results = {}
            for name in pipelines:
                out = os.path.join(tmp, f"{len(results)}-{name}")
                results[name], resolved = run(args.llmsim, scenario, args.set + [f"strategies.moe_pipeline={name}"], out)
            model = resolved["model"]["name"]
            ref = results.get(args.reference)
            for name in pipelines:
                s = results[name]
                t = s["iteration_time_s"]
                change = f"{(t / ref['iteration_time_s'] - 1) * 100:+.1f}%" if ref else "-"
                search = s.get("moe_pipeline_search")
                sp = f"{search['allreduce_chunk_bytes'] / 2**20:.2f} MiB" if search else "-"
                energy = f"{s['energy']['per_iteration_J'] / 1e3:.2f}" if s.get("energy") else "-"
                print(f"| {model} | {name} | {t:.3f} | {change} | {s['time_breakdown_s']['ep_comm']:.3f} | "
                      f"{s['time_breakdown_s']['dp_comm']:.3f} | {sp} | {energy} | "
                      f"{max(s['peak_memory_bytes']) / 2**30:.2f} |")


if __name__ == "__main__":
    guarded(main)

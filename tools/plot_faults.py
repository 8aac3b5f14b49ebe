#!/usr/bin/python3
"""Draws the throughput of runs under failures over time (their throughput.csv), one line per run, with each
run's failures marked (from its fault_trace.json) and the failure-free throughput as a dashed line.

Usage: tools/plot_faults.py results/<run> [results/<run> ...] [--out faults.png ...]
The output format follows the file extension (png, pdf, svg); --out may be repeated.
"""
import json
import os

import paper_style
from tool_main import ArgumentParser, guarded


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("runs", nargs="+", help="output directories of llmsim runs with failures")
    paper_style.add_out_argument(ap, "faults.png")
    args = ap.parse_args()

    fig, ax = paper_style.figure("text", 2.6)
    for i, run in enumerate(args.runs):
        rows, summary = paper_style.read_run(run, "throughput.csv", "a run with faults.process set")
        f = summary["faults"]
        colour = paper_style.colour(i)
        label = f"{f['fault_tolerance']} ({100 * f['throughput_drop']:.1f}% drop)"
        ax.plot([float(r["time_h"]) for r in rows], [float(r["tokens_per_s"]) / 1e3 for r in rows], color=colour,
                label=label)
        ax.axhline(f["failure_free_tokens_per_s"] / 1e3, color=colour, ls="--", lw=0.6)
        trace = json.load(open(os.path.join(run, "fault_trace.json")))["traceEvents"]
        failures = [e["ts"] / 3.6e9 for e in trace if e.get("name") == "failure"]
        ax.plot(failures, [0] * len(failures), "v", color=colour, clip_on=False)
    ax.set_xlabel("time [h]  (triangles: failures)")
    ax.set_ylabel("throughput [k tokens/s]")
    ax.set_ylim(bottom=0)
    ax.set_title(summary["scenario"] + ": " + f["process"])
    ax.legend()
    paper_style.save(fig, args)


if __name__ == "__main__":
    guarded(main)

#!/usr/bin/python3
"""Draws where the time of training runs goes: one stacked bar per run from its summary.json
"time_breakdown_s" (seconds per GPU per iteration): compute (GEMM, attention, elementwise, optimizer), exposed
communication (tp, pp, dp, ep), waiting for off-chip memory and idle time (the pipeline bubble); the iteration
time is written above each bar.

Usage: tools/plot_breakdown.py results/<run> [results/<run> ...] [--labels a,b,...] [--fraction]
                               [--out breakdown.png ...]
A run is an output directory or its summary.json (a run under failures: the breakdown of its failure-free job,
summary.json's failure_free_run). The output format follows the file extension (png, pdf, svg);
--out may be repeated.
"""
import os

import paper_style
from tool_main import ArgumentParser, guarded, read_object

# Stacking order (bottom to top) and legend names; the keys are summary.json's time categories.
CATEGORIES = [("gemm", "GEMM"), ("attention", "attention"), ("elementwise", "elementwise"), ("optimizer", "optimizer"),
              ("tp_comm", "tp comm"), ("pp_comm", "pp comm"), ("dp_comm", "dp comm"), ("ep_comm", "ep comm"),
              ("cp_comm", "cp comm"),
              ("offload", "offload wait"), ("idle", "idle (bubble)")]


def load(run):
    path = os.path.join(run, "summary.json") if os.path.isdir(run) else run
    if not os.path.exists(path):
        raise SystemExit(f"{run}: no summary.json (give an llmsim output directory or its summary.json)")
    summary = read_object(path, "an llmsim summary")
    if "faults" in summary and "failure_free_run" in summary:  # a run under failures: its failure-free job
        summary = dict(summary["failure_free_run"], scenario=summary.get("scenario", run))
    if "time_breakdown_s" not in summary:
        raise SystemExit(f"{path}: no time_breakdown_s (a training run that fits in memory has one; status "
                         f"{summary.get('status', '?')})")
    return summary


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("runs", nargs="+", help="llmsim training output directories (or their summary.json)")
    ap.add_argument("--labels", default="", help="comma-separated bar labels (default: the scenario names)")
    ap.add_argument("--fraction", action="store_true", help="shares of the iteration instead of seconds")
    paper_style.add_out_argument(ap, "breakdown.png")
    args = ap.parse_args()

    summaries = [load(r) for r in args.runs]
    labels = args.labels.split(",") if args.labels else [s["scenario"] for s in summaries]
    if len(labels) != len(summaries):
        raise SystemExit(f"--labels has {len(labels)} names for {len(summaries)} runs")
    present = [(k, name) for k, name in CATEGORIES if any(s["time_breakdown_s"].get(k, 0) > 0 for s in summaries)]

    fig, ax = paper_style.figure(max(paper_style.COLUMN_WIDTH, 1.6 + 0.45 * len(summaries)), 2.4)
    x = range(len(summaries))
    bottom = [0.0] * len(summaries)
    totals = [sum(s["time_breakdown_s"].values()) for s in summaries]
    for key, name in present:
        values = [s["time_breakdown_s"].get(key, 0.0) for s in summaries]
        if args.fraction:
            values = [100 * v / t for v, t in zip(values, totals)]
        ax.bar(x, values, 0.65, bottom=bottom, color=paper_style.CATEGORY_COLOURS[key], label=name,
               edgecolor="white", linewidth=0.3)
        bottom = [b + v for b, v in zip(bottom, values)]
    for i, s in enumerate(summaries):
        ax.text(i, bottom[i], f"{s['iteration_time_s']:.3g} s", ha="center", va="bottom", fontsize=6)
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=30 if len(summaries) > 3 else 0, ha="right" if len(summaries) > 3 else "center")
    ax.set_ylabel("share of the iteration [%]" if args.fraction else "time per GPU per iteration [s]")
    ax.set_ylim(0, max(bottom) * 1.1)
    handles, names = ax.get_legend_handles_labels()
    ax.legend(handles[::-1], names[::-1], loc="upper left", bbox_to_anchor=(1.0, 1.0))
    paper_style.save(fig, args, f"{len(summaries)} runs")


if __name__ == "__main__":
    guarded(main)

#!/usr/bin/python3
"""Draws serving runs: CDFs of TTFT, TPOT and end-to-end latency of the served requests (from requests.csv, one
line per run, SLOs as dashed lines) and the KV-cache use of every replica over time (from kv_usage.csv).

Usage: tools/plot_serving.py results/<run> [results/<run> ...] [--out serving.png ...]
The output format follows the file extension (png, pdf, svg); --out may be repeated.
"""
import os

import paper_style
from tool_main import ArgumentParser, guarded, read_rows


def column(rows, key, keep=lambda r: True):
    return sorted(float(r[key]) for r in rows if keep(r))


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("runs", nargs="+", help="output directories of llmsim serving runs")
    paper_style.add_out_argument(ap, "serving.png")
    args = ap.parse_args()

    fig, axes = paper_style.figure("text", 2.0, 1, 4)
    for i, run in enumerate(args.runs):
        rows, summary = paper_style.read_run(run, "requests.csv", "a serving run")
        served = [r for r in rows if not r["status"].startswith("rejected")]  # rejected requests have no times
        if not served:
            raise SystemExit(f"{os.path.join(run, 'requests.csv')}: no served requests (all {len(rows)} rejected)")
        sv = summary["serving"]
        label = f"{summary['name']} ({sv['scheduler']})"
        series = [("ttft_s", "TTFT [s]", sv["slo"]["ttft_s"], lambda r: True),
                  ("tpot_s", "TPOT [s]", sv["slo"]["tpot_s"], lambda r: int(r["output_tokens"]) > 1),
                  ("e2e_s", "end-to-end latency [s]", None, lambda r: True)]
        for ax, (key, name, slo, keep) in zip(axes, series):
            v = column(served, key, keep)
            ax.plot(v, [(k + 1) / len(v) for k in range(len(v))], color=paper_style.colour(i), label=label)
            if slo:
                ax.axvline(slo, color="grey", ls="--", lw=0.6)
            ax.set_xscale("log")
            ax.set_xlabel(name)
            ax.set_ylabel("fraction of requests")
            ax.set_ylim(0, 1)
        kv = read_rows(os.path.join(run, "kv_usage.csv"))
        for rep in sorted({r["replica"] for r in kv}, key=int):
            points = [r for r in kv if r["replica"] == rep]
            axes[3].plot([float(r["time_s"]) / 60 for r in points], [100 * float(r["kv_used_fraction"]) for r in points],
                         color=paper_style.colour(i), lw=0.6, alpha=0.8, label=label if rep == "0" else None)
    axes[3].set_xlabel("time [min]")
    axes[3].set_ylabel("KV cache used [% of blocks]")
    axes[3].set_ylim(bottom=0)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(len(labels), 3))
    axes[0].set_title("dashed: SLO", loc="left")
    paper_style.save(fig, args)


if __name__ == "__main__":
    guarded(main)

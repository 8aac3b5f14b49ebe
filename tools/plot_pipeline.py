#!/usr/bin/python3
"""Draws the pipeline timeline of a run from its trace.json: one row per GPU (compute stream, with the
communication stream as a thin band under it), boxes coloured by forward / backward / communication and
labelled with the micro-batch, in the style of the pipeline-schedule figures of GPipe, Megatron-LM and
Zero Bubble papers.

Usage: tools/plot_pipeline.py results/default/trace.json [--out timeline.png ...] [--ranks 0,2,4] [--per-stage]
                              [--start S] [--end S] [--no-labels]
The output format follows the file extension (png, pdf, svg); --out may be repeated.
"""
import json
import re

import paper_style
from matplotlib.patches import Patch
from tool_main import ArgumentParser, guarded, number, numbers

COLOURS = {"F": paper_style.PALETTE[0], "B": paper_style.PALETTE[1], "W": paper_style.PALETTE[2],
           "optimizer": paper_style.PALETTE[4], "comm": paper_style.PALETTE[3], "wait": "#BBBBBB"}


def kind_of(event):
    name = event["name"]
    if event["tid"] == 1:
        return "comm"
    if "(wait)" in name or name.startswith("recv"):
        return "wait"
    head = name.split(" ")[0]
    return head if head in COLOURS else "optimizer"


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("trace")
    paper_style.add_out_argument(ap, "timeline.png")
    ap.add_argument("--ranks", type=numbers(int, 0), help="comma-separated GPU ranks (default: all traced)")
    ap.add_argument("--per-stage", action="store_true", help="one GPU per pipeline stage (the first traced)")
    ap.add_argument("--start", type=number(), default=None, help="window start [s]")
    ap.add_argument("--end", type=number(), default=None, help="window end [s]")
    ap.add_argument("--no-labels", action="store_true")
    args = ap.parse_args()

    trace = json.load(open(args.trace))
    events = trace.get("traceEvents") if isinstance(trace, dict) else trace
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise SystemExit(f"{args.trace}: not a Chrome trace (a list of event objects, or one under traceEvents)")
    names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    boxes = [e for e in events if e.get("ph") == "X"]
    if not boxes:
        raise SystemExit(f"{args.trace}: no complete events (\"ph\": \"X\") to draw (is it a run's trace.json?)")
    ranks = args.ranks or sorted({e["pid"] for e in boxes})
    if args.per_stage:
        seen, chosen = set(), []
        for r in ranks:
            stage = re.search(r"stage (\d+)", names.get(r, ""))
            key = stage.group(1) if stage else r
            if key not in seen:
                seen.add(key)
                chosen.append(r)
        ranks = chosen
    missing = sorted(set(ranks) - {e["pid"] for e in boxes})
    if missing:
        raise SystemExit(f"--ranks {','.join(map(str, args.ranks))}: {missing[0]} has no events in {args.trace} "
                         f"(traced: {', '.join(str(r) for r in sorted({e['pid'] for e in boxes}))})")
    row = {r: i for i, r in enumerate(ranks)}
    last = max(e["ts"] + e["dur"] for e in boxes) / 1e6
    t0 = args.start if args.start is not None else 0.0
    t1 = args.end if args.end is not None else last
    if not t0 < t1 or t0 >= last:
        raise SystemExit(f"--start {t0:g} --end {t1:g}: an empty window (the trace spans 0-{last:g} s)")

    # Boxes per (GPU, stream), time-ordered; touching boxes of the same kind and micro-batch merge (a braided
    # or unit-level run has many small ones), then each (GPU, stream, kind) is drawn in one call.
    lanes = {}
    for e in boxes:
        if e["pid"] not in row:
            continue
        start, dur = e["ts"] / 1e6, e["dur"] / 1e6
        if start + dur < t0 or start > t1:
            continue
        mb = re.search(r"mb(\d+)", e["name"])
        lanes.setdefault((e["pid"], e["tid"]), []).append([start, dur, kind_of(e), mb.group(1) if mb else None])
    fig, ax = paper_style.figure("text", 0.3 * len(ranks) + 0.8)
    for (pid, tid), items in lanes.items():
        items.sort(key=lambda b: b[0])
        merged = []
        for b in items:
            last = merged[-1] if merged else None
            if last and last[2] == b[2] and last[3] == b[3] and b[0] - (last[0] + last[1]) <= 1e-9:
                last[1] = b[0] + b[1] - last[0]
            else:
                merged.append(list(b))
        y = row[pid] + (0.38 if tid == 1 else 0.0)
        height = 0.18 if tid == 1 else 0.36
        edge = 0.3 if len(merged) < 400 else 0.0  # white borders would hide thousands of small boxes
        for kind in COLOURS:
            spans = [(b[0], b[1]) for b in merged if b[2] == kind]
            if spans:
                ax.broken_barh(spans, (y - height / 2 + 0.18, height), facecolors=COLOURS[kind], edgecolor="white",
                               linewidth=edge)
        if not args.no_labels and tid == 0:
            for start, dur, _, mb in merged:
                if mb and dur > (t1 - t0) / 150:
                    ax.text(start + dur / 2, y + 0.18, mb, ha="center", va="center", fontsize=5, color="white")
    ax.set_xlim(t0, t1)
    ax.set_ylim(len(ranks), -0.2)
    ax.set_yticks([i + 0.25 for i in range(len(ranks))])
    ax.set_yticklabels([names.get(r, f"GPU {r}") for r in ranks])
    ax.set_xlabel("time [s]")
    ax.legend(handles=[Patch(color=c, label=k) for k, c in COLOURS.items()], ncol=6, loc="lower center",
              bbox_to_anchor=(0.5, 1.0))
    paper_style.save(fig, args, f"{len(ranks)} GPUs, {t0:.3f}-{t1:.3f} s")


if __name__ == "__main__":
    guarded(main)

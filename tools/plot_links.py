#!/usr/bin/python3
"""Draws the link utilisation of a run from its links.csv: a heatmap of nodes x node links (NVLink ports nvl*,
NVLink-switch ports nvls*, NICs nic*, ...; two columns per link, up and down direction of SimGrid's split-duplex
links, grouped by kind), beside bars for the links outside the nodes (leaf, uplinks, spine, torus/dragonfly
links, ...; the busiest --max-fabric of them).

Usage: tools/plot_links.py results/<run> [--metric mean|peak|bytes] [--max-fabric 24] [--out links.png ...]
The metric is the mean utilisation over the run (default), the peak utilisation, or the bytes carried. The
output format follows the file extension (png, pdf, svg); --out may be repeated.
"""
import os
import re

import paper_style
import matplotlib.pyplot as plt
from tool_main import ArgumentParser, guarded, read_rows

NODE_LINK = re.compile(r"^node(\d+)-([a-z]+)([\d-]*)_(UP|DOWN)$")
KIND_ORDER = ["nvl", "nvls", "nic"]
METRICS = {"mean": ("mean_utilisation", 100, "mean utilisation [%]"),
           "peak": ("peak_utilisation", 100, "peak utilisation [%]"),
           "bytes": ("bytes", 1e-9, "traffic [GB]")}


def index_key(index):
    return [int(p) for p in index.split("-") if p]


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("run", help="output directory of an llmsim training run (or its links.csv)")
    ap.add_argument("--metric", choices=sorted(METRICS), default="mean")
    ap.add_argument("--max-fabric", type=int, default=24, help="fabric links drawn (the busiest, at least 1)")
    paper_style.add_out_argument(ap, "links.png")
    args = ap.parse_args()
    if args.max_fabric < 1:
        raise SystemExit(f"--max-fabric {args.max_fabric}: at least 1 link")

    path = os.path.join(args.run, "links.csv") if os.path.isdir(args.run) else args.run
    if not os.path.exists(path):
        raise SystemExit(f"{args.run}: no links.csv (is it the output of a training run?)")
    column, scale, label = METRICS[args.metric]
    rows = read_rows(path, " (simgrid-xml and ns-3 runs have no link statistics)")

    cells, fabric = {}, []
    for r in rows:
        m = NODE_LINK.match(r["link"])
        value = float(r[column]) * scale
        if m:
            node, kind, index, direction = m.groups()
            cells[(int(node), (kind, index), direction)] = value
        else:
            fabric.append((r["link"], value))
    nodes = sorted({n for n, _, _ in cells})
    ports = sorted({p for _, p, _ in cells},
                   key=lambda p: (KIND_ORDER.index(p[0]) if p[0] in KIND_ORDER else len(KIND_ORDER), p[0],
                                  index_key(p[1])))
    columns = [(p, d) for p in ports for d in ("UP", "DOWN")]
    matrix = [[cells.get((n, p, d), float("nan")) for p, d in columns] for n in nodes]
    fabric = sorted(sorted(fabric, key=lambda f: -f[1])[:args.max_fabric])

    height = min(6.0, max(2.0, 1.1 + 0.22 * max(len(nodes), len(fabric) / 2)))
    if fabric and cells:
        fig, (hm, bars) = paper_style.figure("text", height, 1, 2, gridspec_kw={"width_ratios": [3.2, 1]})
    else:
        fig, ax = paper_style.figure("text", height)
        hm, bars = (ax, None) if cells else (None, ax)
    top = max([v for row in matrix for v in row if v == v] + [f[1] for f in fabric] + [1e-12])
    if hm is not None:
        im = hm.imshow(matrix, aspect="auto", cmap="viridis", vmin=0, vmax=top, interpolation="nearest")
        hm.set_xticks(range(len(columns)))
        hm.set_xticklabels([f"{p[0]}{p[1]}{'↑' if d == 'UP' else '↓'}" for p, d in columns], rotation=90, fontsize=5)
        if len(nodes) <= 32:
            hm.set_yticks(range(len(nodes)))
            hm.set_yticklabels([f"node {n}" for n in nodes])
        hm.set_ylabel("node")
        hm.set_xlabel("node link (↑ UP, ↓ DOWN direction)")
        for i in range(1, len(columns)):  # a white line between link kinds
            if columns[i][0][0] != columns[i - 1][0][0]:
                hm.axvline(i - 0.5, color="white", lw=1.5)
        if len(nodes) * len(columns) <= 160:
            for y, row in enumerate(matrix):
                for x, v in enumerate(row):
                    if v == v:
                        hm.text(x, y, f"{v:.2g}", ha="center", va="center", fontsize=4,
                                color="white" if v < 0.6 * top else "black")
        for side in ("top", "right"):
            hm.spines[side].set_visible(True)
        fig.colorbar(im, ax=hm, fraction=0.04, pad=0.01).set_label(label)
    if bars is not None:
        names = [f[0] for f in fabric]
        colours = [plt.get_cmap("viridis")(f[1] / top) for f in fabric]
        bars.barh(range(len(fabric)), [f[1] for f in fabric], color=colours, edgecolor="black", linewidth=0.3)
        bars.set_yticks(range(len(fabric)))
        bars.set_yticklabels(names, fontsize=6)
        bars.invert_yaxis()
        bars.set_xlim(0, top)
        bars.set_xlabel(label)
        bars.set_title("links outside the nodes")
    paper_style.save(fig, args, f"{len(nodes)} nodes x {len(columns)} node links, {len(fabric)} fabric links")


if __name__ == "__main__":
    guarded(main)

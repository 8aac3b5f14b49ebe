#!/usr/bin/python3
"""Draws the MoE load of a run from its moe_load.csv and moe_traffic.csv: tokens per expert (bars, coloured by
the device hosting each replica) and per device, and the all-to-all traffic matrix (token copies from source
to destination device) of one MoE layer, in the style of the expert-placement figures of Mozart and EPLB.

Usage: tools/plot_moe.py results/<run> [--layer 0] [--out moe.png ...]
The output format follows the file extension (png, pdf, svg); --out may be repeated.
"""
import os

import paper_style
import matplotlib.pyplot as plt
import matplotlib.ticker
from tool_main import ArgumentParser, guarded, read_rows


def read(run, table, layer):
    """The rows of MoE layer `layer` in the run's CSV `table`; exits naming the file if it has none."""
    path = os.path.join(run, table)
    rows = [r for r in read_rows(path) if int(r["layer"]) == layer]
    if not rows:
        raise SystemExit(f"{path}: no MoE layer {layer}")
    return rows


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("run", help="output directory of an llmsim run of a MoE model")
    ap.add_argument("--layer", type=int, default=0, help="MoE layer (0-based among the MoE layers)")
    paper_style.add_out_argument(ap, "moe.png")
    args = ap.parse_args()

    if not os.path.exists(os.path.join(args.run, "moe_load.csv")):
        raise SystemExit(f"{args.run}: no moe_load.csv (is it the output of a MoE model run?)")
    load = read(args.run, "moe_load.csv", args.layer)
    traffic = read(args.run, "moe_traffic.csv", args.layer)
    experts = sorted({int(r["expert"]) for r in load})
    devices = sorted({int(r["device"]) for r in load})
    per_expert = {e: 0.0 for e in experts}
    per_device = {d: 0.0 for d in devices}
    host = {}
    for r in load:
        e, d, t = int(r["expert"]), int(r["device"]), float(r["tokens"])
        per_expert[e] += t
        per_device[d] += t
        host.setdefault(e, d)
    n = len(devices)
    matrix = [[0.0] * n for _ in range(n)]
    for r in traffic:
        matrix[int(r["src"])][int(r["dst"])] = float(r["token_copies"])

    cmap = plt.get_cmap("tab20")
    fig, (a, b, c) = paper_style.figure("text", 2.3, 1, 3, gridspec_kw={"width_ratios": [3, 1.4, 1.4]})
    a.bar(experts, [per_expert[e] for e in experts], color=[cmap(host[e] % 20) for e in experts], width=0.85)
    a.set_xlabel("expert (colour: device of first replica)")
    a.set_ylabel("tokens per micro-batch")
    a.set_title(f"expert load, MoE layer {args.layer}")
    b.bar(devices, [per_device[d] for d in devices], color=[cmap(d % 20) for d in devices])
    mean = sum(per_device.values()) / n
    b.axhline(mean, color="black", lw=0.6, ls="--")
    b.set_xlabel("device")
    b.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    b.set_title(f"device load (max/mean {max(per_device.values()) / mean:.2f})")
    im = c.imshow(matrix, cmap="viridis")
    c.set_xlabel("destination device")
    c.set_ylabel("source device")
    c.set_title("dispatch token copies")
    fig.colorbar(im, ax=c, fraction=0.046)
    paper_style.save(fig, args, f"layer {args.layer}, {len(experts)} experts on {n} devices")


if __name__ == "__main__":
    guarded(main)

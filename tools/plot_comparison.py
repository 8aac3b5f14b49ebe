#!/usr/bin/python3
"""Draws simulated against published values as grouped bars (simulated beside published for each label, the
error in % above each pair, the mean absolute error in the legend), e.g. the TFLOP/s per GPU of Megatron-LM's
Table 1 configurations or the throughput of strategies.

Usage: tools/plot_comparison.py TABLE.csv [--x label] [--y simulated] [--published published] [--unit U]
                                [--ylabel TEXT] [--out comparison.png ...]
TABLE.csv has a header row; by default the columns label,simulated,published[,unit] (a row with an empty
published value gets its simulated bar only; a published 0 is refused, as the error in % is relative to it). For a
sweep's results.csv name the columns: --x for the bar labels, --y for the simulated value and --published for the
reference (a table without a published column and no --published: simulated values alone). The output format
follows the file extension (png, pdf, svg); --out may be repeated.
"""
import math

import paper_style
from tool_main import ArgumentParser, guarded, read_rows


def number(text, where):
    """The finite number in a cell; exits naming the cell otherwise."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise SystemExit(f"{where}: '{text}' is not a finite number")
    return value


def reference(text, where):
    """A published value: None for an empty cell, else a number other than 0 (the reference of the error in %)."""
    if not text.strip():
        return None
    value = number(text, where)
    if value == 0:
        raise SystemExit(f"{where}: 0 has no error in % (leave the cell empty for a row without a published value)")
    return value


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("table", help="CSV file with a header row")
    ap.add_argument("--x", default="label", help="column of the bar labels (default label)")
    ap.add_argument("--y", default="simulated", help="column of the simulated values (default simulated)")
    ap.add_argument("--published", help="column of the published values (default published, if the table has it)")
    ap.add_argument("--unit", default=None, help="unit for the axis (default: the table's unit column, if any)")
    ap.add_argument("--ylabel", default=None, help="axis label (default: the unit, else the --y column)")
    paper_style.add_out_argument(ap, "comparison.png")
    args = ap.parse_args()

    rows = read_rows(args.table)
    column = "published" if args.published is None and "published" in rows[0] else args.published
    for option, col in (("--x", args.x), ("--y", args.y), ("--published", column)):
        if col is not None and col not in rows[0]:
            raise SystemExit(f"{option} {col}: not a column of {args.table} (columns: {', '.join(rows[0])})")
    labels = [r[args.x] for r in rows]
    simulated = [number(r[args.y], f"{args.table} line {i + 2}, {args.y}") for i, r in enumerate(rows)]
    published = [reference(r[column], f"{args.table} line {i + 2}, {column}") if column is not None else None
                 for i, r in enumerate(rows)]
    units = {r["unit"] for r in rows if r.get("unit")}
    unit = args.unit or (units.pop() if len(units) == 1 else "")
    errors = [100 * (s - p) / p if p is not None else None for s, p in zip(simulated, published)]
    known = [abs(e) for e in errors if e is not None]

    n = len(rows)
    fig, ax = paper_style.figure(max(paper_style.COLUMN_WIDTH, 1.0 + 0.42 * n), 2.3)
    width = 0.38 if known else 0.6
    xs = list(range(n))
    ax.bar([x - width / 2 if known else x for x in xs], simulated, width, color=paper_style.colour(0), label="simulated")
    if known:
        ax.bar([x + width / 2 for x in xs], [p if p is not None else 0 for p in published], width,
               color=paper_style.colour(1), label=f"published (MAE {sum(known) / len(known):.1f}%)")
    top = max(simulated + [p for p in published if p is not None])
    for x, s, p, e in zip(xs, simulated, published, errors):
        if e is not None:
            ax.text(x, max(s, p) + 0.02 * top, f"{e:+.1f}%", ha="center", va="bottom", fontsize=6)
    ax.set_xticks(xs)
    rotate = n > 4 or max(len(label) for label in labels) > 10
    ax.set_xticklabels(labels, rotation=30 if rotate else 0, ha="right" if rotate else "center")
    ax.set_ylabel(args.ylabel or unit or args.y)
    ax.set_ylim(0, top * 1.15)
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, 1.12), ncol=2)
    paper_style.save(fig, args, f"{n} rows" + (f", mean |error| {sum(known) / len(known):.1f}%" if known else ""))


if __name__ == "__main__":
    guarded(main)

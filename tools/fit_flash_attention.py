#!/usr/bin/python3
"""Fit e(s) = e_max * s / (s + s_half) to a fused-attention throughput table (forward and backward separately).

Usage: tools/fit_flash_attention.py [data/validation/flash-attention-3-h100.csv] [--peak 989.4]
Prints e_max and s_half per direction and the relative error of every point (docs/precision.md).
"""
import csv
import math
import os

import numpy as np
from scipy.optimize import least_squares
from tool_main import ArgumentParser, guarded

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fit(seq, eff):
    def residual(p):
        return p[0] * seq / (seq + p[1]) / eff - 1
    return least_squares(residual, [0.6, 500.0]).x, residual


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("table", nargs="?", default=os.path.join(ROOT, "data", "validation", "flash-attention-3-h100.csv"),
                    help="CSV with columns direction, seq_len, tflops (default: the repository's H100 table)")
    ap.add_argument("--peak", type=float, default=989.4, help="dense BF16 peak [TFLOP/s] (H100 SXM5)")
    args = ap.parse_args()
    if not 0 < args.peak < math.inf:
        raise SystemExit(f"--peak {args.peak}: a finite peak in TFLOP/s above 0")
    rows = list(csv.DictReader(open(args.table)))
    for direction in ("forward", "backward"):
        sel = [r for r in rows if r.get("direction") == direction]
        if len(sel) < 2:
            raise SystemExit(f"{args.table}: {len(sel)} {direction} rows (columns direction, seq_len, tflops; at "
                             "least 2 per direction to fit the curve's 2 parameters)")
        seq = np.array([float(r["seq_len"]) for r in sel])
        eff = np.array([float(r["tflops"]) for r in sel]) / args.peak
        (e_max, half), residual = fit(seq, eff)
        errors = ", ".join(f"{s:.0f}: {100 * r:+.1f}%" for s, r in zip(seq, residual([e_max, half])))
        print(f"flash_{direction}_efficiency {e_max:.3f}  flash_{direction}_half_seq {half:.0f}  ({errors})")


if __name__ == "__main__":
    guarded(main)

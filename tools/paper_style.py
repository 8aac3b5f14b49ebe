"""The one figure style of llmsim's plot scripts (tools/plot_*.py): fonts, line widths, colour cycle, figure
sizes of one- and two-column papers, tight layout, 300 dpi PNG. Every plot script imports this module before
pyplot, builds its figure with `figure()` and writes it with `save()`; `--out` may be repeated and each file's
extension (png, pdf, svg) picks its format.
"""
import os

import matplotlib
from tool_main import read_object, read_rows

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Widths of a two-column paper (IEEE / ACM): one column and the full text width [inch].
COLUMN_WIDTH = 3.45
TEXT_WIDTH = 7.0
DPI = 300

# Okabe-Ito: distinguishable for colour-blind readers and in greyscale print.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000", "#999999"]

# One colour per time category of summary.json (time_breakdown_s) and per kind of box in a trace, shared by
# the breakdown bars and the pipeline timeline so that a figure set reads alike.
CATEGORY_COLOURS = {
    "gemm": "#0072B2", "attention": "#56B4E9", "elementwise": "#009E73", "optimizer": "#CC79A7",
    "tp_comm": "#E69F00", "pp_comm": "#D55E00", "dp_comm": "#F0E442", "ep_comm": "#8C564B", "cp_comm": "#000000",
    "offload": "#7F7F7F", "idle": "#D9D9D9",
}

RC = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "legend.frameon": False,
    "axes.linewidth": 0.6,
    "lines.linewidth": 1.2,
    "lines.markersize": 4,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.major.size": 3,
    "ytick.major.size": 3,
    "grid.linewidth": 0.4,
    "grid.alpha": 0.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "savefig.dpi": DPI,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.02,
    "pdf.fonttype": 42,  # TrueType in PDFs (editable text; accepted by paper submission checks)
    "ps.fonttype": 42,
}
plt.rcParams.update(RC)


def colour(i):
    """The i-th colour of the cycle (runs, series)."""
    return PALETTE[i % len(PALETTE)]


def figure(width="column", height=None, nrows=1, ncols=1, **kwargs):
    """A figure one column ("column") or the full text ("text") wide, or `width` inches; `height` defaults to
    0.62 x the width of one column. Returns (fig, axes) like plt.subplots."""
    w = {"column": COLUMN_WIDTH, "text": TEXT_WIDTH}.get(width, width)
    h = height if height is not None else 0.62 * COLUMN_WIDTH
    return plt.subplots(nrows, ncols, figsize=(w, h), **kwargs)


def read_run(run, table, what):
    """(rows of the run's CSV `table`, its summary.json); exits naming `what` the run must be if the CSV is
    missing, naming the file if it has no rows."""
    path = os.path.join(run, table)
    if not os.path.exists(path):
        raise SystemExit(f"{run}: no {table} (is it the output of {what}?)")
    return read_rows(path), read_object(os.path.join(run, "summary.json"), "an llmsim summary")


def add_out_argument(parser, default):
    """--out FILE, repeatable (e.g. --out fig.png --out fig.pdf); the extension picks the format."""
    parser.add_argument("--out", action="append", default=None,
                        help=f"output file; repeat for several formats (png, pdf, svg); default {default}")
    parser.set_defaults(out_default=default)


def outputs(args):
    """The files --out named (or the default)."""
    return args.out or [args.out_default]


def save(fig, args, note=""):
    """Tight layout, then one file per --out (format from its extension); prints what it wrote."""
    fig.tight_layout(pad=0.3)
    for path in outputs(args):  # every name checked before any file is written
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if ext not in ("png", "pdf", "svg"):
            raise SystemExit(f"{path}: unknown figure format '{ext}' (use .png, .pdf or .svg)")
    for path in outputs(args):
        fig.savefig(path)
        print(f"wrote {path}" + (f" ({note})" if note else ""))
    plt.close(fig)

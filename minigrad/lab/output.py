"""Writing an experiment's output folder: a CSV of the numbers and a PNG plot.

Plots use matplotlib's object interface (``Figure``) rather than ``pyplot``, so running
an experiment from a notebook or a script never changes the caller's plotting state.
Without matplotlib the CSV is still written and the result says how to get the plot.
"""

from __future__ import annotations

import csv
import math
import pathlib

__all__ = ["PLOT_HINT", "log_axis", "new_figure", "output_folder", "save_figure", "write_csv"]

#: What to tell the user when matplotlib is missing.
PLOT_HINT = "install matplotlib (pip install matplotlib) and run again to get the plot"


def output_folder(out, name: str) -> pathlib.Path:
    """The folder ``out`` (default ``runs/lab/NAME``), created if needed."""
    path = pathlib.Path(out) if out is not None else pathlib.Path("runs") / "lab" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6g}"
    return str(value)


def write_csv(path, columns: list[str], rows: list[list]) -> pathlib.Path:
    """Write ``rows`` under the header ``columns`` (floats with 6 significant digits)."""
    path = pathlib.Path(path)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        for row in rows:
            if len(row) != len(columns):
                raise ValueError(f"write_csv: a row has {len(row)} cells, expected {len(columns)}")
            writer.writerow([_cell(v) for v in row])
    return path


def new_figure(result, nrows: int = 1, ncols: int = 1, width: float = 6.0, height: float = 4.0):
    """``(figure, axes)`` with ``nrows x ncols`` panels for ``result``'s plot, or
    ``(None, None)`` without matplotlib, and then ``result.notes`` says how to get the plot.

    ``axes`` is a flat list of the panels.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        result.notes.append(PLOT_HINT)
        return None, None
    fig = Figure(figsize=(width * ncols, height * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, [ax for row in axes for ax in row]


def save_figure(fig, path, rect=None) -> pathlib.Path:
    """Save a figure made by ``new_figure`` as PNG; ``rect`` (left, bottom, right, top, in
    figure fractions) keeps room outside the panels, e.g. for a legend below them."""
    path = pathlib.Path(path)
    fig.tight_layout(rect=rect)
    fig.savefig(path, dpi=110)
    return path


def log_axis(ax, which: str = "y") -> None:
    """A logarithmic axis labelled 0.5, 1, 2, 5 rather than in powers of ten (for axes
    that span a few decades at most)."""
    from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

    (ax.set_yscale if which == "y" else ax.set_xscale)("log")
    axis = ax.yaxis if which == "y" else ax.xaxis
    formatter = ScalarFormatter()
    formatter.set_scientific(False)
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(formatter)
    axis.set_minor_formatter(NullFormatter())

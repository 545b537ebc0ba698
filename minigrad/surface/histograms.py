"""Histograms, as PyTorch has them: ``histc``, ``histogram`` and ``histogramdd``.

A sample ``v`` falls in bin ``k`` when ``edges[k] <= v < edges[k + 1]``; the last bin
also holds ``v == edges[-1]``; samples outside the edges (and NaN) are left out.
Equal-width edges are ``linspace(min, max, bins + 1)`` in the input's dtype, with
``min`` and ``max`` the data's own when no range is given (widened by 1 on each side
when they are equal). Counts carry no gradient (they are step functions of the data).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from minigrad.tensor import Tensor, as_tensor

Histogram = namedtuple("histogram", ["hist", "bin_edges"])
Histogramdd = namedtuple("histogramdd", ["hist", "bin_edges"])


def _const(array) -> Tensor:
    return Tensor._make(np.asarray(array), False, None)


def _float_input(x: Tensor, name: str) -> np.ndarray:
    if x.dtype.kind != "f":
        raise NotImplementedError(f"{name}: \"histogram_cpu\" not implemented for '{x.dtype}'")
    return x._data


def _data_range(values: np.ndarray, lo, hi, widen: float, name: str) -> tuple[float, float]:
    """``(lo, hi)``: the data's own range when unset (None, or equal: ``histc``'s 0, 0),
    widened by ``widen`` on each side when it is a single point."""
    if lo is None or hi is None or lo == hi:
        lo, hi = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"{name}: range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - widen, hi + widen
    if lo > hi:
        raise RuntimeError(f"max must be larger than min, got min={lo} and max={hi}")
    return lo, hi


def _bin_of(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of each value (-1 outside the edges: below the first or above the last,
    so every value is outside edges whose first is above their last, as in PyTorch)."""
    k = np.searchsorted(edges, values, side="right") - 1
    k = np.where(values == edges[-1], len(edges) - 2, k)
    outside = (values < edges[0]) | (values > edges[-1]) | np.isnan(values)
    return np.where(outside, -1, k)


def _edges(values: np.ndarray, bins, lo, hi, dtype, name: str = "histogram") -> np.ndarray:
    if isinstance(bins, Tensor):
        edges = bins._data.astype(dtype)
        if edges.ndim != 1 or edges.size < 2:
            raise RuntimeError(
                "histogram: bins tensor should have one dimension and at least 2 elements"
            )
        return edges  # not checked for order: PyTorch's answer for edges that decrease
        # (first above last) is no count at all, and _bin_of gives that too
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins <= 0:
        raise RuntimeError(f"histogram: bins must be > 0, got {bins!r}")
    if name == "histc":
        lo, hi = _data_range(values, lo, hi, 1.0, "torch.histc")
    elif values.size == 0 and lo is None:
        lo, hi = 0.0, 1.0  # PyTorch's range for no data
    else:
        lo, hi = _data_range(values, lo, hi, 0.5, name)
    return np.linspace(lo, hi, int(bins) + 1).astype(dtype)


def histc(input, bins: int = 100, min=0, max=0) -> Tensor:
    """Counts of the elements in ``bins`` equal-width bins between ``min`` and ``max``
    (the data's minimum and maximum when both are 0), in the input's dtype.

    Example::

        >>> mg.histc(mg.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """
    x = as_tensor(input)
    values = _float_input(x, "histc").reshape(-1)
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for bin number")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError(f"torch.histc: max must be larger than min, got min={lo} and max={hi}")
    edges = _edges(values, int(bins), lo, hi, x.dtype, "histc")
    k = _bin_of(values, edges)
    counts = np.bincount(k[k >= 0], minlength=int(bins))
    return _const(counts.astype(x.dtype))


def histogram(input, bins=100, *, range=None, weight=None, density: bool = False):
    """``(hist, bin_edges)``: the (weighted) counts of the elements in ``bins`` (an int,
    100 by default as in PyTorch: that many equal-width bins over ``range`` or the data's
    range; or a 1-D tensor of increasing edges). With ``density`` the counts are divided
    by their total and the bin widths, so that the histogram integrates to 1."""
    x = as_tensor(input)
    values = _float_input(x, "histogram").reshape(-1)
    lo, hi = (None, None) if range is None else (float(range[0]), float(range[1]))
    edges = _edges(values, bins, lo, hi, x.dtype)
    k = _bin_of(values, edges)
    w = None if weight is None else as_tensor(weight)._data.reshape(-1)[k >= 0]
    hist = np.bincount(k[k >= 0], weights=w, minlength=len(edges) - 1).astype(x.dtype)
    if density:
        hist = (hist / (hist.sum() * np.diff(edges))).astype(x.dtype)
    return Histogram(_const(hist), _const(edges))


def histogramdd(input, bins, *, range=None, weight=None, density: bool = False):
    """``(hist, bin_edges)``: the D-dimensional histogram of the points in the rows of
    ``input`` (shape ``(*, D)``). ``bins`` is an int, one int per dim, or one tensor of
    edges per dim; ``range`` is ``[min_0, max_0, min_1, max_1, ...]``."""
    x = as_tensor(input)
    data = _float_input(x, "histogramdd")
    points = data.reshape(-1, data.shape[-1])
    ndim = points.shape[1]
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * ndim
    if len(per_dim) != ndim:
        raise RuntimeError(
            f"histogramdd: expected {ndim} sequences of bin edges for each of the {ndim} "
            f"dimensions of the input, but got {len(per_dim)}"
        )
    if range is not None and len(range) != 2 * ndim:
        raise RuntimeError(f"histogramdd: expected {2 * ndim} range values, got {len(range)}")
    edges, keys = [], []
    for i in np.arange(ndim):  # (``range`` is the argument here)
        lo, hi = (None, None) if range is None else (float(range[2 * i]), float(range[2 * i + 1]))
        e = _edges(points[:, i], per_dim[i], lo, hi, x.dtype)
        edges.append(e)
        keys.append(_bin_of(points[:, i], e))
    inside = np.all(np.stack(keys, axis=1) >= 0, axis=1) if points.size else np.zeros(0, bool)
    shape = tuple(len(e) - 1 for e in edges)
    flat = np.ravel_multi_index(tuple(k[inside] for k in keys), shape) if inside.size else []
    w = None if weight is None else as_tensor(weight)._data.reshape(-1)[inside]
    hist = np.bincount(flat, weights=w, minlength=int(np.prod(shape))).reshape(shape)
    hist = hist.astype(x.dtype)
    if density:
        volume = np.ones(shape)
        for i, e in enumerate(edges):
            width = [1] * ndim
            width[i] = -1
            volume = volume * np.diff(e).reshape(width)
        hist = (hist / (hist.sum() * volume)).astype(x.dtype)
    return Histogramdd(_const(hist), [_const(e) for e in edges])


METHODS = ["histc", "histogram"]
FUNCTIONS = ["histc", "histogram", "histogramdd"]

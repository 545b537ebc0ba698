"""Order statistics and moments, as PyTorch has them: ``mode``, ``nanmedian``,
``quantile``, ``nanquantile``, ``cov`` and ``corrcoef``.

The order statistics pick elements, so their values are a ``gather`` of the input at
the chosen places and the gradient goes back there, as in PyTorch:

- ``mode`` and ``nanmedian`` pick one element per row;
- ``quantile`` sorts each row and interpolates between the two neighbouring order
  statistics ``v_lo`` and ``v_hi`` around the rank ``q (n - 1)``:
  ``v_lo + w (v_hi - v_lo)`` with ``w`` the rank's fractional part (``linear``), or
  picks ``v_lo`` (``lower``), ``v_hi`` (``higher``), their mean (``midpoint``) or the
  nearer one (``nearest``, ties to the even rank). ``w`` is a constant, so ``v_lo``
  gets ``(1 - w)`` of the gradient and ``v_hi`` gets ``w``.

``cov`` and ``corrcoef`` are compositions of differentiable operations.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from minigrad import dtypes
from minigrad.functions import reduction as R
from minigrad.functions.errors import DtypeError, no_kernel
from minigrad.tensor import Tensor, as_tensor

#: ``(values, indices)`` results, as PyTorch's named tuples.
Mode = namedtuple("mode", ["values", "indices"])
Nanmedian = namedtuple("nanmedian", ["values", "indices"])

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _const(array) -> Tensor:
    return Tensor._make(np.asarray(array), False, None)


def _dim(dim, ndim: int) -> int:
    (d,) = R.normalize_dims(dim, max(ndim, 1))
    return d


def _pick(x: Tensor, dim, keepdim: bool, choose, result):
    """``result(values, indices)``: the element ``choose(row)`` of each row along ``dim``
    (``choose`` maps a 2-D array of rows to one index per row)."""
    if x.ndim == 0:
        return result(x.clone(), _const(np.zeros((), np.int64)))
    d = _dim(dim, x.ndim)
    if x.shape[d] == 0:
        raise IndexError(f"{result.__name__}(): Expected reduction dim {d} to have non-zero size.")
    rows = np.moveaxis(x._data, d, -1)
    idx = choose(rows.reshape(-1, rows.shape[-1])).reshape(rows.shape[:-1])
    idx = np.expand_dims(idx.astype(np.int64), d)
    values = x.gather(d, _const(idx))
    if not keepdim:
        values, idx = values.squeeze(d), np.squeeze(idx, d)
    return result(values, _const(idx))


def _mode_rows(rows: np.ndarray) -> np.ndarray:
    """Per row, where its most frequent value is (the smallest such value on a tie; its
    last position, as PyTorch's CPU kernel)."""
    out = np.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        values, counts = np.unique(row, return_counts=True)
        best = values[np.argmax(counts)]  # argmax: the first, i.e. the smallest, on a tie
        same = (row == best) | (np.isnan(row) & np.isnan(best) if row.dtype.kind == "f" else False)
        out[r] = np.flatnonzero(same)[-1]
    return out


def mode(input, dim: int = -1, keepdim: bool = False):
    """``(values, indices)``: the most frequent value along ``dim`` and where it is.

    Example::

        >>> mg.tensor([[1, 2, 2, 3], [4, 4, 5, 5]]).mode(1)
        mode(values=tensor([2, 4]), indices=tensor([2, 1]))
    """
    return _pick(as_tensor(input), dim, keepdim, _mode_rows, Mode)


def _nanmedian_rows(rows: np.ndarray) -> np.ndarray:
    order = np.argsort(rows, axis=1, kind="stable")  # NaN last
    valid = (~np.isnan(rows)).sum(axis=1) if rows.dtype.kind == "f" else rows.shape[1]
    k = np.maximum((np.asarray(valid) - 1) // 2, 0)
    k = np.broadcast_to(k, (rows.shape[0],))
    return np.take_along_axis(order, k[:, None], axis=1)[:, 0]


def nanmedian(input, dim=None, keepdim: bool = False):
    """The lower median of the values that are not NaN: ``nanmedian()`` a 0-d tensor;
    ``nanmedian(dim)`` ``(values, indices)``. A row of NaN only gives NaN."""
    x = as_tensor(input)
    if x.dtype == np.bool_:
        raise no_kernel("median", x.dtype)
    if dim is None:
        flat = x.reshape(-1)
        if flat.shape[0] == 0:
            return _const(np.asarray(np.nan, x.dtype))
        picked = _pick(flat, 0, False, _nanmedian_rows, Nanmedian).indices
        return R.TiedPick.apply(x, int(picked.item()))  # the gradient shared among ties
    return _pick(x, dim, keepdim, _nanmedian_rows, Nanmedian)


# ------------------------------------------------------------------------ quantiles
def _check_q(q, x: Tensor, name: str) -> tuple[np.ndarray, bool]:
    """``q`` as a 1-D float64 array, and whether it was a scalar."""
    if isinstance(q, Tensor):
        if q.dtype != x.dtype:
            raise RuntimeError(
                f"{name}() q tensor must be same dtype as the input tensor, got {q.dtype} "
                f"and {x.dtype}"
            )
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        scalar, qs = q.ndim == 0, q._data.astype(np.float64).reshape(-1)
    else:
        scalar, qs = True, np.asarray([float(q)])
    if np.any((qs < 0) | (qs > 1)) or np.any(np.isnan(qs)):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    return qs, scalar


def _quantile(input, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool, name: str):
    x = as_tensor(input)
    if x.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(
            f"{name}() input tensor must be either float or double dtype, got {x.dtype}"
        )
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest. Got {interpolation}"
        )
    qs, scalar_q = _check_q(q, x, name)
    if x.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if dim is None:
        rows, d = x.reshape(-1), 0
    else:
        d = _dim(dim, x.ndim)
        rows = x.reshape(1) if x.ndim == 0 else x.movedim(d, -1)
    # rows: (*R, n) sorted along the last dim, NaN last
    n = rows.shape[-1]
    rest = rows.shape[:-1]
    sorted_rows = rows.sort(-1, stable=True).values
    nan = np.isnan(rows._data)
    q_shape = (len(qs),) + (1,) * len(rest)
    if ignore_nan:  # the ranks among the values that are not NaN (all NaN: rank 0, a NaN)
        spacing = np.maximum((~nan).sum(axis=-1) - 1, 0) + np.zeros(rest)  # (*R)
    else:  # a row with a NaN: its last order statistic, a NaN, as PyTorch
        spacing = np.where(nan.any(axis=-1), 0, n - 1) + np.zeros(rest)
    rank = qs.reshape(q_shape) * spacing  # (Q, *R)
    if not ignore_nan:
        rank = np.where(nan.any(axis=-1), n - 1, rank)
    if interpolation == "nearest":
        rank = np.round(rank)  # ties to even
    lo = np.floor(rank).astype(np.int64)
    hi = np.ceil(rank).astype(np.int64)
    if interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi
    weight = {"midpoint": 0.5}.get(interpolation, None)
    weight = rank - lo if weight is None else np.full(rank.shape, weight)
    weight = _const(weight.astype(x.dtype))
    if interpolation == "linear" and isinstance(q, Tensor) and q.requires_grad:
        # the same weight, q * spacing - lo, as a function of q: d out / d q is
        # (v_hi - v_lo) * spacing, as in PyTorch (the other interpolations round q away)
        q_rows = q.reshape(q_shape) * _const(spacing.astype(x.dtype))
        weight = q_rows - _const(lo.astype(x.dtype))
    expanded = sorted_rows.unsqueeze(0).expand(len(qs), *rows.shape)
    v_lo = expanded.gather(-1, _const(lo[..., None])).squeeze(-1)
    v_hi = expanded.gather(-1, _const(hi[..., None])).squeeze(-1)
    out = v_lo + (v_hi - v_lo) * weight
    if keepdim:
        if dim is None:
            out = out.reshape((len(qs),) + (1,) * x.ndim)
        elif x.ndim:
            out = out.unsqueeze(d + 1)
    return out.squeeze(0) if scalar_q else out


def quantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
    """The ``q``-th quantiles of each row along ``dim`` (all elements by default).

    Args:
        q: a number in [0, 1], or a 0-d / 1-D tensor of them (of the input's dtype): a
            1-D ``q`` adds a first dim of ``len(q)`` to the result.
        interpolation: ``linear`` (default), ``lower``, ``higher``, ``midpoint`` or
            ``nearest``: how to combine the two order statistics around the rank
            ``q (n - 1)`` (see the module docstring).

    A row that holds a NaN gives NaN (``nanquantile`` leaves NaN out).

    Example::

        >>> mg.tensor([0.0, 1.0, 2.0, 10.0]).quantile(0.5)
        tensor(1.5000)
    """
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
    """``quantile`` of the values that are not NaN (a row of NaN only gives NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


# --------------------------------------------------------------------- covariance
def _floating(x: Tensor) -> Tensor:
    return x if x.dtype.kind == "f" else x.to(dtypes.default_float)


def cov(input, *, correction: int = 1, fweights=None, aweights=None) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in
    its columns):

    ``cov = sum_i w_i (x_i - mean_w)(x_i - mean_w)^T / (sum_i w_i - correction')``

    with ``w = fweights * aweights`` (1 when neither is given) and
    ``correction' = correction * sum(w * aweights) / sum(w)`` when ``aweights`` is given.

    Shape: ``(vars, obs) -> (vars, vars)``; ``(obs,) -> ()``.
    """
    x = as_tensor(input)
    if x.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{x.ndim} dimensions"
        )
    if x.dtype == np.bool_:
        raise DtypeError("cov(): bool dtype is not supported for input")
    x = _floating(x)
    vector = x.ndim < 2
    x = x.reshape(1, -1) if vector else x
    n_obs = x.shape[1]
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is None:
            continue
        weights = as_tensor(weights)
        if weights.ndim > 1 or weights.numel() != n_obs:
            raise RuntimeError(
                f"cov(): expected {name} to have one dimension and {n_obs} elements, got "
                f"shape {tuple(weights.shape)}"
            )
        if name == "fweights" and weights.dtype.kind not in "iu":
            raise RuntimeError("cov(): expected fweights to have integral dtype")
        if name == "aweights" and weights.dtype.kind != "f":
            raise RuntimeError("cov(): expected aweights to have floating point dtype")
        if np.any(weights._data < 0):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        weights = weights.reshape(-1).to(x.dtype)
        w = weights if w is None else w * weights
    if w is None:
        w_sum = float(n_obs)
        mean = x.mean(1, keepdim=True)
        fact = w_sum - correction
    else:
        w_sum = w.sum()
        mean = (x * w).sum(1, keepdim=True) / w_sum
        if aweights is None:
            fact = w_sum - correction
        else:
            fact = w_sum - correction * (w * as_tensor(aweights).to(x.dtype)).sum() / w_sum
    if isinstance(fact, Tensor):
        fact = fact.clamp(min=0)
    else:
        fact = max(fact, 0.0)
    centered = x - mean
    weighted = centered if w is None else centered * w
    out = (weighted @ centered.T) / fact
    return out.reshape(()) if vector or out.shape == (1, 1) else out


def corrcoef(input) -> Tensor:
    """Pearson's correlation coefficients of the variables in the rows of ``input``:
    ``cov[i, j] / sqrt(cov[i, i] cov[j, j])``, clamped to [-1, 1]."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.reshape(-1, 1)
    c = c / std.reshape(1, -1)
    return c.clamp(-1, 1)


METHODS = ["mode", "nanmedian", "quantile", "nanquantile", "cov", "corrcoef"]
FUNCTIONS = METHODS

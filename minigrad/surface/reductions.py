"""More reductions and scans, as PyTorch has them: ``prod``, ``cumprod``, ``cummax``,
``cummin``, ``logcumsumexp``, ``all``/``any`` along dims, ``count_nonzero``, ``median``,
``kthvalue``, ``nansum``, ``nanmean``, ``std_mean``, ``var_mean``, ``aminmax``.

Each is written with differentiable operations the library already has, so its
gradient comes from theirs and is exact at the awkward points:

- ``prod`` multiplies halves pairwise (log2(n) multiplications): a zero in the input
  gives the other factors' product as its gradient, with no division by zero.
- ``cumprod`` is a scan of multiplications by shifted copies (Hillis and Steele):
  ``y <- y * shift(y, k)`` for ``k = 1, 2, 4, ...``; exact at zeros too.
- ``cummax``, ``cummin``, ``median`` and ``kthvalue`` pick elements, so their values
  are a ``gather`` of the input at the returned indices and the gradient goes there.
- ``logcumsumexp`` is ``m + log(cumsum(exp(x - m)))`` with ``m`` the largest element
  along ``dim`` (a constant of the graph).

Each function is also a Tensor method (``x.prod(1)``); see ``METHODS``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from minigrad import dtypes
from minigrad.functions import reduction as R
from minigrad.functions import signatures
from minigrad.functions.errors import DtypeError, floating_only, no_kernel
from minigrad.ops import cat
from minigrad.printing import torch_dtype_name
from minigrad.tensor import Tensor, as_tensor

#: ``(values, indices)`` results, as PyTorch's named tuples.
Cummax = namedtuple("cummax", ["values", "indices"])
Cummin = namedtuple("cummin", ["values", "indices"])
Median = namedtuple("median", ["values", "indices"])
Kthvalue = namedtuple("kthvalue", ["values", "indices"])
Aminmax = namedtuple("aminmax", ["min", "max"])


def _dim(dim, ndim: int) -> int:
    (d,) = R.normalize_dims(dim, ndim)
    return d


def _int_sum_dtype(x: Tensor, dtype):
    """PyTorch's dtype of ``sum``/``prod`` of ``x``: integers and bools become int64."""
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    return dtypes.int64 if x.dtype.kind in "biu" else x.dtype


def _const(array) -> Tensor:
    return Tensor._make(np.asarray(array), False, None)


# ------------------------------------------------------------------------ products
def prod(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The product of the elements (over ``dim``, or all of them).

    Example::

        >>> mg.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(1)
        tensor([ 2., 12.])
    """
    x = as_tensor(input)
    x = x.to(_int_sum_dtype(x, dtype))
    if dim is None:
        x, d = x.reshape(-1), 0
    else:
        d = _dim(dim, x.ndim)
    if x.ndim == 0:
        return x.clone()
    n = x.shape[d]
    if n == 0:  # the empty product is 1, in x's graph (gradient: nothing to give)
        out = x.sum(d) * 0 + 1
    else:
        while x.shape[d] > 1:
            n = x.shape[d]
            half = n // 2
            paired = x.narrow(d, 0, half) * x.narrow(d, half, half)
            x = paired if n % 2 == 0 else cat([paired, x.narrow(d, n - 1, 1)], d)
        out = x.squeeze(d)
    if keepdim:
        out = out.unsqueeze(d) if dim is not None else out.reshape((1,) * as_tensor(input).ndim)
    return out


def cumprod(input, dim: int, *, dtype=None) -> Tensor:
    """y_i = x_0 x_1 ... x_i along ``dim``."""
    x = as_tensor(input)
    x = x.to(_int_sum_dtype(x, dtype))
    if x.dtype == np.bool_:  # cumprod(dtype=bool)
        raise no_kernel("cumprod", x.dtype)
    if x.ndim == 0:
        return x.clone()
    d = _dim(dim, x.ndim)
    n, k = x.shape[d], 1
    while k < n:
        ones = _const(np.ones(x.shape[:d] + (k,) + x.shape[d + 1 :], x.dtype))
        shifted = cat([ones, x.narrow(d, 0, n - k)], d)
        x = x * shifted
        k *= 2
    return x


def _cum_extreme(input, dim, accumulate, result):
    x = as_tensor(input)
    if x.ndim == 0:
        return result(x.clone(), _const(np.zeros((), np.int64)))
    d = _dim(dim, x.ndim)
    data = x._data
    running = accumulate(data, axis=d)
    shape = [1] * data.ndim
    shape[d] = data.shape[d]
    positions = np.arange(data.shape[d]).reshape(shape)
    # the latest position where the running extreme was reached (PyTorch's tie rule)
    reached = (data == running) | (np.isnan(data) if data.dtype.kind == "f" else False)
    idx = np.maximum.accumulate(np.where(reached, positions, 0), axis=d).astype(np.int64)
    return result(x.gather(d, _const(idx)), _const(idx))


def cummax(input, dim: int):
    """``(values, indices)``: the largest element so far along ``dim`` and where it is."""
    return _cum_extreme(input, dim, np.maximum.accumulate, Cummax)


def cummin(input, dim: int):
    """``(values, indices)``: the smallest element so far along ``dim`` and where it is."""
    return _cum_extreme(input, dim, np.minimum.accumulate, Cummin)


def logcumsumexp(input, dim: int) -> Tensor:
    """y_i = log(exp(x_0) + ... + exp(x_i)) along ``dim``, without overflow."""
    x = as_tensor(input)
    floating_only("logcumsumexp", x.dtype)
    if x.ndim == 0:
        return x.clone()
    d = _dim(dim, x.ndim)
    if x.shape[d] == 0:
        return x.clone()
    m = np.max(x._data, axis=d, keepdims=True)
    m = _const(np.where(np.isfinite(m), m, 0).astype(x.dtype))
    return (x - m).exp().cumsum(d).log() + m


# ---------------------------------------------------------------------- logic, counts
def all(input, dim=None, keepdim: bool = False) -> Tensor:
    """True where every element (over ``dim``) is non-zero (uint8 1 and 0 for a uint8
    input, as in PyTorch)."""
    x = as_tensor(input)
    dims = None if dim is None else R.reduce_dims(dim, x.ndim)
    return _truth(np.all(x._data, axis=dims, keepdims=keepdim), x)


def any(input, dim=None, keepdim: bool = False) -> Tensor:
    """True where some element (over ``dim``) is non-zero (uint8 for a uint8 input)."""
    x = as_tensor(input)
    dims = None if dim is None else R.reduce_dims(dim, x.ndim)
    return _truth(np.any(x._data, axis=dims, keepdims=keepdim), x)


def _truth(result: np.ndarray, x: Tensor) -> Tensor:
    """``all`` and ``any`` give bool, but uint8 for a uint8 input (PyTorch's rule)."""
    return _const(result.astype(np.uint8) if x.dtype == np.uint8 else result)


def count_nonzero(input, dim=None, *dims) -> Tensor:
    """The number of non-zero elements (over ``dim``: one, a sequence, or several given
    one by one), as int64."""
    x = as_tensor(input)
    dim = (dim, *dims) if dims else dim
    dims = None if dim is None else R.reduce_dims(dim, x.ndim)
    return _const(np.asarray(np.count_nonzero(x._data, axis=dims), dtype=np.int64))


# ------------------------------------------------------------------- order statistics
def _kth(x: Tensor, k: int, dim, keepdim: bool, result):
    """The ``k``-th smallest (0-based) along ``dim``: values and indices."""
    if x.ndim == 0:
        return result(x.clone(), _const(np.zeros((), np.int64)))
    d = _dim(dim, x.ndim)
    order = np.argsort(x._data, axis=d, kind="stable")
    idx = np.take(order, [k], axis=d).astype(np.int64)
    values = x.gather(d, _const(idx))
    if not keepdim:
        values, idx = values.squeeze(d), np.squeeze(idx, d)
    return result(values, _const(idx))


def _orderable(name: str, x: Tensor) -> Tensor:
    """PyTorch's median and kthvalue have no bool kernel."""
    if x.dtype == np.bool_:
        raise no_kernel(name, x.dtype)
    return x


def median(input, dim=None, keepdim: bool = False):
    """The lower median: ``median()`` a 0-d tensor; ``median(dim)`` ``(values, indices)``."""
    x = _orderable("median", as_tensor(input))
    if dim is None:
        flat = x.reshape(-1)
        if flat.shape[0] == 0:
            return _const(np.asarray(np.nan, x.dtype))
        picked = _kth(flat, (flat.shape[0] - 1) // 2, 0, False, Median).indices
        return R.TiedPick.apply(x, int(picked.item()))  # the gradient shared among ties
    n = x.shape[_dim(dim, x.ndim)] if x.ndim else 1
    return _kth(x, (n - 1) // 2, dim, keepdim, Median)


def kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    """The ``k``-th smallest element (1-based, as PyTorch) along ``dim``."""
    x = _orderable("kthvalue", as_tensor(input))
    n = x.shape[_dim(dim, x.ndim)] if x.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue: k ({k}) must be in [1, {n}], the size of dim {dim}")
    return _kth(x, k - 1, dim, keepdim, Kthvalue)


# ------------------------------------------------------------------------ NaN-aware
def nansum(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The sum, treating NaN as 0."""
    x = as_tensor(input)
    if x.dtype.kind == "f":
        x = x.masked_fill(x.isnan(), 0.0)
    return x.sum(dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The mean of the elements that are not NaN."""
    x = as_tensor(input)
    if dtype is not None:
        x = x.to(dtype)
    if x.dtype.kind != "f":
        raise DtypeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{torch_dtype_name(x.dtype)}"
        )
    count = (~x.isnan()).sum(dim, keepdim)
    return nansum(x, dim, keepdim) / count


# --------------------------------------------------------------------- several results
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim`` (the arguments of ``std``)."""
    x = as_tensor(input)
    dim, keepdim, correction = signatures.variance("std_mean", dim, unbiased, keepdim, correction)
    return x.std(dim, keepdim=keepdim, correction=correction), x.mean(dim, keepdim)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim`` (the arguments of ``var``)."""
    x = as_tensor(input)
    dim, keepdim, correction = signatures.variance("var_mean", dim, unbiased, keepdim, correction)
    return x.var(dim, keepdim=keepdim, correction=correction), x.mean(dim, keepdim)


def aminmax(input, *, dim=None, keepdim: bool = False):
    """``(min, max)`` over ``dim`` (all elements by default)."""
    x = as_tensor(input)
    return Aminmax(x.amin(dim, keepdim), x.amax(dim, keepdim))


#: The functions that are also Tensor methods (``x.prod()``).
METHODS = (
    "prod cumprod cummax cummin logcumsumexp all any count_nonzero median kthvalue "
    "nansum nanmean aminmax"
).split()
#: The functions ``mg.X``.
FUNCTIONS = METHODS + ["std_mean", "var_mean"]
#: In-place variants (``x.cumprod_(dim)``).
INPLACE = ["cumprod"]

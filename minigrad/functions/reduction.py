"""Reductions (sum, mean, var, amax, amin, logsumexp) and softmax / log_softmax.

A reduction over ``dims`` maps ``x`` of shape ``in_shape`` to ``y``. Its backward
first puts the reduced dims back as size-1 dims (``keep_shape``) and then broadcasts
the gradient over them: every input element that fed ``y[j]`` receives ``dy[j]``
times its local derivative.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.constant import constant
from minigrad.functions.errors import EmptyReductionError, ShapeError
from minigrad.functions.indexing import Where


def normalize_dims(dim, ndim: int, name: str = "dim") -> tuple:
    """``dim`` (None, an int or a sequence) as a sorted tuple of non-negative axes."""
    if dim is None:
        return tuple(range(ndim))
    if type(dim) is int and -ndim <= dim < ndim:  # the usual call: one dim, in range
        return (dim % ndim,)
    if isinstance(dim, (int, np.integer)):
        dims = (dim,)
    elif isinstance(dim, (tuple, list)):
        dims = tuple(dim)
    else:
        raise TypeError(f"{name}: expected an int or a tuple of ints, got {dim!r}")
    out = []
    lo, hi = -max(ndim, 1), max(ndim, 1) - 1
    for d in dims:
        if not isinstance(d, (int, np.integer)):
            raise TypeError(f"{name}: expected an int or a tuple of ints, got {dim!r}")
        if d < lo or d > hi:
            raise IndexError(
                f"{name} out of range (expected to be in range of [{lo}, {hi}], but got {d})"
            )
        out.append(int(d) % max(ndim, 1) if ndim else 0)
    if len(set(out)) != len(out):
        raise ShapeError(f"{name}: dimension listed twice in {dim!r}")
    return tuple(sorted(out))


def reduce_dims(dim, ndim: int) -> tuple:
    """The axes a reduction over ``dim`` runs over: ``normalize_dims``, except that a 0-d
    tensor (which PyTorch lets you reduce over dim 0 or -1) has none."""
    dims = normalize_dims(dim, ndim)
    return dims if ndim else ()


def keep_shape(in_shape: tuple, dims: tuple) -> tuple:
    """``in_shape`` with the reduced ``dims`` set to 1 (the ``keepdim=True`` shape)."""
    return tuple(1 if i in dims else s for i, s in enumerate(in_shape))


def _expand_back(g, ctx):
    """Reshape dy to keep_shape and broadcast it over the reduced dims."""
    return g.reshape(ctx.keep_shape).expand(ctx.in_shape)


#: Up to this many elements ``_expand_back_array`` writes the gradient out: cheaper than
#: NumPy's ``broadcast_to`` (2.6 us against 0.9 us at [32, 10]), and the products after
#: it get a contiguous array.
EXPAND_COPY_ELEMENTS = 1 << 16


def _expand_back_array(g: np.ndarray, ctx) -> np.ndarray:
    """``_expand_back`` for an array: a new array for small inputs, else a read-only
    broadcast view."""
    shape = ctx.in_shape
    if math.prod(shape) <= EXPAND_COPY_ELEMENTS:
        out = np.empty(shape, g.dtype)
        np.copyto(out, g.reshape(ctx.keep_shape))
        return out
    return np.broadcast_to(g.reshape(ctx.keep_shape), shape)


def accumulator(a: np.ndarray, dims: tuple) -> np.dtype | None:
    """The dtype to add ``a``'s elements in over ``dims``: float64 for a float16 / float32
    reduction that NumPy would add one row at a time, None (``a``'s own) otherwise.

    NumPy sums pairwise (error growing like log n) only along the innermost memory axis:
    over the last dims of a C-contiguous array. Over any other dim it adds each row into
    a running float32 total, whose error grows like n: a float32 mean over 182,625 rows
    was off by 8e-6 relative. PyTorch's float32 sums are accurate to a few 1e-7 on any
    dim, and adding in float64 and rounding once gets there too."""
    if a.dtype.kind != "f" or a.dtype.itemsize >= 8 or not dims:
        return None
    trailing = tuple(range(a.ndim - len(dims), a.ndim))
    if a.flags.c_contiguous and tuple(sorted(dims)) == trailing:
        return None
    return np.dtype(np.float64)


def sum_array(a: np.ndarray, dims, keepdims: bool = False) -> np.ndarray:
    """``a`` summed over ``dims`` in ``a``'s dtype, added up in ``accumulator``'s."""
    dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    wide = accumulator(a, dims)
    if wide is None:
        return np.add.reduce(a, axis=dims, keepdims=keepdims)
    return np.add.reduce(a, axis=dims, keepdims=keepdims, dtype=wide).astype(a.dtype)


class Sum(Function):
    """y = sum_i x_i, so dx_i = dy."""

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.in_shape = x._data.shape
        ctx.keep_shape = keep_shape(ctx.in_shape, dims)
        return sum_array(x._data, dims, keepdim)

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g, ctx), None, None

    @staticmethod
    def backward_array(ctx, g):
        return _expand_back_array(g, ctx), None, None


class Mean(Function):
    """y = (1/n) sum_i x_i, so dx_i = dy / n."""

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.in_shape = x._data.shape
        ctx.keep_shape = keep_shape(ctx.in_shape, dims)
        ctx.n = int(np.prod([x._data.shape[d] for d in dims]))
        a = x._data
        wide = accumulator(a, dims)
        if wide is None:
            return np.mean(a, axis=dims, keepdims=keepdim)
        return np.mean(a, axis=dims, keepdims=keepdim, dtype=wide).astype(a.dtype)

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g, ctx) / float(ctx.n), None, None

    @staticmethod
    def backward_array(ctx, g):
        return _expand_back_array(g / float(ctx.n), ctx), None, None


class Var(Function):
    """y = sum_i (x_i - mean)^2 / (n - correction), so dx_i = dy 2 (x_i - mean) / (n - c).

    (The mean's own dependence on x drops out: sum_i (x_i - mean) = 0.)
    """

    @staticmethod
    def forward(ctx, x, dims, keepdim, correction):
        ctx.save_for_backward(x)
        ctx.in_shape = x._data.shape
        ctx.keep_shape = keep_shape(ctx.in_shape, dims)
        ctx.dims, ctx.correction = dims, correction
        n = int(np.prod([x._data.shape[d] for d in dims]))
        ctx.n = n
        if n - correction <= 0:
            shape = (
                ctx.keep_shape
                if keepdim
                else tuple(s for i, s in enumerate(ctx.in_shape) if i not in dims)
            )
            return np.full(shape, np.nan, dtype=x._data.dtype)
        a = x._data
        wide = accumulator(a, dims)
        out = np.var(a, axis=dims, ddof=correction, keepdims=keepdim, dtype=wide)
        return out.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        centered = x - x.mean(ctx.dims, keepdim=True)
        return _expand_back(g, ctx) * centered * _var_scale(ctx), None, None, None

    @staticmethod
    def backward_array(ctx, g):
        (x,) = ctx.saved_arrays
        centered = x - x.mean(ctx.dims, keepdims=True)
        return _expand_back_array(g, ctx) * centered * _var_scale(ctx), None, None, None


def _var_scale(ctx) -> float:
    return 2.0 / (ctx.n - ctx.correction) if ctx.n > ctx.correction else float("nan")


class Std(Function):
    """y = sqrt(var(x)), so dx_i = dy (x_i - mean) / ((n - correction) y).

    Where y = 0 (all elements equal) every x_i - mean is 0 and so is the gradient, as
    in PyTorch (the formula alone would give 0 / 0).
    """

    @staticmethod
    def forward(ctx, x, dims, keepdim, correction):
        y = np.sqrt(Var.forward(ctx, x, dims, keepdim, correction))  # saves x, sets ctx.n
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        centered = x - x.mean(ctx.dims, keepdim=True)
        y = y.reshape(ctx.keep_shape)
        safe_y = Where.apply(y._data == 0, 1.0, y)
        dx = _expand_back(g, ctx) * centered / (safe_y * float(ctx.n - ctx.correction))
        return dx, None, None, None

    @staticmethod
    def backward_array(ctx, g):
        x, y = ctx.saved_arrays
        centered = x - x.mean(ctx.dims, keepdims=True)
        y = y.reshape(ctx.keep_shape)
        safe_y = np.where(y == 0, 1.0, y).astype(y.dtype, copy=False)
        dx = _expand_back_array(g, ctx) * centered / (safe_y * float(ctx.n - ctx.correction))
        return dx, None, None, None


class _Extremum(Function):
    """amax / amin: the gradient goes to the extreme elements, split evenly at ties."""

    reduce = None

    @classmethod
    def forward(cls, ctx, x, dims, keepdim):
        ctx.save_for_backward(x)
        ctx.in_shape = x._data.shape
        ctx.keep_shape = keep_shape(ctx.in_shape, dims)
        ctx.dims = dims
        shape = x._data.shape
        if any(shape[d] == 0 for d in dims) or (x._data.size == 0 and not dims):
            raise EmptyReductionError(
                f"{cls.__name__.lower()}(): Expected reduction dim to have non-zero size "
                f"(a tensor of shape {list(shape)} reduced over dims {list(dims)}; max and "
                "min have no value over an empty dim)"
            )
        y = cls.reduce(x._data, axis=dims, keepdims=True)
        ctx.y_keep = y
        return y if keepdim else y.reshape([s for i, s in enumerate(y.shape) if i not in dims])

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_arrays
        return _expand_back(g, ctx) * constant(_extreme_share(ctx, x)), None, None

    @staticmethod
    def backward_array(ctx, g):
        (x,) = ctx.saved_arrays
        return _expand_back_array(g, ctx) * _extreme_share(ctx, x), None, None


def _extreme_share(ctx, x: np.ndarray) -> np.ndarray:
    """1 / (number of ties) at the extreme elements, 0 elsewhere."""
    hit = x == ctx.y_keep
    share = hit / np.sum(hit, axis=ctx.dims, keepdims=True)
    return share.astype(x.dtype)


class Amax(_Extremum):
    reduce = staticmethod(np.max)


class Amin(_Extremum):
    reduce = staticmethod(np.min)


class TiedPick(Function):
    """y = x.flatten()[index]: an element picked by its value (the median). Its gradient
    is split evenly among the elements equal to it, PyTorch's rule for ``median()`` and
    ``nanmedian()`` over all elements (as for ``amax``); a NaN pick gets all of it."""

    @staticmethod
    def forward(ctx, x, index):
        value = x._data.reshape(-1)[index]
        hit = (x._data == value).astype(x._data.dtype)
        if not hit.any():  # a NaN equals nothing
            hit.reshape(-1)[index] = 1
        ctx.share = hit / hit.sum()
        return np.asarray(value)

    @staticmethod
    def backward(ctx, g):
        return g * constant(ctx.share), None


class LogSumExp(Function):
    """y = log sum_i exp(x_i), computed as m + log sum_i exp(x_i - m) with m = max x.

    dx_i = dy exp(x_i - y) (the softmax of x).
    """

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.in_shape = x._data.shape
        ctx.keep_shape = keep_shape(ctx.in_shape, dims)
        y = _logsumexp_keep(x._data, dims)
        if not keepdim:
            y = y.reshape([s for i, s in enumerate(y.shape) if i not in dims])
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        softmax = (x - y.reshape(ctx.keep_shape)).exp()
        return _expand_back(g, ctx) * softmax, None, None

    @staticmethod
    def backward_array(ctx, g):
        x, y = ctx.saved_arrays
        softmax = np.exp(x - y.reshape(ctx.keep_shape))
        return _expand_back_array(g, ctx) * softmax, None, None


def _max_keep(x: np.ndarray, dims) -> np.ndarray:
    """The max over ``dims`` (kept as size-1 dims); -inf over no elements (a dim of size
    0), where ``np.max`` would raise, so the shift below works on empty tensors too."""
    return np.max(x, axis=dims, keepdims=True, initial=-np.inf)


def _logsumexp_keep(x: np.ndarray, dims) -> np.ndarray:
    m = _max_keep(x, dims)
    m = np.where(np.isfinite(m), m, 0.0).astype(x.dtype, copy=False)
    return np.log(sum_array(np.exp(x - m), dims, keepdims=True)) + m


class Softmax(Function):
    """y_i = exp(x_i - m) / sum_j exp(x_j - m), m = max_j x_j (stable for any x).

    dx_i = y_i (dy_i - sum_j dy_j y_j).
    """

    @staticmethod
    def forward(ctx, x, dim):
        e = np.exp(x._data - _max_keep(x._data, dim))
        y = e / sum_array(e, dim, keepdims=True)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return y * (g - (g * y).sum(ctx.dim, keepdim=True)), None

    @staticmethod
    def backward_array(ctx, g):
        (y,) = ctx.saved_arrays
        return y * (g - (g * y).sum(ctx.dim, keepdims=True)), None


class LogSoftmax(Function):
    """y_i = x_i - logsumexp(x); dx_i = dy_i - softmax(x)_i sum_j dy_j."""

    @staticmethod
    def forward(ctx, x, dim):
        y = x._data - _logsumexp_keep(x._data, dim)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g - y.exp() * g.sum(ctx.dim, keepdim=True), None

    @staticmethod
    def backward_array(ctx, g):
        (y,) = ctx.saved_arrays
        return g - np.exp(y) * g.sum(ctx.dim, keepdims=True), None

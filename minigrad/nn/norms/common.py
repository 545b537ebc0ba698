"""What the four norms share: the statistics (written once, for arrays and Tensors alike),
the chain rule back through them, the argument checks, and the choice of implementation.

Every norm standardizes ``x`` over some axes, then applies an affine map::

    mean = (1/n) sum x                 xmu  = x - mean
    var  = (1/n) sum xmu^2             rstd = 1 / sqrt(var + eps)
    xhat = xmu * rstd                  y    = xhat * weight + bias

``standardize`` and ``standardize_backward`` use only operations that NumPy arrays and
minigrad Tensors both have, so the same lines serve the reference implementation (on
arrays), the composite one (on Tensors: autograd records every step) and the backward
of a backward (``create_graph=True``). The implementation is chosen per call
(``impl=``) or for a block (``norm_impl``: process-wide, the innermost one wins).
"""

from __future__ import annotations

import contextlib
import math
import types
from collections.abc import Sequence

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.errors import DtypeError, ShapeError
from minigrad.printing import shape_str
from minigrad.tensor import Tensor, as_tensor

__all__ = [
    "IMPLEMENTATIONS",
    "NormFunction",
    "current_impl",
    "norm_impl",
    "standardize",
    "standardize_backward",
]

# ------------------------------------------------------------------- shared statistics


def sum_over(a, axes: tuple):
    """Sum over ``axes``, keeping them as size-1 dims (an array or a Tensor)."""
    if isinstance(a, np.ndarray):
        return a.sum(axis=axes, keepdims=True)
    return a.sum(axes, keepdim=True)


def sum_out(a, axes: tuple):
    """Sum over ``axes``, dropping them (``a`` itself when there are none)."""
    return a.sum(axes) if axes else a


def count(shape: tuple, axes: tuple) -> int:
    """How many numbers a sum over ``axes`` adds up."""
    return math.prod(shape[a] for a in axes)


def mean_over(a, axes: tuple):
    """Mean over ``axes``, keeping them as size-1 dims (an array or a Tensor)."""
    if isinstance(a, np.ndarray):
        return a.mean(axis=axes, keepdims=True)
    return a.mean(axes, keepdim=True)


def rsqrt(a):
    """``1 / sqrt(a)`` (an array or a Tensor)."""
    return 1.0 / np.sqrt(a) if isinstance(a, np.ndarray) else a.rsqrt()


def wide(a):
    """``a`` (an array or a Tensor) in float64 when it is float32: the statistics are
    computed there, so that squares of float32 values do not overflow (|x| near 1e20 and
    above: a float32 row near 1e30 is normalized, not turned into NaN or zeros) and the
    chain of the backward does not underflow (``rstd^3`` of such a row is 1e-90)."""
    if a is None or a.dtype != _FLOAT:
        return a
    return a.astype(np.float64) if isinstance(a, np.ndarray) else a.double()


def narrow(a, dtype):
    """``a`` back in the input's dtype (after ``wide``)."""
    if a is None or a.dtype == dtype:
        return a
    return a.astype(dtype) if isinstance(a, np.ndarray) else a.to(dtype)


def standardize(x, axes: tuple, eps: float):
    """``(mean, xmu, var, rstd)`` of ``x`` over ``axes`` (kept as size-1 dims): two passes,
    the mean first, then the biased variance of the deviations from it; computed in
    float64 for a float32 ``x`` (``wide``) and returned in x's dtype (``var`` may then be
    inf, ``rstd`` is finite for any finite float32 row). A float64 row whose variance
    itself overflows (near 1e300) gets NaN, as in PyTorch, never rstd = 0 and plausible
    zeros."""
    dtype = x.dtype
    xw = wide(x)
    mean = mean_over(xw, axes)
    xmu = xw - mean
    var = mean_over(xmu * xmu, axes)
    rstd = rsqrt(var + eps)
    if np.isinf(var if isinstance(var, np.ndarray) else var._data).any():
        rstd = rstd * (var * 0.0 + 1.0)  # NaN where var overflowed (inf * 0), else 1
    return narrow(mean, dtype), narrow(xmu, dtype), narrow(var, dtype), narrow(rstd, dtype)


def standardize_backward(g_xhat, xmu, rstd, axes: tuple):
    """dL/dx for ``xhat = (x - mean) * rstd`` over ``axes``, given ``g_xhat = dL/dxhat``.

    The chain, from the last forward step back to the first::

        xhat = xmu * rstd        g_rstd = sum(g_xhat * xmu)          (rstd is shared)
        rstd = (var + eps)^-1/2  g_var  = g_rstd * (-1/2) * rstd^3
        var  = mean(xmu^2)       g_xmu  = g_xhat * rstd + g_var * 2 xmu / n
        xmu  = x - mean          g_mean = -sum(g_xmu)
        mean = mean(x)           g_x    = g_xmu + g_mean / n
    """
    dtype = xmu.dtype
    g_xhat, xmu, rstd = wide(g_xhat), wide(xmu), wide(rstd)  # float32: in float64
    n = count(xmu.shape, axes)
    g_rstd = sum_over(g_xhat * xmu, axes)
    g_var = g_rstd * rstd * rstd * rstd * (-0.5)  # rstd^3 alone underflows for large x
    g_xmu = g_xhat * rstd + g_var * (2.0 / n) * xmu
    g_mean = -sum_over(g_xmu, axes)
    return narrow(g_xmu + g_mean * (1.0 / n), dtype)


def affine(xhat, weight, bias, shape=None):
    """``xhat * weight + bias`` (either may be None), the parameters reshaped to ``shape``."""
    y = xhat
    if weight is not None:
        y = y * (weight if shape is None else weight.reshape(shape))
    if bias is not None:
        y = y + (bias if shape is None else bias.reshape(shape))
    return y


def data(t):
    """A Tensor's array (None stays None)."""
    return None if t is None else t._data


def keep_needed(ctx, *grads) -> tuple:
    """The gradients in ``forward``'s argument order (None for the arguments after
    them), None where none was asked for."""
    needs = ctx.needs_input_grad
    grads = grads + (None,) * (len(needs) - len(grads))
    return tuple([g if need else None for g, need in zip(grads, needs)])


class NormFunction(Function):
    """The autograd Function pattern of every norm.

    A norm's Function gives ``kernels()`` (the wrappers of its Numba kernels in
    ``minigrad/kernels/``, imported on first use), its reference ``reference_forward`` /
    ``reference_backward`` on arrays, and ``statistics``.
    ``forward(ctx, x, weight, bias, option, eps, fused)`` runs
    ``ctx.implementation(fused)`` and saves ``(x, weight, mean, rstd)``, ``ctx.option``
    (the norm's one setting: normalized_ndim, num_groups or training), ``ctx.eps`` and
    ``ctx.fused``. The two backwards are shared: ``backward_array`` runs the same
    implementation on arrays (the engine's path), ``backward`` the reference lines on
    Tensors, so that it can itself be differentiated (``create_graph=True``).
    """

    has_bias = True  # RMSNorm's forward takes no bias
    per_channel = False  # weight and bias [C] of an [N, C, *] input (batch, group)
    reference_forward = reference_backward = None

    def implementation(self, fused: bool) -> tuple:
        """``(forward, backward)`` on arrays: the reference lines, or the wrappers of the
        fused kernels (the same signatures)."""
        return self.kernels() if fused else (self.reference_forward, self.reference_backward)

    @classmethod
    def composite(cls, x, weight, bias, option, eps):
        """The reference forward on Tensors: autograd records (and differentiates) it."""
        params = (weight, bias) if cls.has_bias else (weight,)
        return cls.reference_forward(x, *params, option, eps)[0]

    def statistics(self, x: Tensor, mean, rstd) -> tuple:
        """``(mean, rstd)`` as Tensors that depend on ``x`` (recomputed from it by the
        reference forward)."""
        params = (None, None) if self.has_bias else (None,)
        return self.reference_forward(x, *params, self.option, self.eps)[1:3]

    @staticmethod
    def forward(ctx, x, weight, bias, option, eps, fused):
        params = (data(weight), data(bias)) if ctx.has_bias else (data(weight),)
        y, mean, rstd = ctx.implementation(fused)[0](x._data, *params, option, eps)
        ctx.save_for_backward(x, weight, mean, rstd)
        ctx.option, ctx.eps, ctx.fused = option, eps, fused
        return y

    @staticmethod
    def backward_array(ctx, dy):
        x, weight, mean, rstd = ctx.saved_arrays
        backward = ctx.implementation(ctx.fused)[1]
        grads = backward(dy, x, weight, mean, rstd, ctx.option, ctx.needs_input_grad[0])
        return keep_needed(ctx, *grads)

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        mean, rstd = ctx.statistics(x, mean, rstd)
        need_dx = ctx.needs_input_grad[0]
        grads = ctx.reference_backward(dy, x, weight, mean, rstd, ctx.option, need_dx)
        return keep_needed(ctx, *grads)


def normalize(function, x: Tensor, weight, bias, option, eps: float, impl, *extra) -> Tensor:
    """``function`` (a ``NormFunction``) of the checked ``x`` by the implementation
    ``impl`` names (``extra``: BatchNorm's running statistics and momentum). A float16
    input is computed in float32 and rounded once at the end (PyTorch's rule for its CPU
    norms: statistics of float16 numbers summed in float16 go wrong by whole units at
    values of a few hundred). An empty input gives the affine map of itself: nothing to
    normalize, the parameters' gradients are zeros."""
    half = x._data.dtype == _HALF
    if half:
        x, weight, bias = (None if t is None else t.float() for t in (x, weight, bias))
    impl = resolve_impl(impl)
    if x._data.size == 0:
        y = affine(x, weight, bias, channel_shape(x) if function.per_channel else None)
    elif impl == "composite":
        y = function.composite(x, weight, bias, option, float(eps), *extra)
    else:
        y = function.apply(x, weight, bias, option, float(eps), impl == "fused", *extra)
    return y.to(_HALF) if half else y


def channel_shape(x) -> tuple:
    """``[1, C, 1, ...]``: a per-channel vector broadcast against ``[N, C, *]``."""
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


# ------------------------------------------------------------- choosing the implementation
IMPLEMENTATIONS = ("fused", "reference", "composite")


_state = types.SimpleNamespace(impl="fused")  # the current choice (process-wide)


def _check_impl(name) -> str:
    if name not in IMPLEMENTATIONS:
        raise ValueError(
            f"norm implementation must be one of {', '.join(map(repr, IMPLEMENTATIONS))}, "
            f"got {name!r}"
        )
    return name


def current_impl() -> str:
    """The implementation norms use when the call does not name one."""
    return _state.impl


def resolve_impl(impl: str | None) -> str:
    """``impl`` if given (checked), else the current choice."""
    return _state.impl if impl is None else _check_impl(impl)


class norm_impl(contextlib.ContextDecorator):
    """Choose the implementation of every norm inside a ``with`` block (or a decorated
    function): ``"fused"`` (Numba kernels, the default), ``"reference"`` (NumPy forward
    and closed-form backward) or ``"composite"`` (minigrad primitives, autograd derives
    the backward).

    Example::

        >>> with nn.norm_impl("reference"):
        ...     y = nn.LayerNorm(4)(mg.randn(2, 4))
    """

    def __init__(self, impl: str):
        self.impl = _check_impl(impl)
        self._previous = []

    def __enter__(self):
        self._previous.append(_state.impl)
        _state.impl = self.impl
        return self

    def __exit__(self, *exc):
        _state.impl = self._previous.pop()
        return False


# ---------------------------------------------------------------------- argument checks
_HALF = np.dtype(np.float16)
_FLOAT = np.dtype(np.float32)


def check_input(name: str, x) -> Tensor:
    """``x`` as a floating-point Tensor."""
    if type(x) is not Tensor:
        x = as_tensor(x)
    if x._data.dtype.kind != "f":
        raise DtypeError(f"{name}: expected a floating-point input, got dtype {x.dtype}")
    return x


def check_param(name: str, arg: str, p, x: Tensor, shape: tuple):
    """An optional weight / bias / running statistic: a Tensor of ``shape``; a weight or
    bias has the input's dtype (or float32 for a float16 input, as PyTorch allows)."""
    if p is None:
        return None
    if not isinstance(p, Tensor):
        p = as_tensor(p)
    if p.shape != shape:
        raise ShapeError(
            f"{name}: {arg} has shape {shape_str(p.shape)} but expected {shape_str(shape)} "
            f"for an input of shape {shape_str(x.shape)}"
        )
    dt = p._data.dtype
    if arg in ("weight", "bias") and dt != x._data.dtype and (dt, x.dtype) != (_FLOAT, _HALF):
        raise TypeError(
            f"{name}: {arg} has dtype {p.dtype} but the input has dtype {x.dtype}; convert "
            "one of them (for a module: .to(dtype), .float() or .double())"
        )
    return p


def normalized_shape_tuple(name: str, normalized_shape) -> tuple:
    """``normalized_shape`` (an int or a sequence of ints) as a tuple of ints."""
    if type(normalized_shape) is tuple and normalized_shape:
        if all(type(s) is int and s > 0 for s in normalized_shape):
            return normalized_shape  # the common case, checked without the general path
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (normalized_shape,)
    if not isinstance(normalized_shape, Sequence) or not all(
        isinstance(s, (int, np.integer)) and s > 0 for s in normalized_shape
    ):
        raise TypeError(
            f"{name}: normalized_shape must be a positive int or a sequence of positive ints, "
            f"got {normalized_shape!r}"
        )
    if len(normalized_shape) == 0:
        raise ShapeError(
            f"{name}: Expected normalized_shape to be at least 1-dimensional, i.e., containing "
            "at least one element, but got normalized_shape = []"
        )
    return tuple(int(s) for s in normalized_shape)


def check_trailing(name: str, x: Tensor, normalized_shape) -> tuple:
    """``normalized_shape`` as a tuple, checked to be the input's trailing dims."""
    shape = normalized_shape_tuple(name, normalized_shape)
    if x.ndim < len(shape) or x.shape[x.ndim - len(shape) :] != shape:
        raise ShapeError(
            f"{name}: normalized_shape={shape_str(shape)} does not match the input: expected "
            f"an input of shape [*, {', '.join(map(str, shape))}], got {shape_str(x.shape)}"
        )
    return shape


def check_channels_first(name: str, x: Tensor) -> None:
    """The input is ``[N, C, *]``."""
    if x.ndim < 2:
        raise ShapeError(
            f"{name}: expected an input of shape [N, C, *] (at least 2 dims), got "
            f"{shape_str(x.shape)}"
        )

"""Activation functions: ``relu``, ``gelu``, ``silu``, ``tanh``, ``sigmoid``,
``softmax``, ``log_softmax`` (and ``erf``, which exact GELU is built on).

``gelu`` and ``silu`` are fused ``Function``s: one Numba pass
(``minigrad/kernels/activation.py``) writes the output and, when a gradient will be
needed, the derivative ``dy/dx`` beside it, so the backward pass is a single product
``dx = dy * dy/dx`` (a Numba loop too, so that it runs on the kernels' threads). When
the backward itself is being recorded (``create_graph=True``) the derivative is rebuilt
from ``x`` with differentiable Tensor operations instead, so second derivatives are
exact.

Recomputing dy/dx from ``x`` in the backward pass instead of storing it (one array
less written and read) measured no faster: the kernels are bound by arithmetic about
as much as by memory, and the derivative costs little next to the output.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.errors import DtypeError, ShapeError
from minigrad.functions.reduction import Softmax
from minigrad.tensor import Tensor, as_tensor

__all__ = [
    "relu",
    "gelu",
    "silu",
    "tanh",
    "sigmoid",
    "softmax",
    "log_softmax",
    "erf",
    "leaky_relu",
]


def _check_float(name: str, x: Tensor) -> Tensor:
    if not isinstance(x, Tensor):
        x = as_tensor(x)
    if x._data.dtype.kind != "f":
        raise DtypeError(f"{name}: expected a floating-point input, got dtype {x._data.dtype}")
    return x


#: Products smaller than this are left to NumPy (one thread is enough for them).
_MUL_IN_KERNEL_FROM = 1 << 16


def _pointwise(kernel_name: str, x: np.ndarray, *, with_derivative: bool):
    """Run a kernel of ``minigrad.kernels.activation`` over ``x`` (any shape).

    Returns ``y`` or ``(y, dy/dx)``, shaped and typed like ``x``. float64 goes to the
    libm kernels (``gelu64``), float32 to the vectorised ones (``gelu32``); other float
    dtypes (float16) go through float32.
    """
    from minigrad.kernels import activation as K  # lazy: importing numba costs ~0.5 s

    dtype = x.dtype
    bits = 64 if dtype == np.float64 else 32
    flat = np.ascontiguousarray(x, dtype=np.float64 if bits == 64 else np.float32).reshape(-1)
    out = np.empty_like(flat)
    dydx = np.empty_like(flat) if with_derivative else flat[:0]
    getattr(K, f"{kernel_name}{bits}").for_size(flat.size)(flat, out, dydx)
    y = out.reshape(x.shape).astype(dtype, copy=False)
    if not with_derivative:
        return y
    return y, dydx.reshape(x.shape).astype(dtype, copy=False)


def _times_derivative(g: np.ndarray, dydx: np.ndarray) -> np.ndarray:
    """``g * dydx``, the array backward of a fused activation: on the kernels' threads
    when both are large C-contiguous float32/64 arrays of one shape and dtype (a product
    is memory-bound, and NumPy's runs on one thread), otherwise by NumPy."""
    if (
        g.size < _MUL_IN_KERNEL_FROM
        or g.shape != dydx.shape
        or g.dtype != dydx.dtype
        or g.dtype not in (np.float32, np.float64)
        or not (g.flags.c_contiguous and dydx.flags.c_contiguous)
    ):
        return g * dydx
    from minigrad.kernels import activation as K

    out = np.empty_like(dydx)
    K.mul.for_size(g.size)(g.reshape(-1), dydx.reshape(-1), out.reshape(-1))
    return out


# ---------------------------------------------------------------------------- erf
class Erf(Function):
    """erf(x) = 2/sqrt(pi) int_0^x exp(-t^2) dt;  d erf(x)/dx = 2/sqrt(pi) exp(-x^2)."""

    @staticmethod
    def forward(ctx, x):
        from minigrad.kernels import activation as K

        ctx.save_for_backward(x)
        flat = np.ascontiguousarray(x._data, dtype=np.float64).reshape(-1)
        out = np.empty_like(flat)
        K.erf.for_size(flat.size)(flat, out)
        return out.reshape(x._data.shape).astype(x._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ((x * x * -1.0).exp() * (2.0 / math.sqrt(math.pi)))


def erf(input: Tensor) -> Tensor:
    """The error function, elementwise (differentiable any number of times)."""
    return Erf.apply(_check_float("erf", input))


# ---------------------------------------------------------------------------- GELU
def _gelu_derivative(x: Tensor, approximate: str) -> Tensor:
    """dy/dx of GELU as differentiable Tensor operations (for create_graph)."""
    if approximate == "none":
        cdf = (Erf.apply(x * (1.0 / math.sqrt(2.0))) + 1.0) * 0.5  # Phi(x)
        pdf = (x * x * -0.5).exp() * (1.0 / math.sqrt(2.0 * math.pi))  # phi(x)
        return cdf + x * pdf
    k = math.sqrt(2.0 / math.pi)
    t = ((x + x * x * x * 0.044715) * k).tanh()
    du = (x * x * (3.0 * 0.044715) + 1.0) * k
    return (t + 1.0) * 0.5 + x * (1.0 - t * t) * du * 0.5


class Gelu(Function):
    """y = x Phi(x) (``approximate='none'``) or its tanh approximation; see the module
    docstring of ``minigrad.kernels.activation`` for the formulas."""

    @staticmethod
    def forward(ctx, x, approximate):
        kernel = "gelu" if approximate == "none" else "gelu_tanh"
        ctx.approximate = approximate
        if not x.requires_grad:
            return _pointwise(kernel, x._data, with_derivative=False)
        y, dydx = _pointwise(kernel, x._data, with_derivative=True)
        ctx.save_for_backward(x, dydx)
        return y

    @staticmethod
    def backward_array(ctx, g):
        _, dydx = ctx.saved_arrays  # the derivative written beside the output
        return _times_derivative(g, dydx), None

    @staticmethod
    def backward(ctx, g):
        x, _ = ctx.saved_tensors  # create_graph: the derivative rebuilt from x
        return g * _gelu_derivative(x, ctx.approximate), None


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian Error Linear Unit: ``x * Phi(x)``, Phi the standard normal CDF.

    Args:
        input: any shape, floating point.
        approximate: ``'none'`` (exact, with erf) or ``'tanh'``
            (``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``).

    Example::

        >>> F.gelu(mg.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.1587,  0.    ,  0.8413])
    """
    if approximate not in ("none", "tanh"):
        raise ShapeError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return Gelu.apply(_check_float("gelu", input), approximate)


# ---------------------------------------------------------------------------- SiLU
class Silu(Function):
    """y = x sigmoid(x);  dy/dx = s (1 + x (1 - s)) with s = sigmoid(x)."""

    @staticmethod
    def forward(ctx, x):
        if not x.requires_grad:
            return _pointwise("silu", x._data, with_derivative=False)
        y, dydx = _pointwise("silu", x._data, with_derivative=True)
        ctx.save_for_backward(x, dydx)
        return y

    @staticmethod
    def backward_array(ctx, g):
        _, dydx = ctx.saved_arrays  # the derivative written beside the output
        return _times_derivative(g, dydx)

    @staticmethod
    def backward(ctx, g):
        x, _ = ctx.saved_tensors  # create_graph: the derivative rebuilt from x
        s = x.sigmoid()
        return g * (s * (x * (1.0 - s) + 1.0))


def silu(input: Tensor) -> Tensor:
    """Sigmoid Linear Unit (swish): ``x * sigmoid(x)``."""
    return Silu.apply(_check_float("silu", input))


# ---------------------------------------------------------------------------- the rest
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)``; the gradient at 0 is 0, as in PyTorch. (``inplace`` is accepted
    for PyTorch compatibility and ignored: minigrad never overwrites an input.)"""
    return as_tensor(input).relu()


def leaky_relu(
    input: Tensor,
    negative_slope: float = 0.01,
    inplace: bool = False,
) -> Tensor:
    """``x`` for x > 0, ``negative_slope * x`` otherwise."""
    x = _check_float("leaky_relu", input)
    from minigrad.functions.indexing import Where

    return Where.apply(x._data > 0, x, x * negative_slope)


def tanh(input: Tensor) -> Tensor:
    return as_tensor(input).tanh()


def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-x))``, computed without overflow for any x."""
    return as_tensor(input).sigmoid()


def _dim_arg(name: str, dim, dtype, x: Tensor) -> Tensor:
    if dim is None:
        raise TypeError(f"{name}: the dimension to normalise over must be given (dim=...)")
    return x if dtype is None else x.to(dtype)


class RowSoftmax(Softmax):
    """``Tensor.softmax`` over the last dim, its forward and array backward as one Numba
    pass per row: attention's row kernels (``minigrad/kernels/attention.py``) with no
    mask, scale 1, and NaN for a row of all ``-inf``, as the composite gives. NumPy
    makes six passes over the scores; the kernel reads a row once. The formulas, and the
    recorded backward (``create_graph``), are ``Softmax``'s.
    """

    @staticmethod
    def forward(ctx, x, dim):
        from minigrad.kernels import attention  # lazy: numba

        y = np.array(x._data, order="C")  # the kernel writes the weights over its input
        empty = np.empty((0, 0, 0, 0), dtype=y.dtype)
        attention.softmax_forward(_blocks(y), empty, empty, 1.0, False, empty, math.nan)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward_array(ctx, g):
        from minigrad.kernels import attention

        (y,) = ctx.saved_arrays
        dx = np.array(g, dtype=y.dtype, order="C")  # written over: g may be shared
        empty = np.empty((0, 0, 0, 0), dtype=y.dtype)
        attention.softmax_backward(_blocks(y), empty, _blocks(dx), 1.0, False)
        return dx, None


def _blocks(a: np.ndarray) -> np.ndarray:
    """A C-contiguous ``a`` as the kernels' [1, 1, rows, length] blocks (a view)."""
    return a.reshape(1, 1, -1, a.shape[-1])


def softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    """``exp(x_i) / sum_j exp(x_j)`` along ``dim`` (stable: the max is subtracted first).

    ``dtype``, if given, casts the input before the operation (as in PyTorch). Over the
    last dim of a float32 or float64 tensor it runs as one fused pass per row
    (``RowSoftmax``); otherwise as ``Tensor.softmax``. Both give the same numbers (to
    rounding) and the same gradients.
    """
    x = _dim_arg("softmax", dim, dtype, as_tensor(input))
    fused = (
        x._data.dtype in (np.float32, np.float64)
        and x._data.ndim >= 1
        and x._data.size > 0
        and isinstance(dim, (int, np.integer))
        and dim in (-1, x._data.ndim - 1)
    )
    return RowSoftmax.apply(x, -1) if fused else x.softmax(dim)


def log_softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    """``x_i - logsumexp(x)`` along ``dim``."""
    x = _dim_arg("log_softmax", dim, dtype, as_tensor(input))
    return x.log_softmax(dim)

"""Binary arithmetic, matmul and dtype casts.

Each operation comes in a tensor-tensor form (``Mul``) and, where a Python number is
involved, a tensor-scalar form (``MulScalar``): the scalar stays a Python number, so
NumPy keeps the tensor's dtype (float32 * 2.0 stays float32), and nothing is allocated
for it. Gradients of broadcast operands go through ``unbroadcast``.
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.autograd.function import Function
from minigrad.functions.broadcast import broadcast_op, unbroadcast
from minigrad.functions.errors import DtypeMismatchError, ShapeError, no_kernel
from minigrad.functions.indexing import Where
from minigrad.printing import shape_str, torch_dtype_name


class _SameFormula(Function):
    """A Function whose derivative is one formula, ``grads(ctx, g, *saved)``, written
    with operators that Tensors and arrays share: ``backward`` runs it on the saved
    Tensors (differentiable, for create_graph), ``backward_array`` on their arrays (see
    minigrad/autograd/function.py)."""

    @staticmethod
    def grads(ctx, g, *saved):
        raise NotImplementedError

    @classmethod
    def backward(cls, ctx, g):
        return cls.grads(ctx, g, *ctx.saved_tensors)

    @classmethod
    def backward_array(cls, ctx, g):
        return cls.grads(ctx, g, *ctx.saved_arrays)


# ------------------------------------------------------------------ tensor (op) tensor
# Each backward comes twice: ``backward`` in Tensor operations (differentiable, for
# create_graph) and ``backward_array``, the same formula on the arrays; where the
# operators are the same, written once (``_SameFormula``, or ``backward_array = backward``
# when nothing was saved).
class Add(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = (a._data.shape, b._data.shape)
        return broadcast_op("add", np.add, a, b)

    @staticmethod
    def backward(ctx, g):
        a_needs, b_needs = ctx.needs_input_grad
        a_shape, b_shape = ctx.shapes
        return (
            unbroadcast(g, a_shape) if a_needs else None,
            unbroadcast(g, b_shape) if b_needs else None,
        )

    backward_array = backward  # unbroadcast serves arrays and Tensors alike


class Sub(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = (a._data.shape, b._data.shape)
        return broadcast_op("sub", np.subtract, a, b)

    @staticmethod
    def backward(ctx, g):
        a_needs, b_needs = ctx.needs_input_grad
        a_shape, b_shape = ctx.shapes
        return (
            unbroadcast(g, a_shape) if a_needs else None,
            unbroadcast(-g, b_shape) if b_needs else None,
        )

    backward_array = backward


class Mul(_SameFormula):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return broadcast_op("mul", np.multiply, a, b)

    @staticmethod
    def grads(ctx, g, a, b):
        """d(a b) = g b da + g a db."""
        a_needs, b_needs = ctx.needs_input_grad
        return (
            unbroadcast(g * b, a.shape) if a_needs else None,
            unbroadcast(g * a, b.shape) if b_needs else None,
        )


class Div(_SameFormula):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return broadcast_op("div", np.true_divide, a, b)

    @staticmethod
    def grads(ctx, g, a, b):
        """d(a / b) = g / b da - g a / b^2 db."""
        a_needs, b_needs = ctx.needs_input_grad
        ga = g / b
        return (
            unbroadcast(ga, a.shape) if a_needs else None,
            unbroadcast(-ga * a / b, b.shape) if b_needs else None,
        )


class Pow(Function):
    """``a ** b`` for two tensors: d/da = b a^(b-1), d/db = a^b log a."""

    @staticmethod
    def forward(ctx, a, b):
        if a._data.dtype.kind == "b" and b._data.dtype.kind == "b":
            raise no_kernel("pow", np.bool_)
        ctx.save_for_backward(a, b)
        return broadcast_op("pow", _power, a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        a_needs, b_needs = ctx.needs_input_grad
        ga = gb = None
        if a_needs:
            # b a^(b-1) is 0 where b == 0, also at a == 0 (where a^(b-1) = inf): there the
            # exponent is swapped for 1, so the product is 0 * a = 0 and no inf is formed.
            exponent = Where.apply(b._data == 0, 1.0, b - 1.0)
            ga = unbroadcast(g * b * a**exponent, a._data.shape)
        if b_needs:
            # a^b log a; where a == 0 the product's limit is 0 (for b > 0), so log a
            # is replaced by log 1 there instead of -inf.
            log_a = Where.apply(a._data != 0, a, 1.0).log()
            gb = unbroadcast(g * (a**b) * log_a, b._data.shape)
        return ga, gb

    @staticmethod
    def backward_array(ctx, g):
        a, b = ctx.saved_arrays
        a_needs, b_needs = ctx.needs_input_grad
        ga = gb = None
        if a_needs:
            exponent = np.where(b == 0, 1.0, b - 1.0).astype(b.dtype, copy=False)
            ga = unbroadcast(g * b * a**exponent, a.shape)
        if b_needs:
            log_a = np.log(np.where(a != 0, a, 1.0).astype(a.dtype, copy=False))
            gb = unbroadcast(g * (a**b) * log_a, b.shape)
        return ga, gb


# ------------------------------------------------------------------ tensor (op) number
# The backwards of these are written once, for Tensors and arrays alike (the same
# operators on ``g``), and serve as both ``backward`` and ``backward_array``.
class AddScalar(Function):
    @staticmethod
    def forward(ctx, a, c):
        return a._data + c

    @staticmethod
    def backward(ctx, g):
        return g, None

    backward_array = backward


class MulScalar(Function):
    @staticmethod
    def forward(ctx, a, c):
        ctx.c = c
        return a._data * c

    @staticmethod
    def backward(ctx, g):
        return g * ctx.c, None

    backward_array = backward


class DivScalar(Function):
    @staticmethod
    def forward(ctx, a, c):
        ctx.c = c
        return a._data / c

    @staticmethod
    def backward(ctx, g):
        return g / ctx.c, None

    backward_array = backward


class RSubScalar(Function):
    """``c - a``."""

    @staticmethod
    def forward(ctx, a, c):
        return c - a._data

    @staticmethod
    def backward(ctx, g):
        return -g, None

    backward_array = backward


class RDivScalar(_SameFormula):
    """``c / a``: d/da = -c / a^2."""

    @staticmethod
    def forward(ctx, a, c):
        ctx.save_for_backward(a)
        ctx.c = c
        return c / a._data

    @staticmethod
    def grads(ctx, g, a):
        return -g * ctx.c / (a * a), None


def _power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a ** b``; for integer tensors with negative exponents PyTorch's integer answer
    (1 ** b = 1, (-1) ** b = +-1, anything else 0), where NumPy refuses."""
    if a.dtype.kind not in "iu" or b.dtype.kind not in "iu" or not (b < 0).any():
        return np.power(a, b)
    negative = b < 0
    odd = (b % 2) != 0
    at_negative = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
    return np.where(negative, at_negative, np.power(a, np.where(negative, 0, b))).astype(
        np.result_type(a, b)
    )


class PowScalar(_SameFormula):
    """``a ** c``: d/da = c a^(c-1)."""

    @staticmethod
    def forward(ctx, a, c):
        ctx.save_for_backward(a)
        ctx.c = c
        if a._data.dtype.kind in "iu" and isinstance(c, (int, np.integer)) and c < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if a._data.dtype.kind == "b":  # b ** True is b, b ** False all True (PyTorch: bool)
            return a._data.copy() if c else np.ones_like(a._data)
        return a._data**c

    @staticmethod
    def grads(ctx, g, a):
        c = ctx.c
        if c == 2:
            return g * (a * 2.0), None
        if c == 0:
            return g * 0.0, None
        return g * (c * a ** (c - 1)), None


class RPowScalar(Function):
    """``c ** a``: d/da = c^a log c."""

    @staticmethod
    def forward(ctx, a, c):
        if a._data.dtype.kind == "b":  # so c is a bool too (a number promotes the tensor)
            raise no_kernel("pow", np.bool_)
        if a._data.dtype.kind in "iu":  # 2 ** -1 is 0, as in PyTorch (NumPy refuses it)
            base = dtypes.wrapped_int(c, a._data.dtype) if type(c) is int else c
            y = _power(np.asarray(base, dtype=a._data.dtype), a._data)
        else:
            y = c**a._data
        ctx.save_for_backward(y)
        ctx.c = c
        # 0^a: c^a log c is 0 * -inf for a > 0; its limit (and torch's value) is 0 for a >= 0
        ctx.flat = (a._data >= 0) if c == 0 else None
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        if ctx.flat is not None:
            return Where.apply(ctx.flat, 0.0, g * y * float("-inf")), None
        return g * y * float(np.log(ctx.c)), None

    @staticmethod
    def backward_array(ctx, g):
        (y,) = ctx.saved_arrays
        if ctx.flat is not None:
            return np.where(ctx.flat, 0.0, g * y * float("-inf")).astype(g.dtype), None
        return g * y * float(np.log(ctx.c)), None


class Neg(Function):
    @staticmethod
    def forward(ctx, a):
        return -a._data

    @staticmethod
    def backward(ctx, g):
        return -g

    backward_array = backward


# ------------------------------------------------------------------------------ matmul
class MatMul(Function):
    """``a @ b`` for inputs with at least 2 dims (1-D inputs are handled by ``matmul``).

    Forward: ``y[..., i, j] = sum_k a[..., i, k] b[..., k, j]``.
    Backward: ``dA = dY @ B^T`` and ``dB = A^T @ dY``, summed over broadcast batch dims.
    """

    @staticmethod
    def forward(ctx, a, b):
        if a._data.dtype.kind == "b":
            raise no_kernel("matmul", np.bool_)
        ctx.save_for_backward(a, b)
        try:
            out = np.matmul(a._data, b._data)
        except ValueError:
            raise _matmul_error(a._data.shape, b._data.shape) from None
        return out

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        a_needs, b_needs = ctx.needs_input_grad
        return (
            unbroadcast(g @ b.mT, a._data.shape) if a_needs else None,
            unbroadcast(a.mT @ g, b._data.shape) if b_needs else None,
        )

    @staticmethod
    def backward_array(ctx, g):
        a, b = ctx.saved_arrays
        a_needs, b_needs = ctx.needs_input_grad
        grads = (
            unbroadcast(np.matmul(g, b.swapaxes(-1, -2)), a.shape) if a_needs else None,
            unbroadcast(np.matmul(a.swapaxes(-1, -2), g), b.shape) if b_needs else None,
        )
        return grads


def _matmul_error(sa, sb) -> ShapeError:
    ka = sa[-1]
    kb = sb[-2] if len(sb) >= 2 else sb[-1]
    if ka != kb:
        why = f"inner dimensions differ ({ka} != {kb})"
    else:
        why = f"batch dimensions {shape_str(sa[:-2])} and {shape_str(sb[:-2])} do not broadcast"
    return ShapeError(
        f"matmul: shapes {shape_str(sa)} and {shape_str(sb)} cannot be multiplied: {why}"
    )


def matmul(a, b):
    """Matrix product with NumPy / PyTorch rules for 1-D operands."""
    from minigrad.tensor import as_tensor

    a = as_tensor(a)
    b = as_tensor(b)
    if a._data.ndim == 0 or b._data.ndim == 0:
        raise ShapeError(
            f"matmul: both arguments need at least 1 dimension, got shapes "
            f"{shape_str(a._data.shape)} and {shape_str(b._data.shape)}"
        )
    if a._data.dtype != b._data.dtype:  # PyTorch does not promote a product's operands
        raise DtypeMismatchError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{torch_dtype_name(a._data.dtype)} != {torch_dtype_name(b._data.dtype)}"
        )
    if a._data.ndim >= 2 and b._data.ndim >= 2:
        return MatMul.apply(a, b)
    if a._data.ndim == 1 and b._data.ndim == 1:
        if a._data.shape != b._data.shape:
            raise _matmul_error(a._data.shape, b._data.shape)
        return MatMul.apply(a.reshape(1, -1), b.reshape(-1, 1)).reshape(())
    if a._data.ndim == 1:
        if a._data.shape[0] != b._data.shape[-2]:
            raise _matmul_error(a._data.shape, b._data.shape)
        out = MatMul.apply(a.reshape(1, -1), b)
        return out.reshape(out._data.shape[:-2] + out._data.shape[-1:])
    if a._data.shape[-1] != b._data.shape[0]:
        raise _matmul_error(a._data.shape, b._data.shape)
    return MatMul.apply(a, b.reshape(-1, 1)).reshape(a._data.shape[:-1])


# ------------------------------------------------------------------------------- casts
class Cast(Function):
    @staticmethod
    def forward(ctx, a, dtype):
        ctx.in_dtype = a._data.dtype
        return a._data.astype(dtype)

    @staticmethod
    def backward(ctx, g):
        return g.to(ctx.in_dtype), None

    @staticmethod
    def backward_array(ctx, g):
        return g.astype(ctx.in_dtype), None


class Clone(Function):
    @staticmethod
    def forward(ctx, a):
        return a._data.copy()

    @staticmethod
    def backward(ctx, g):
        return g

    backward_array = backward


# ---------------------------------------------------------------------- type promotion
def promote(a, b):
    """Cast two tensors to the dtype of an operation on both (``dtypes.result_type``:
    PyTorch's rules)."""
    da, db = a._data.dtype, b._data.dtype
    if da is db or da == db:
        return a, b
    target = dtypes.result_type(da, a._data.ndim, db, b._data.ndim)
    if da != target:
        a = a.to(target)
    if db != target:
        b = b.to(target)
    return a, b

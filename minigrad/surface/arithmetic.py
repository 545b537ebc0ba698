"""Arithmetic with PyTorch's extra arguments, comparison helpers and dtype questions.

- ``add(x, y, alpha=2)`` is ``x + 2 * y``; ``sub`` and ``rsub`` likewise; ``div`` with
  ``rounding_mode="floor"`` or ``"trunc"`` rounds the quotient (its gradient is 0, as a
  step function's; two integer tensors keep their integer dtype).
- ``addcmul(x, t1, t2, value=v)`` is ``x + v * t1 * t2``; ``addcdiv`` is
  ``x + v * t1 / t2``; ``lerp(start, end, weight)`` is ``start + weight * (end - start)``;
  ``float_power`` computes in float64; ``ldexp(x, e)`` is ``x * 2 ** e``;
  ``clamp_min`` / ``clamp_max`` are ``clamp`` with one bound.
- ``isclose``, ``equal``, ``isin``, ``isneginf``, ``isposinf``, ``isreal`` answer
  without gradient.
- ``frexp(x)``: mantissa and exponent, ``x = mantissa * 2 ** exponent``.
- The dtype methods PyTorch has besides ``float()`` / ``long()``: ``byte``, ``char``,
  ``short``, ``type``, ``is_signed``, ``is_complex``.

All of them are compositions of differentiable operations; their gradients are those
of the parts.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from minigrad import dtypes
from minigrad.functions import signatures
from minigrad.functions.errors import DtypeError, ShapeError, floating_only, no_kernel
from minigrad.printing import shape_str
from minigrad.surface.elementwise import call
from minigrad.tensor import Tensor, as_tensor

_Number = (int, float, bool, np.number, np.bool_)


def _const(array) -> Tensor:
    return Tensor._make(np.asarray(array), False, None)


def _scaled(other, alpha):
    return other if alpha == 1 else other * alpha


def add(input, other, *legacy, alpha=1) -> Tensor:
    """input + alpha * other (also PyTorch's legacy ``add(input, alpha, other)``)."""
    other, alpha = signatures.scaled_operand("add", other, legacy, alpha)
    return as_tensor(input) + _scaled(other, alpha)


def sub(input, other, *legacy, alpha=1) -> Tensor:
    """input - alpha * other (also PyTorch's legacy ``sub(input, alpha, other)``)."""
    other, alpha = signatures.scaled_operand("sub", other, legacy, alpha)
    return as_tensor(input) - _scaled(other, alpha)


def rsub(input, other, *, alpha=1) -> Tensor:
    """other - alpha * input."""
    signatures.tensor_argument("rsub", input)
    return _scaled(as_tensor(input), alpha).__rsub__(other)


def mul(input, other) -> Tensor:
    return as_tensor(input) * other


def _is_integral(x) -> bool:
    if isinstance(x, Tensor):
        return x.dtype.kind in "iub"
    return isinstance(x, (int, np.integer, bool, np.bool_))


def div(input, other, *, rounding_mode=None) -> Tensor:
    """input / other; ``rounding_mode="floor"`` rounds down, ``"trunc"`` towards zero."""
    x = as_tensor(input)
    if rounding_mode is None:
        return x / other
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"{rounding_mode!r}"
        )
    if _is_integral(x) and _is_integral(other):
        if rounding_mode == "floor":
            return call("floor_divide", x, other)
        o = as_tensor(other)
        return (x.abs() // o.abs()) * x.sign() * o.sign()
    quotient = x / other
    return quotient.floor() if rounding_mode == "floor" else quotient.trunc()


def true_divide(input, other) -> Tensor:
    return as_tensor(input) / other


def addcmul(input, tensor1, tensor2, *legacy, value=1) -> Tensor:
    """input + value * tensor1 * tensor2 (also the legacy ``addcmul(input, value, t1, t2)``)."""
    tensor1, tensor2, value = signatures.scaled_pair("addcmul", tensor1, tensor2, legacy, value)
    if all(as_tensor(t).dtype == np.bool_ for t in (input, tensor1, tensor2)):
        raise no_kernel("addcmul", np.bool_)
    return as_tensor(input) + _scaled(as_tensor(tensor1) * tensor2, value)


def addcdiv(input, tensor1, tensor2, *legacy, value=1) -> Tensor:
    """input + value * tensor1 / tensor2 (also the legacy ``addcdiv(input, value, t1, t2)``)."""
    tensor1, tensor2, value = signatures.scaled_pair("addcdiv", tensor1, tensor2, legacy, value)
    if all(as_tensor(t).dtype.kind in "biu" for t in (tensor1, tensor2)):
        raise DtypeError(
            "Integer division with addcdiv is no longer supported: write "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for the old "
            "integer result, or input + value * tensor1 / tensor2 for a true division"
        )
    return as_tensor(input) + _scaled(as_tensor(tensor1) / tensor2, value)


def lerp(input, end, weight) -> Tensor:
    """start + weight * (end - start), with ``input`` the start."""
    start = as_tensor(input)
    floating_only("lerp", start.dtype)
    return start + (as_tensor(end) - start) * weight


def float_power(input, exponent) -> Tensor:
    """input ** exponent computed in float64."""
    signatures.one_tensor("float_power", input, exponent)
    x = as_tensor(input).to(dtypes.float64)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(dtypes.float64)
    return x**exponent


def ldexp(input, other) -> Tensor:
    """input * 2 ** other (a float result)."""
    signatures.tensor_argument("ldexp", input)
    signatures.tensor_argument("ldexp", other, "other", 2)
    x = as_tensor(input)
    if x.dtype.kind != "f":
        x = x.float()
    return x * call("exp2", as_tensor(other).to(x.dtype))


def clamp_min(input, min) -> Tensor:
    signatures.tensor_argument("clamp_min", input)
    return as_tensor(input).clamp(min=min)


def clamp_max(input, max) -> Tensor:
    signatures.tensor_argument("clamp_max", input)
    return as_tensor(input).clamp(max=max)


# ------------------------------------------------------------------- comparison helpers
def isclose(input, other, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False):
    """|input - other| <= atol + rtol * |other|, elementwise (a bool tensor)."""
    signatures.tensor_argument("isclose", input)
    signatures.tensor_argument("isclose", other, "other", 2)
    for name, value in (("rtol", rtol), ("atol", atol)):
        if not value >= 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value}")
    a = as_tensor(input)._data
    b = other._data if isinstance(other, Tensor) else np.asarray(other)
    try:
        return _const(np.isclose(a, b, rtol, atol, equal_nan))
    except ValueError:
        raise ShapeError(
            f"isclose: shapes {shape_str(a.shape)} and {shape_str(b.shape)} cannot be "
            "broadcast together"
        ) from None


def equal(input, other) -> bool:
    """True if both have the same shape and elements."""
    signatures.tensor_argument("equal", other, "other", 2)
    a, b = as_tensor(input)._data, as_tensor(other)._data
    return bool(a.shape == b.shape and np.array_equal(a, b))


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False):
    """True where an element of ``elements`` is among ``test_elements``."""
    a = as_tensor(elements)._data
    b = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    if np.bool_ in (a.dtype, b.dtype):
        raise DtypeError("Unsupported input type encountered for isin(): Bool")
    return _const(np.isin(a, b, invert=invert))


def isneginf(input) -> Tensor:
    return _const(np.isneginf(as_tensor(input)._data))


def isposinf(input) -> Tensor:
    return _const(np.isposinf(as_tensor(input)._data))


def isreal(input) -> Tensor:
    """True everywhere: minigrad has no complex tensors."""
    return _const(np.ones(as_tensor(input).shape, dtype=bool))


def is_nonzero(input) -> bool:
    x = as_tensor(input)
    if x.numel() != 1:
        raise RuntimeError(
            "Boolean value of Tensor with more than one value is ambiguous"
            if x.numel()
            else "Boolean value of Tensor with no values is ambiguous"
        )
    return bool(x._data.reshape(()))


def is_same_size(input, other) -> bool:
    signatures.tensor_argument("is_same_size", other, "other", 2)
    return as_tensor(input).shape == as_tensor(other).shape


# ------------------------------------------------------------------------ dtype methods
_TYPE_NAMES = {
    "float32": "torch.FloatTensor",
    "float64": "torch.DoubleTensor",
    "float16": "torch.HalfTensor",
    "int64": "torch.LongTensor",
    "int32": "torch.IntTensor",
    "int16": "torch.ShortTensor",
    "int8": "torch.CharTensor",
    "uint8": "torch.ByteTensor",
    "bool": "torch.BoolTensor",
}
_TYPE_DTYPES = {name: dtype for dtype, name in _TYPE_NAMES.items()}


def type(input, dtype=None, non_blocking: bool = False):
    """Without ``dtype``: PyTorch's type name (``"torch.FloatTensor"``); with one (a dtype
    or such a name): the tensor in that dtype."""
    x = as_tensor(input)
    if dtype is None:
        return _TYPE_NAMES.get(str(x.dtype), f"torch.{x.dtype}")
    if isinstance(dtype, str) and dtype in _TYPE_DTYPES:
        dtype = _TYPE_DTYPES[dtype]
    return x.to(dtypes.as_dtype(dtype))


def byte(input) -> Tensor:
    return as_tensor(input).to(dtypes.uint8)


def char(input) -> Tensor:
    return as_tensor(input).to(dtypes.int8)


def short(input) -> Tensor:
    return as_tensor(input).to(dtypes.int16)


def is_signed(input) -> bool:
    return as_tensor(input).dtype.kind in "if"


def is_complex(input) -> bool:
    return False


def where(input, condition, other) -> Tensor:
    """``x.where(condition, y)``: ``x`` where ``condition`` holds, else ``y``."""
    from minigrad.ops import where as _where

    return _where(condition, input, other)


def polygamma(input, n: int) -> Tensor:
    """``x.polygamma(n)`` (note the order: ``torch.polygamma(n, x)``)."""
    from minigrad.surface.special import polygamma as _polygamma

    return _polygamma(n, input)


def mvlgamma(input, p: int) -> Tensor:
    from minigrad.surface.special import multigammaln

    return multigammaln(input, p)


Frexp = namedtuple("frexp", ["mantissa", "exponent"])


def frexp(input) -> Frexp:
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent`` and
    ``0.5 <= |mantissa| < 1`` (0, inf and NaN keep exponent 0). The exponent is int32 and
    carries no gradient; the mantissa's gradient is ``g / 2 ** exponent``.

    Example: ``mg.frexp(mg.tensor([8.0]))`` is ``(tensor([0.5]), tensor([4]))``.
    """
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise ShapeError(f"frexp: only supports floating-point dtypes, got {x.dtype}")
    _, exponent = np.frexp(x._data)
    # two exact powers of two, so that a subnormal's 2 ** 1074 does not overflow
    half = exponent // 2
    first = np.ldexp(np.ones_like(x._data), -half)
    second = np.ldexp(np.ones_like(x._data), half - exponent)
    mantissa = x * _const(first) * _const(second)
    return Frexp(mantissa, _const(exponent.astype(np.int32)))


def ndimension(input) -> int:
    return as_tensor(input).ndim


def adjoint(input) -> Tensor:
    """The conjugate transpose of the last two dims (minigrad is real: the transpose)."""
    return as_tensor(input).mT


#: Tensor methods (``x.add(y, alpha=2)``, ``x.div(y, rounding_mode="floor")``, ...).
METHODS = (
    "add sub rsub mul div true_divide addcmul addcdiv lerp float_power ldexp clamp_min "
    "clamp_max isclose equal isneginf isposinf isreal is_nonzero is_same_size type byte "
    "char short is_signed is_complex where polygamma mvlgamma ndimension adjoint frexp"
).split()
#: ``mg.X`` functions (``type``, ``byte``, ... are methods only, as in PyTorch).
_METHOD_ONLY = ("type", "byte", "char", "short", "is_signed", "where", "polygamma", "ndimension")
FUNCTIONS = [name for name in METHODS if name not in _METHOD_ONLY] + ["isin"]
ALIASES = {"subtract": "sub", "multiply": "mul", "divide": "div"}
#: In-place variants (``x.lerp_(...)`` writes ``x.lerp(...)`` into ``x``).
INPLACE = (
    "addcdiv addcmul clamp_max clamp_min divide float_power ldexp lerp multiply subtract "
    "true_divide polygamma mvlgamma"
).split()


# -------------------------------------------------------------- the remaining operators
def _contains(self, element) -> bool:
    """``element in t``: some element of ``t`` equals it."""
    return bool((self == element).any().item())


def _reversed(self) -> Tensor:
    """``reversed(t)``: ``t`` flipped along dim 0 (a 0-d tensor is itself)."""
    return self if self.ndim == 0 else self.flip(0)


def _ipow(self, exponent) -> Tensor:
    return self._inplace("pow_", self**exponent)


def _complex(self) -> complex:
    return complex(self.item())


def _rdiv(self, other) -> Tensor:
    return self.__rtruediv__(other)


#: Dunder methods that PyTorch's Tensor has beside the arithmetic operators.
DUNDERS = {
    "__contains__": _contains,
    "__reversed__": _reversed,
    "__nonzero__": is_nonzero,
    "__long__": lambda self: int(self.item()),
    "__complex__": _complex,
    "__div__": lambda self, other: self / other,
    "__rdiv__": _rdiv,
    "__idiv__": lambda self, other: self.__itruediv__(other),
    "__ipow__": _ipow,
    "pow_": _ipow,
    "nbytes": property(lambda self: self._data.nbytes),
    "itemsize": property(lambda self: self._data.itemsize),
    "mH": property(lambda self: self.mT),
    "H": property(lambda self: self.T if self.ndim == 2 else self.t()),
}

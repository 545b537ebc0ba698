"""Elementwise operations as one table: a page of derivatives.

Each entry names an operation, its forward (a NumPy function on arrays) and, one line
per input, its derivative: a function that gives the gradient that flows back to that
input (``d`` for one input, ``da`` and ``db`` for two), written in terms of ``g`` (the
incoming gradient), the inputs (``x``, or ``a`` and ``b``), the output ``y`` and the
entry's extra arguments, each by its name, so the function's parameters say what the
backward needs. A note marks a special point and says what PyTorch (and so minigrad)
does there. The entry's faces follow: its other names (``aliases``), its names in
``torch.special`` (``special``), whether it is a Tensor method and ``mg.*`` function
(``method``), has an in-place variant (``inplace``, and ``mg.name_`` with
``inplace_function``), or is an operator (``dunder``); where its PyTorch signature takes
a Python number in place of a tensor (``numbers``); how bool inputs are read: computed
as int64 (``bool_as``) or refused with PyTorch's own message (``bool_error``); the dtypes
PyTorch has no kernel for (``refuses``); whether NumPy warns for none of its inputs, so
that its forward needs no ``np.errstate`` (``quiet``, checked by
``tests/functions/test_quiet_rows.py``); and PyTorch's message where it refuses two
tensors of different dtypes instead of promoting them (``mixed_dtypes``). Forwards of
minigrad's own carry PyTorch's answers NumPy does not give (the integer divisions
raise on a zero divisor).

Everything else is generated from this table, in one place each:

- ``functions/pointwise.py``: one ``Function`` class per entry (forward, ``backward``
  on Tensors and ``backward_array`` on arrays, both calling the same derivative);
- ``minigrad/surface/elementwise.py``: the Tensor methods (``x.tan()``), their in-place
  variants (``x.tan_()``), operators, the functions ``mg.tan(x)`` and ``mg.special.*``;
- ``docs/derivatives.md``: this table as a reference page (``tools/derivatives_doc.py``);
- ``tests/functions/test_opinfo.py``: each entry checked against PyTorch and by gradcheck.

Inputs: ``ints="float"`` ops turn integer and bool inputs into float32 first (as
``torch.sin`` does); ``"keep"`` ops keep the input's dtype (``abs``, ``floor``);
``"int"`` ops take integer and bool tensors only (bitwise ops), ``"floating"`` ops
floating tensors only (``igamma``, as PyTorch). An entry without derivatives gives
results that carry no gradient (rounding's derivative is zero wherever it exists: those
entries say ``zeros_like(g)``, as PyTorch).

A derivative that needs a function (``cos``, ``exp``, ``where``, ...) takes ``m``, the
namespace it comes from: NumPy's in ``backward_array``, and the table's own Functions in
``backward`` (so that derivatives can be differentiated again). The constants below are
Python floats so that a float32 gradient stays float32.
"""

from __future__ import annotations

import ast
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from minigrad.functions import bessel
from minigrad.functions import incomplete_gamma as gamma
from minigrad.functions import orthogonal_polynomials as poly
from minigrad.functions import special_math as sm
from minigrad.functions.errors import IntegerDivisionByZero

LN2 = math.log(2.0)
LN10 = math.log(10.0)
SQRT_PI = math.sqrt(math.pi)
pi = math.pi


def not_implemented(name: str):
    """A derivative PyTorch does not have: asking for it raises, as there."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


@dataclass(frozen=True)
class Op:
    """One elementwise operation (see the module docstring)."""

    name: str
    forward: Callable  # a NumPy function of the input arrays (and ``params``)
    d: Callable | None = None  # the derivative of a function of one input
    da: Callable | None = None  # ... and of two: d/da, d/db
    db: Callable | None = None
    note: str = ""  # the special points, in PyTorch's convention
    ints: str = "float"  # "float", "keep", "int", "floating" or "bool" (bool inputs only)
    params: tuple = ()  # (name, default) of non-tensor arguments after the inputs
    aliases: tuple = ()  # PyTorch's other names for it (methods and mg.* functions too)
    special: tuple = ()  # its names in torch.special
    method: bool = True  # a Tensor method and an mg.* function (False: torch.special only)
    inplace: bool = True  # with an in-place variant, x.name_()
    inplace_function: bool = False  # ... also as a function, mg.name_(x)
    dunder: str = ""  # the operator that is this operation (``__and__``)
    second: str = "other"  # the name of a binary operation's second argument
    arity: int = 1  # its tensor inputs (2: the rows of BINARY, which set it)
    numbers: str = "either"  # where PyTorch takes numbers: "either", "second", "both", "nowhere"
    bool_as: str = ""  # bool inputs computed as "int64", or as "int64 to bool" (cast back after)
    bool_error: str = ""  # PyTorch's message (a RuntimeError) for a bool input it refuses
    refuses: tuple = ()  # dtypes PyTorch has no kernel for: "bool", "int" (every integer dtype)
    quiet: bool = False  # NumPy warns for no input (no overflow, 1/0 or invalid): no errstate
    mixed_dtypes: str = ""  # PyTorch's message refusing two tensors of different dtypes

    @property
    def grads(self) -> tuple | None:
        """One derivative per input; None: not differentiable."""
        if self.d is not None:
            return (self.d,)
        if self.da is not None:
            return (self.da, self.db)
        return None


# Forwards NumPy does not have under one name; the first line of each docstring is the
# formula the reference page (docs/derivatives.md) shows.
def _sigmoid(x):
    """1 / (1 + exp(-x))"""
    # exp of -|x| never overflows: for x >= 0, 1 / (1 + e^-x); for x < 0, e^x / (1 + e^x).
    z = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0, z) / (1.0 + z)


def _rsqrt(x):
    """1 / sqrt(x)"""
    return 1 / np.sqrt(x)


def _logit(x, eps=None):
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] if eps is given"""
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


def _xlogy(a, b):
    """a log(b), 0 where a = 0"""
    return np.where(a == 0, 0.0, a * np.log(np.where(a == 0, 1.0, b)))


def _xlog1py(a, b):
    """a log(1 + b), 0 where a = 0"""
    return np.where(a == 0, 0.0, a * np.log1p(np.where(a == 0, 0.0, b)))


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """x with NaN, +inf, -inf replaced (by 0 and the dtype's largest and smallest values)"""
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def _sign(x):
    """-1, 0 or 1 (a bool stays itself)"""
    return x.copy() if x.dtype.kind == "b" else np.sign(x)


def _relu(x):
    """max(x, 0)"""
    return np.maximum(x, 0)


def _entr(x):
    """-x log(x); 0 at 0, -inf below"""
    return np.where(x > 0, -x * np.log(np.where(x > 0, x, 1.0)), np.where(x == 0, 0.0, -np.inf))


def _ndtr(x):
    """(1 + erf(x / sqrt 2)) / 2, the standard normal CDF"""
    return sm.erfc(-x / math.sqrt(2.0)) / 2


def _frac(x):
    """x - trunc(x)"""
    return x - np.trunc(x)


def _integer_divisor(name: str, a, b) -> None:
    """An integer division by zero has no integer answer: PyTorch raises where NumPy
    would give 0 (an empty result divides nothing)."""
    if np.result_type(a, b).kind in "biu" and np.size(a) and not np.all(b):
        raise IntegerDivisionByZero(f"ZeroDivisionError: {name}: integer division by zero")


def _fmod(a, b):
    """a - b trunc(a / b)"""
    _integer_divisor("fmod", a, b)
    return np.fmod(a, b)


def _remainder(a, b):
    """a - b floor(a / b)"""
    _integer_divisor("remainder", a, b)
    return np.remainder(a, b)


def _floor_divide(a, b):
    """floor(a / b)"""
    _integer_divisor("floor_divide", a, b)
    return np.floor_divide(a, b)


def _special_only(name: str, forward: Callable, note: str = "", **faces) -> Op:
    """A row of a function of ``torch.special`` only (no Tensor method) that has, as in
    PyTorch, no derivative and no float16 kernel (the Bessel functions, Airy's Ai)."""
    return Op(name, forward, note=note, special=(name,), method=False, refuses=("float16",),
              **faces)  # fmt: skip


def _orthogonal_polynomial(name: str, note: str = "n < 0 gives 0") -> Op:
    """A row of ``torch.special``'s orthogonal polynomials P_n(x): ``_special_only``, with
    ``n`` the second input; the forward is the function of that name in
    ``orthogonal_polynomials.py``."""
    return _special_only(name, getattr(poly, name), note, second="n")


def _two_inputs(*ops: Op) -> tuple:
    """The rows of BINARY, each an operation of two tensors (``arity``)."""
    return tuple(replace(op, arity=2) for op in ops)


# fmt: off
UNARY = (
    # name and forward, the derivative, its special points, then its faces
    Op("neg", np.negative, d=lambda g: -g, ints="keep", aliases=("negative",),
       inplace_function=True,
       bool_error="Negation, the `-` operator, on a bool tensor is not supported. If you are "
                  "trying to invert a mask, use the `~` or `logical_not()` operator instead.",
       quiet=True),
    Op("positive", np.positive, d=lambda g: g, ints="keep", inplace=False,
       bool_error="The `+` operator, on a bool tensor is not supported.", quiet=True),
    Op("abs", np.abs,
       d=lambda m, g, x: g * m.sign(x),
       note="0 at x = 0 (the subgradient PyTorch picks)", ints="keep", aliases=("absolute",),
       dunder="__abs__", inplace_function=True, quiet=True, refuses=("bool",)),
    Op("sign", _sign,
       d=lambda m, g: m.zeros_like(g),
       note="0 everywhere (a step function)", ints="keep", aliases=("sgn",), quiet=True),
    Op("square", np.square, d=lambda g, x: 2 * g * x, ints="keep", inplace_function=True,
       bool_as="int64"),
    Op("reciprocal", np.reciprocal, d=lambda g, y: -g * y * y, note="inf at 0",
       inplace_function=True),
    Op("sqrt", np.sqrt, d=lambda g, y: g / (2 * y), note="inf at 0, NaN below",
       inplace_function=True),
    Op("rsqrt", _rsqrt, d=lambda g, y: -0.5 * g * y * y * y, note="-inf at 0",
       inplace_function=True),
    Op("exp", np.exp, d=lambda g, y: g * y, inplace_function=True),
    Op("exp2", np.exp2, d=lambda g, y: g * y * LN2, special=("exp2",), inplace_function=True),
    Op("expm1", np.expm1, d=lambda g, y: g * (y + 1), special=("expm1",), inplace_function=True),
    Op("log", np.log, d=lambda g, x: g / x, note="inf at 0, NaN below", inplace_function=True),
    Op("log2", np.log2, d=lambda g, x: g / (x * LN2), inplace_function=True),
    Op("log10", np.log10, d=lambda g, x: g / (x * LN10), inplace_function=True),
    Op("log1p", np.log1p, d=lambda g, x: g / (x + 1), special=("log1p",), inplace_function=True),
    Op("sin", np.sin, d=lambda m, g, x: g * m.cos(x), inplace_function=True),
    Op("cos", np.cos, d=lambda m, g, x: -g * m.sin(x), inplace_function=True),
    Op("tan", np.tan, d=lambda g, y: g * (1 + y * y), inplace_function=True),
    Op("asin", np.arcsin,
       d=lambda m, g, x: g / m.sqrt(1 - x * x),
       note="inf at +-1", aliases=("arcsin",), inplace_function=True),
    Op("acos", np.arccos,
       d=lambda m, g, x: -g / m.sqrt(1 - x * x),
       note="-inf at +-1", aliases=("arccos",), inplace_function=True),
    Op("atan", np.arctan, d=lambda g, x: g / (1 + x * x), aliases=("arctan",),
       inplace_function=True, quiet=True),
    Op("sinh", np.sinh, d=lambda m, g, x: g * m.cosh(x), inplace_function=True),
    Op("cosh", np.cosh, d=lambda m, g, x: g * m.sinh(x), inplace_function=True),
    Op("tanh", np.tanh, d=lambda g, y: g * (1 - y * y), inplace_function=True, quiet=True),
    Op("asinh", np.arcsinh, d=lambda m, g, x: g / m.sqrt(x * x + 1), aliases=("arcsinh",),
       inplace_function=True, quiet=True),
    Op("acosh", np.arccosh,
       d=lambda m, g, x: g / m.sqrt(x * x - 1),
       note="inf at 1", aliases=("arccosh",), inplace_function=True),
    Op("atanh", np.arctanh,
       d=lambda g, x: g / (1 - x * x),
       note="inf at +-1", aliases=("arctanh",), inplace_function=True),
    Op("sigmoid", _sigmoid, d=lambda g, y: g * y * (1 - y), special=("expit",),
       inplace_function=True, quiet=True),
    Op("logit", _logit,
       d=lambda m, g, x, eps: (
           g / (x * (1 - x)) if eps is None
           else m.where((x < eps) | (x > 1 - eps), 0.0, g / (x * (1 - x)))
       ),
       note="with eps: 0 outside [eps, 1 - eps], as clamping first", params=(("eps", None),),
       special=("logit",), inplace_function=True),
    Op("relu", _relu, d=lambda g, x: g * (x > 0), note="0 at x = 0", ints="keep", quiet=True,
       bool_error="Boolean inputs not supported for relu"),
    Op("erf", sm.erf, d=lambda m, g, x: g * (2 / SQRT_PI) * m.exp(-x * x), special=("erf",),
       inplace_function=True),
    Op("erfc", sm.erfc, d=lambda m, g, x: -g * (2 / SQRT_PI) * m.exp(-x * x), special=("erfc",),
       inplace_function=True),
    Op("erfinv", sm.erfinv,
       d=lambda m, g, y: g * (SQRT_PI / 2) * m.exp(y * y),
       note="inf at +-1", special=("erfinv",)),
    Op("lgamma", sm.lgamma,
       d=lambda m, g, x: g * m.digamma(x),
       note="log |Gamma(x)|; poles at 0, -1, ...", special=("gammaln",)),
    Op("digamma", sm.digamma,
       d=lambda m, g, x: g * m.trigamma(x),
       note="-inf at 0, NaN at -1, -2, ...", special=("digamma", "psi")),
    Op("trigamma", sm.trigamma,
       d=lambda m, g, x: -2 * g * m.zeta(m.full_like(x, 3.0), x),
       note="polygamma(1, x); its derivative polygamma(2, x) is -2 zeta(3, x)", method=False),
    Op("erfcx", sm.erfcx,
       d=lambda g, x, y: g * (2 * x * y - 2 / SQRT_PI),
       note="exp(x^2) erfc(x)", special=("erfcx",), method=False, refuses=("float16",)),
    Op("i0", bessel.i0, d=lambda m, g, x: g * m.i1(x), special=("i0",), inplace_function=True),
    Op("i0e", bessel.i0e,
       d=lambda m, g, x, y: g * (m.i1e(x) - m.sign(x) * y),
       special=("i0e",), method=False),
    Op("i1", bessel.i1,
       d=lambda m, g, x, y: m.where(x == 0, 0.5 * g, g * (m.i0(x) - y / x)),
       note="slope 1/2 at 0", special=("i1",), method=False),
    Op("i1e", bessel.i1e,
       d=lambda m, g, x, y: m.where(x == 0, 0.5 * g, g * (m.i0e(x) - y * (m.sign(x) + 1 / x))),
       note="slope 1/2 at 0", special=("i1e",), method=False),
    _special_only("modified_bessel_i0", bessel.i0, "I_0, without derivative"),
    _special_only("modified_bessel_i1", bessel.i1, "I_1, without derivative"),
    _special_only("modified_bessel_k0", bessel.modified_bessel_k0, "inf at 0, NaN below"),
    _special_only("modified_bessel_k1", bessel.modified_bessel_k1, "inf at 0, NaN below"),
    _special_only("scaled_modified_bessel_k0", bessel.scaled_modified_bessel_k0,
                  "inf at 0, NaN below"),
    _special_only("scaled_modified_bessel_k1", bessel.scaled_modified_bessel_k1,
                  "inf at 0, NaN below"),
    _special_only("bessel_j0", bessel.bessel_j0, "NaN at +-inf"),
    _special_only("bessel_j1", bessel.bessel_j1, "NaN at +-inf"),
    _special_only("bessel_y0", bessel.bessel_y0, "-inf at 0, NaN below"),
    _special_only("bessel_y1", bessel.bessel_y1, "-inf at 0, NaN below"),
    _special_only("spherical_bessel_j0", bessel.spherical_bessel_j0),
    _special_only("airy_ai", bessel.airy_ai, "NaN at +-inf, as PyTorch"),
    Op("ndtr", _ndtr,
       d=lambda m, g, x: g * m.exp(-x * x / 2) / (SQRT_PI * 2 ** 0.5),
       special=("ndtr",), method=False),
    Op("log_ndtr", sm.log_ndtr,
       d=lambda m, g, x: g * (2 / pi) ** 0.5 / m.erfcx(-x * 0.5 ** 0.5),
       note="log ndtr(x), both tails kept; Phi'/Phi = sqrt(2/pi) / erfcx(-x/sqrt 2)",
       special=("log_ndtr",), method=False, refuses=("float16",)),
    Op("ndtri", sm.ndtri,
       d=lambda m, g, y: g * (2 * pi) ** 0.5 * m.exp(y * y / 2),
       note="the inverse of ndtr: -inf at 0, inf at 1, NaN outside [0, 1]",
       special=("ndtri",), method=False, refuses=("float16",)),
    Op("entr", _entr,
       d=lambda m, g, x: -g * (m.log(x) + 1),
       note="-x log x; slope inf at 0, NaN below", special=("entr",), method=False),
    Op("sinc", np.sinc,
       d=lambda m, g, x, y: m.where(x == 0, 0.0, g * (m.cos(pi * x) - y) / x),
       note="sin(pi x) / (pi x); 1 and slope 0 at x = 0", special=("sinc",), inplace_function=True),
    Op("deg2rad", np.deg2rad, d=lambda g: g * (pi / 180), inplace_function=True),
    Op("rad2deg", np.rad2deg, d=lambda g: g * (180 / pi), inplace_function=True),
    Op("floor", np.floor, d=lambda m, g: m.zeros_like(g), note="0 (a step function)", ints="keep",
       inplace_function=True, quiet=True, refuses=("bool",)),
    Op("ceil", np.ceil, d=lambda m, g: m.zeros_like(g), note="0 (a step function)", ints="keep",
       inplace_function=True, quiet=True, refuses=("bool",)),
    Op("trunc", np.trunc,
       d=lambda m, g: m.zeros_like(g),
       note="0 (a step function)", ints="keep", aliases=("fix",), inplace_function=True,
       quiet=True, refuses=("bool",)),
    Op("round", np.round,
       d=lambda m, g: m.zeros_like(g),
       note="half to even; 0 (a step function)", ints="keep", params=(("decimals", 0),),
       special=("round",), inplace_function=True, refuses=("bool",)),
    Op("frac", _frac, d=lambda g: g, inplace_function=True, refuses=("bool", "int")),
    Op("nan_to_num", _nan_to_num,
       d=lambda m, g, x: g * m.isfinite(x),
       note="0 where x is NaN or +-inf", ints="keep",
       params=(("nan", 0.0), ("posinf", None), ("neginf", None)), inplace_function=True),
    Op("signbit", np.signbit, note="a bool result", ints="keep", inplace=False, bool_as="int64",
       quiet=True),
    Op("logical_not", np.logical_not, note="a bool result", ints="keep", quiet=True),
    Op("bitwise_not", np.invert, ints="int", dunder="__invert__"),
)

BINARY = _two_inputs(
    # name and forward, d/da and d/db, the special points, then the faces
    Op("atan2", np.arctan2,
       da=lambda m, g, a, b: m.where((a == 0) & (b == 0), 0.0, g * b / (a * a + b * b)),
       db=lambda m, g, a, b: m.where((a == 0) & (b == 0), 0.0, -g * a / (a * a + b * b)),
       note="the angle of the point (b, a); both derivatives 0 at (0, 0)", aliases=("arctan2",),
       numbers="nowhere"),
    Op("hypot", np.hypot,
       da=lambda g, a, y: g * a / y,
       db=lambda g, b, y: g * b / y,
       note="NaN at (0, 0)", numbers="nowhere", refuses=("bool", "int")),
    Op("logaddexp", np.logaddexp,
       da=lambda m, g, a, b: g / (1 + m.exp(b - a)),
       db=lambda m, g, a, b: g / (1 + m.exp(a - b)),
       inplace=False, numbers="nowhere", refuses=("bool", "int")),
    Op("logaddexp2", np.logaddexp2,
       da=lambda m, g, a, b: g / (1 + m.exp2(b - a)),
       db=lambda m, g, a, b: g / (1 + m.exp2(a - b)),
       inplace=False, numbers="nowhere", refuses=("bool", "int")),
    Op("xlogy", _xlogy,
       da=lambda m, g, a, b: m.where((a == 0) & (b <= 0), 0.0, g * m.log(b)),
       db=lambda g, a, b: g * a / b,
       note="x log y, 0 where x = 0; d/dx is 0 where also y <= 0", special=("xlogy",),
       inplace_function=True),
    Op("xlog1py", _xlog1py,
       da=lambda m, g, a, b: m.where((a == 0) & (b <= -1), 0.0, g * m.log1p(b)),
       db=lambda g, a, b: g * a / (1 + b),
       note="x log(1 + y), 0 where x = 0; d/dx is 0 where also y <= -1", special=("xlog1py",),
       method=False),
    Op("copysign", np.copysign,
       da=lambda m, g, a, y: m.where(a == 0, 0.0, g * y / a),
       db=lambda m, g: m.zeros_like(g),
       note="|a| with b's sign; 0 for a at a = 0", ints="float", numbers="second"),
    Op("fmod", _fmod,
       da=lambda g: g,
       db=lambda m, g, a, b: -g * m.trunc(a / b),
       note="C's remainder: a's sign", ints="keep", numbers="second", refuses=("bool",)),
    Op("remainder", _remainder,
       da=lambda g: g,
       db=lambda m, g, a, b: -g * m.floor(a / b),
       note="Python's %: b's sign", ints="keep", dunder="__mod__",
       refuses=("bool",)),
    Op("maximum", np.maximum,
       da=lambda m, g, a, b: m.where(a == b, g / 2, g * (a > b)),
       db=lambda m, g, a, b: m.where(a == b, g / 2, g * (b > a)),
       note="a tie splits the gradient in halves", ints="keep", inplace=False, numbers="nowhere"),
    Op("minimum", np.minimum,
       da=lambda m, g, a, b: m.where(a == b, g / 2, g * (a < b)),
       db=lambda m, g, a, b: m.where(a == b, g / 2, g * (b < a)),
       note="a tie splits the gradient in halves", ints="keep", inplace=False, numbers="nowhere"),
    Op("fmax", np.fmax,
       da=lambda m, g, a, b: g * ((a >= b) | m.isnan(b)),
       db=lambda m, g, a, b: g * ~((a >= b) | m.isnan(b)),
       note="NaN loses; a tie gives a all of it", ints="keep", inplace=False, numbers="nowhere"),
    Op("fmin", np.fmin,
       da=lambda m, g, a, b: g * ((a <= b) | m.isnan(b)),
       db=lambda m, g, a, b: g * ~((a <= b) | m.isnan(b)),
       note="NaN loses; a tie gives a all of it", ints="keep", inplace=False, numbers="nowhere"),
    Op("igamma", gamma.gammainc,
       da=lambda g: not_implemented("igamma: input"),
       db=lambda m, g, a, b: g * m.exp((a - 1) * m.log(b) - b - m.lgamma(a)),
       note="P(a, x); PyTorch has no derivative in a", ints="floating", special=("gammainc",),
       numbers="nowhere"),
    Op("igammac", gamma.gammaincc,
       da=lambda g: not_implemented("igammac: input"),
       db=lambda m, g, a, b: -g * m.exp((a - 1) * m.log(b) - b - m.lgamma(a)),
       note="Q(a, x) = 1 - P(a, x); PyTorch has no derivative in a", ints="floating",
       special=("gammaincc",), numbers="nowhere"),
    Op("zeta", gamma.zeta,
       da=lambda g: not_implemented("zeta"),
       db=lambda m, g, a, b: -g * a * m.zeta(a + 1, b),
       note="Hurwitz's zeta; PyTorch has no derivative in x", special=("zeta",), method=False,
       refuses=("float16",)),
    _orthogonal_polynomial("chebyshev_polynomial_t"),
    _orthogonal_polynomial("chebyshev_polynomial_u"),
    _orthogonal_polynomial("chebyshev_polynomial_v"),
    _orthogonal_polynomial("chebyshev_polynomial_w"),
    _orthogonal_polynomial("shifted_chebyshev_polynomial_t", note=""),
    _orthogonal_polynomial("shifted_chebyshev_polynomial_u", note=""),
    _orthogonal_polynomial("shifted_chebyshev_polynomial_v", note=""),
    _orthogonal_polynomial("shifted_chebyshev_polynomial_w", note=""),
    _orthogonal_polynomial("hermite_polynomial_h"),
    _orthogonal_polynomial("hermite_polynomial_he"),
    _orthogonal_polynomial("laguerre_polynomial_l"),
    _orthogonal_polynomial("legendre_polynomial_p"),
    Op("floor_divide", _floor_divide, note="floor(a / b)", ints="keep", dunder="__floordiv__",
       numbers="both", refuses=("bool",)),
    Op("nextafter", np.nextafter,
       da=lambda g: g,
       db=lambda m, g: m.zeros_like(g),
       note="the next float after a towards b; PyTorch's gradient: g for a, 0 for b",
       numbers="nowhere", refuses=("bool", "int")),
    Op("heaviside", np.heaviside, note="0 below 0, b at 0, 1 above", ints="keep",
       numbers="nowhere", bool_as="int64 to bool",
       mixed_dtypes="heaviside is not yet implemented for tensors with different dtypes."),
    Op("gcd", np.gcd, ints="int", inplace_function=True, numbers="nowhere", refuses=("bool",)),
    Op("lcm", np.lcm, ints="int", inplace_function=True, numbers="nowhere", refuses=("bool",)),
    Op("bitwise_and", np.bitwise_and, ints="int", dunder="__and__"),
    Op("bitwise_or", np.bitwise_or, ints="int", dunder="__or__"),
    Op("bitwise_xor", np.bitwise_xor, ints="int", dunder="__xor__"),
    Op("bitwise_left_shift", np.left_shift, ints="int", dunder="__lshift__", refuses=("bool",)),
    Op("bitwise_right_shift", np.right_shift, ints="int", dunder="__rshift__",
       refuses=("bool",)),
    Op("logical_and", np.logical_and, note="a bool result", ints="keep", numbers="nowhere"),
    Op("logical_or", np.logical_or, note="a bool result", ints="keep", numbers="nowhere"),
    Op("logical_xor", np.logical_xor, note="a bool result", ints="keep", numbers="nowhere"),
    Op("eq", np.equal, note="a bool result", ints="keep", numbers="second"),
    Op("ne", np.not_equal, note="a bool result", ints="keep", aliases=("not_equal",),
       numbers="second"),
    Op("lt", np.less, note="a bool result", ints="keep", aliases=("less",), numbers="second"),
    Op("le", np.less_equal, note="a bool result", ints="keep", aliases=("less_equal",),
       numbers="second"),
    Op("gt", np.greater, note="a bool result", ints="keep", aliases=("greater",), numbers="second"),
    Op("ge", np.greater_equal, note="a bool result", ints="keep", aliases=("greater_equal",),
       numbers="second"),
)
# fmt: on

#: The entries by name.
TABLE = {op.name: op for op in UNARY + BINARY}


@functools.cache
def derivative_texts() -> dict:
    """Each entry's derivatives as this file writes them, by the entry's name, without
    the ``m.`` of their math (``{"sin": ("g * cos(x)",), ...}``): for the reference page
    and the docstrings."""
    source = Path(__file__).read_text(encoding="utf-8")
    lines = source.splitlines()

    def text(node) -> str:  # the source of ``node`` (this file is ASCII: columns are bytes)
        parts = lines[node.lineno - 1 : node.end_lineno]
        parts[-1] = parts[-1][: node.end_col_offset]
        parts[0] = parts[0][node.col_offset :]
        return " ".join(" ".join(parts).replace("m.", "").split())

    texts = {}
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "Op"
            and isinstance(node.args[0], ast.Constant)  # (a family's maker: no derivatives)
        ):
            lambdas = [k.value.body for k in node.keywords if k.arg in ("d", "da", "db")]
            texts[node.args[0].value] = tuple(text(body) for body in lambdas)
    return texts

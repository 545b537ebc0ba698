"""Elementwise operations as one table: a page of derivatives.

Each entry names an operation, its forward (a NumPy function on arrays) and, one line
per input, its derivative: the gradient that flows back to that input, written in terms
of ``g`` (the incoming gradient), the inputs (``x``, or ``a`` and ``b``) and the output
``y``. A note marks a special point and says what PyTorch (and so minigrad) does there.

Everything else is generated from this table, in one place each:

- ``functions/pointwise.py``: one ``Function`` class per entry (forward, ``backward``
  on Tensors and ``backward_array`` on arrays, both evaluating the same formula);
- ``minigrad/surface/elementwise.py``: the Tensor methods (``x.tan()``), their in-place
  variants (``x.tan_()``), the functions ``mg.tan(x)`` and ``mg.special.*``;
- ``docs/derivatives.md``: this table as a reference page (``tools/derivatives_doc.py``);
- ``tests/functions/test_opinfo.py``: each entry checked against PyTorch and by gradcheck.

Inputs: ``ints="float"`` ops turn integer and bool inputs into float32 first (as
``torch.sin`` does); ``"keep"`` ops keep the input's dtype (``abs``, ``floor``);
``"int"`` ops take integer and bool tensors only (bitwise ops), ``"floating"`` ops
floating tensors only (``igamma``, as PyTorch). An entry without
derivatives (``grads=None``) gives results that carry no gradient (rounding's
derivative is zero wherever it exists: those entries say ``zeros_like(g)``, as PyTorch).

The formulas use a few functions (``cos``, ``exp``, ``where``, ...) that mean NumPy's
in ``backward_array`` and the Tensor methods in ``backward`` (so that derivatives can
be differentiated again), and the constants below, which are Python floats so that a
float32 gradient stays float32.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from minigrad.functions import bessel
from minigrad.functions import incomplete_gamma as gamma
from minigrad.functions import orthogonal_polynomials as poly
from minigrad.functions import special_math as sm

LN2 = math.log(2.0)
LN10 = math.log(10.0)
SQRT_PI = math.sqrt(math.pi)
pi = math.pi


@dataclass(frozen=True)
class Op:
    """One elementwise operation (see the module docstring)."""

    name: str
    forward: object  # a NumPy function of the input arrays (and ``params``)
    grads: tuple | None  # one derivative formula per input; None: not differentiable
    note: str = ""  # the special points, in PyTorch's convention
    ints: str = "float"  # "float", "keep", "int", "floating" or "bool" (bool inputs only)
    params: tuple = ()  # (name, default) of non-tensor arguments after the inputs

    @property
    def arity(self) -> int:
        return 2 if self.name in _BINARY_NAMES else 1


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


# fmt: off
UNARY = (
    # name         forward          d/dx                                        note
    Op("neg",      np.negative,     ("-g",), ints="keep"),
    Op("positive", np.positive,     ("g",), ints="keep"),
    Op("abs",      np.abs,          ("g * sign(x)",),
       "0 at x = 0 (the subgradient PyTorch picks)", ints="keep"),
    Op("sign",     _sign,           ("zeros_like(g)",), "0 everywhere (a step function)",
       ints="keep"),
    Op("square",   np.square,       ("2 * g * x",), ints="keep"),
    Op("reciprocal", np.reciprocal, ("-g * y * y",), "inf at 0"),
    Op("sqrt",     np.sqrt,         ("g / (2 * y)",), "inf at 0, NaN below"),
    Op("rsqrt",    _rsqrt,          ("-0.5 * g * y * y * y",), "-inf at 0"),
    Op("exp",      np.exp,          ("g * y",)),
    Op("exp2",     np.exp2,         ("g * y * LN2",)),
    Op("expm1",    np.expm1,        ("g * (y + 1)",)),
    Op("log",      np.log,          ("g / x",), "inf at 0, NaN below"),
    Op("log2",     np.log2,         ("g / (x * LN2)",)),
    Op("log10",    np.log10,        ("g / (x * LN10)",)),
    Op("log1p",    np.log1p,        ("g / (x + 1)",)),
    Op("sin",      np.sin,          ("g * cos(x)",)),
    Op("cos",      np.cos,          ("-g * sin(x)",)),
    Op("tan",      np.tan,          ("g * (1 + y * y)",)),
    Op("asin",     np.arcsin,       ("g / sqrt(1 - x * x)",), "inf at +-1"),
    Op("acos",     np.arccos,       ("-g / sqrt(1 - x * x)",), "-inf at +-1"),
    Op("atan",     np.arctan,       ("g / (1 + x * x)",)),
    Op("sinh",     np.sinh,         ("g * cosh(x)",)),
    Op("cosh",     np.cosh,         ("g * sinh(x)",)),
    Op("tanh",     np.tanh,         ("g * (1 - y * y)",)),
    Op("asinh",    np.arcsinh,      ("g / sqrt(x * x + 1)",)),
    Op("acosh",    np.arccosh,      ("g / sqrt(x * x - 1)",), "inf at 1"),
    Op("atanh",    np.arctanh,      ("g / (1 - x * x)",), "inf at +-1"),
    Op("sigmoid",  _sigmoid,        ("g * y * (1 - y)",)),
    Op("logit",    _logit,          ("g / (x * (1 - x)) if eps is None else "
                                     "where((x < eps) | (x > 1 - eps), 0.0, g / (x * (1 - x)))",),
       "with eps: 0 outside [eps, 1 - eps], as clamping first", params=(("eps", None),)),
    Op("relu",     _relu,           ("g * (x > 0)",), "0 at x = 0", ints="keep"),
    Op("erf",      sm.erf,          ("g * (2 / SQRT_PI) * exp(-x * x)",)),
    Op("erfc",     sm.erfc,         ("-g * (2 / SQRT_PI) * exp(-x * x)",)),
    Op("erfinv",   sm.erfinv,       ("g * (SQRT_PI / 2) * exp(y * y)",), "inf at +-1"),
    Op("lgamma",   sm.lgamma,       ("g * digamma(x)",), "log |Gamma(x)|; poles at 0, -1, ..."),
    Op("digamma",  sm.digamma,      ("g * trigamma(x)",), "-inf at 0, NaN at -1, -2, ..."),
    Op("trigamma", sm.trigamma,     None, "polygamma(1, x); its own derivative is not provided"),
    Op("erfcx",    sm.erfcx,        ("g * (2 * x * y - 2 / SQRT_PI)",), "exp(x^2) erfc(x)"),
    Op("i0",       bessel.i0,       ("g * i1(x)",)),
    Op("i0e",      bessel.i0e,      ("g * (i1e(x) - sign(x) * y)",)),
    Op("i1",       bessel.i1,       ("where(x == 0, 0.5 * g, g * (i0(x) - y / x))",),
       "slope 1/2 at 0"),
    Op("i1e",      bessel.i1e,      ("where(x == 0, 0.5 * g, g * (i0e(x) - y * (sign(x) + 1/x)))",),
       "slope 1/2 at 0"),
    # PyTorch gives the functions below no derivative: their results carry no gradient
    Op("modified_bessel_i0", bessel.i0, None, "I_0, without derivative"),
    Op("modified_bessel_i1", bessel.i1, None, "I_1, without derivative"),
    Op("modified_bessel_k0", bessel.modified_bessel_k0, None, "inf at 0, NaN below"),
    Op("modified_bessel_k1", bessel.modified_bessel_k1, None, "inf at 0, NaN below"),
    Op("scaled_modified_bessel_k0", bessel.scaled_modified_bessel_k0, None, "inf at 0, NaN below"),
    Op("scaled_modified_bessel_k1", bessel.scaled_modified_bessel_k1, None, "inf at 0, NaN below"),
    Op("bessel_j0", bessel.bessel_j0, None, "NaN at +-inf"),
    Op("bessel_j1", bessel.bessel_j1, None, "NaN at +-inf"),
    Op("bessel_y0", bessel.bessel_y0, None, "-inf at 0, NaN below"),
    Op("bessel_y1", bessel.bessel_y1, None, "-inf at 0, NaN below"),
    Op("spherical_bessel_j0", bessel.spherical_bessel_j0, None),
    Op("airy_ai",  bessel.airy_ai,  None, "NaN at +-inf, as PyTorch"),
    Op("ndtr",     _ndtr,           ("g * exp(-x * x / 2) / (SQRT_PI * 2**0.5)",)),
    Op("entr",     _entr,           ("-g * (log(x) + 1)",), "-x log x; slope inf at 0, NaN below"),
    Op("sinc",     np.sinc,           ("where(x == 0, 0.0, g * (cos(pi * x) - y) / x)",),
       "sin(pi x) / (pi x); 1 and slope 0 at x = 0"),
    Op("deg2rad",  np.deg2rad,      ("g * (pi / 180)",)),
    Op("rad2deg",  np.rad2deg,      ("g * (180 / pi)",)),
    Op("floor",    np.floor,        ("zeros_like(g)",), "0 (a step function)", ints="keep"),
    Op("ceil",     np.ceil,         ("zeros_like(g)",), "0 (a step function)", ints="keep"),
    Op("trunc",    np.trunc,        ("zeros_like(g)",), "0 (a step function)", ints="keep"),
    Op("round",    np.round,        ("zeros_like(g)",), "half to even; 0 (a step function)",
       ints="keep", params=(("decimals", 0),)),
    Op("frac",     _frac,           ("g",)),
    Op("nan_to_num", _nan_to_num,   ("g * isfinite(x)",), "0 where x is NaN or +-inf",
       ints="keep", params=(("nan", 0.0), ("posinf", None), ("neginf", None))),
    Op("signbit",  np.signbit,      None, "a bool result", ints="keep"),
    Op("logical_not", np.logical_not, None, "a bool result", ints="keep"),
    Op("bitwise_not", np.invert,    None, ints="int"),
)

BINARY = (
    # name         forward          d/da                                 d/db        note
    Op("atan2",    np.arctan2,      ("where((a == 0) & (b == 0), 0.0, g * b / (a * a + b * b))",
                                     "where((a == 0) & (b == 0), 0.0, -g * a / (a * a + b * b))"),
       "the angle of the point (b, a); both derivatives 0 at (0, 0)"),
    Op("hypot",    np.hypot,        ("g * a / y", "g * b / y"), "NaN at (0, 0)"),
    Op("logaddexp", np.logaddexp,   ("g / (1 + exp(b - a))", "g / (1 + exp(a - b))")),
    Op("logaddexp2", np.logaddexp2, ("g / (1 + exp2(b - a))", "g / (1 + exp2(a - b))")),
    Op("xlogy",    _xlogy,          ("where((a == 0) & (b <= 0), 0.0, g * log(b))", "g * a / b"),
       "x log y, 0 where x = 0; d/dx is 0 where also y <= 0"),
    Op("xlog1py",  _xlog1py,        ("where((a == 0) & (b <= -1), 0.0, g * log1p(b))",
                                     "g * a / (1 + b)"),
       "x log(1 + y), 0 where x = 0; d/dx is 0 where also y <= -1"),
    Op("copysign", np.copysign,     ("where(a == 0, 0.0, g * y / a)", "zeros_like(g)"),
       "|a| with b's sign; 0 for a at a = 0", ints="float"),
    Op("fmod",     np.fmod,         ("g", "-g * trunc(a / b)"), "C's remainder: a's sign",
       ints="keep"),
    Op("remainder", np.remainder,   ("g", "-g * floor(a / b)"), "Python's %: b's sign",
       ints="keep"),
    Op("maximum",  np.maximum,      ("where(a == b, g / 2, g * (a > b))",
                                     "where(a == b, g / 2, g * (b > a))"),
       "a tie splits the gradient in halves", ints="keep"),
    Op("minimum",  np.minimum,      ("where(a == b, g / 2, g * (a < b))",
                                     "where(a == b, g / 2, g * (b < a))"),
       "a tie splits the gradient in halves", ints="keep"),
    Op("fmax",     np.fmax,         ("g * ((a >= b) | isnan(b))", "g * ~((a >= b) | isnan(b))"),
       "NaN loses; a tie gives a all of it", ints="keep"),
    Op("fmin",     np.fmin,         ("g * ((a <= b) | isnan(b))", "g * ~((a <= b) | isnan(b))"),
       "NaN loses; a tie gives a all of it", ints="keep"),
    Op("igamma",   gamma.gammainc,  ("not_implemented('igamma: input')",
                                     "g * exp((a - 1) * log(b) - b - lgamma(a))"),
       "P(a, x); PyTorch has no derivative in a", ints="floating"),
    Op("igammac",  gamma.gammaincc, ("not_implemented('igammac: input')",
                                     "-g * exp((a - 1) * log(b) - b - lgamma(a))"),
       "Q(a, x) = 1 - P(a, x); PyTorch has no derivative in a", ints="floating"),
    Op("zeta",     gamma.zeta,      ("not_implemented('zeta')", "-g * a * zeta(a + 1, b)"),
       "Hurwitz's zeta; PyTorch has no derivative in x"),
    # the orthogonal polynomials p_n(x) (a = x, b = n): no derivative in PyTorch
    Op("chebyshev_polynomial_t", poly.chebyshev_polynomial_t, None, "n < 0 gives 0"),
    Op("chebyshev_polynomial_u", poly.chebyshev_polynomial_u, None, "n < 0 gives 0"),
    Op("chebyshev_polynomial_v", poly.chebyshev_polynomial_v, None, "n < 0 gives 0"),
    Op("chebyshev_polynomial_w", poly.chebyshev_polynomial_w, None, "n < 0 gives 0"),
    Op("shifted_chebyshev_polynomial_t", poly.shifted_chebyshev_polynomial_t, None),
    Op("shifted_chebyshev_polynomial_u", poly.shifted_chebyshev_polynomial_u, None),
    Op("shifted_chebyshev_polynomial_v", poly.shifted_chebyshev_polynomial_v, None),
    Op("shifted_chebyshev_polynomial_w", poly.shifted_chebyshev_polynomial_w, None),
    Op("hermite_polynomial_h", poly.hermite_polynomial_h, None, "n < 0 gives 0"),
    Op("hermite_polynomial_he", poly.hermite_polynomial_he, None, "n < 0 gives 0"),
    Op("laguerre_polynomial_l", poly.laguerre_polynomial_l, None, "n < 0 gives 0"),
    Op("legendre_polynomial_p", poly.legendre_polynomial_p, None, "n < 0 gives 0"),
    Op("floor_divide", np.floor_divide, None, "floor(a / b)", ints="keep"),
    Op("nextafter", np.nextafter,   None),
    Op("heaviside", np.heaviside,   None, "0 below 0, b at 0, 1 above", ints="keep"),
    Op("gcd",      np.gcd,          None, ints="int"),
    Op("lcm",      np.lcm,          None, ints="int"),
    Op("bitwise_and", np.bitwise_and, None, ints="int"),
    Op("bitwise_or", np.bitwise_or, None, ints="int"),
    Op("bitwise_xor", np.bitwise_xor, None, ints="int"),
    Op("bitwise_left_shift", np.left_shift, None, ints="int"),
    Op("bitwise_right_shift", np.right_shift, None, ints="int"),
    Op("logical_and", np.logical_and, None, "a bool result", ints="keep"),
    Op("logical_or", np.logical_or, None, "a bool result", ints="keep"),
    Op("logical_xor", np.logical_xor, None, "a bool result", ints="keep"),
    Op("eq",       np.equal,        None, "a bool result", ints="keep"),
    Op("ne",       np.not_equal,    None, "a bool result", ints="keep"),
    Op("lt",       np.less,         None, "a bool result", ints="keep"),
    Op("le",       np.less_equal,   None, "a bool result", ints="keep"),
    Op("gt",       np.greater,      None, "a bool result", ints="keep"),
    Op("ge",       np.greater_equal, None, "a bool result", ints="keep"),
)
# fmt: on

_BINARY_NAMES = frozenset(op.name for op in BINARY)

#: PyTorch's other names for the same operations.
ALIASES = {
    "negative": "neg",
    "absolute": "abs",
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "arctan2": "atan2",
    "fix": "trunc",
    "sgn": "sign",
    "expit": "sigmoid",
    "gammaln": "lgamma",
    "psi": "digamma",
    "gammainc": "igamma",
    "gammaincc": "igammac",
    "greater": "gt",
    "greater_equal": "ge",
    "less": "lt",
    "less_equal": "le",
    "not_equal": "ne",
}

#: Smooth functions whose derivative minigrad does not provide: asking for a gradient
#: through them raises NotImplementedError instead of giving zero.
NO_DERIVATIVE_YET = frozenset({"trigamma"})

#: The entries by name.
TABLE = {op.name: op for op in UNARY + BINARY}

"""Special functions NumPy lacks, on arrays: erf, erfc, erfcx, erfinv, lgamma, digamma,
trigamma, log_ndtr and ndtri.

These are forwards of the elementwise table (``elementwise.py``), nothing more. Each
one is written for clarity, not speed: ``erf``, ``erfc`` and ``lgamma`` call the C
library's functions (``math.erf`` ...) element by element; ``erfinv`` refines a first
guess with Newton's method on ``erf``; ``digamma`` and ``trigamma`` use the recurrence
``psi(x) = psi(x + 1) - 1/x`` to move ``x`` above 6 and then their asymptotic series.
Results come back in the input's floating dtype.
"""

from __future__ import annotations

import math

import numpy as np

_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _lgamma_of(v: float) -> float:
    """log |Gamma(v)| of one float: NaN for NaN, +inf at the poles 0, -1, -2, ... and at
    +-inf, and +inf where it is beyond float64 (|v| near 1e308: the C library's lgamma
    raises OverflowError there)."""
    if math.isnan(v):
        return math.nan
    if math.isinf(v) or (v <= 0 and v == math.floor(v)):
        return math.inf
    try:
        return math.lgamma(v)
    except OverflowError:
        return math.inf


_lgamma = np.frompyfunc(_lgamma_of, 1, 1)


def _apply(f, x: np.ndarray) -> np.ndarray:
    """``f`` element by element in float64, returned in ``x``'s dtype."""
    out = np.asarray(f(np.asarray(x, dtype=np.float64)), dtype=np.float64)
    return out.astype(x.dtype, copy=False)


def erf(x: np.ndarray) -> np.ndarray:
    """erf(x) = 2/sqrt(pi) int_0^x exp(-t^2) dt."""
    return _apply(_erf, x)


def erfc(x: np.ndarray) -> np.ndarray:
    """erfc(x) = 1 - erf(x), without the cancellation for large x."""
    return _apply(_erfc, x)


def lgamma(x: np.ndarray) -> np.ndarray:
    """log |Gamma(x)|; +inf at the poles 0, -1, -2, ..."""
    return _apply(_lgamma, x)


def erfinv(x: np.ndarray) -> np.ndarray:
    """The inverse of erf on (-1, 1): +-inf at +-1, NaN outside [-1, 1].

    A first guess from M. Giles' single-precision approximation ("Approximating the
    erfinv function", GPU Computing Gems, 2010), then two Newton steps
    y -= (erf(y) - x) / erf'(y) in float64.
    """
    p = np.asarray(x, dtype=np.float64)
    inside = np.abs(p) < 1
    q = np.where(inside, p, 0.0)
    w = -np.log((1 - q) * (1 + q))
    central = np.polyval(_GILES_CENTRAL, w - 2.5)
    tail = np.polyval(_GILES_TAIL, np.sqrt(w) - 3)
    y = np.where(w < 5, central, tail) * q
    for _ in range(2):
        err = np.asarray(_erf(y), dtype=np.float64) - q
        y = y - err / (2 / math.sqrt(math.pi) * np.exp(-y * y))
    edge = np.where(np.abs(p) == 1, np.copysign(np.inf, p), np.nan)
    return np.where(inside, y, edge).astype(x.dtype, copy=False)


# Giles' coefficients, highest power first (for np.polyval).
_GILES_CENTRAL = [
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
]
_GILES_TAIL = [
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
]


def _shift_up(x: np.ndarray, term) -> tuple:
    """Move x above 6 with the recurrence, summing ``term(x)`` over the steps taken."""
    x = np.array(x, dtype=np.float64)
    acc = np.zeros_like(x)
    for _ in range(6):
        low = x < 6
        acc = acc + np.where(low, term(x), 0.0)
        x = np.where(low, x + 1, x)
    return x, acc


def digamma(x: np.ndarray) -> np.ndarray:
    """psi(x) = d/dx log Gamma(x); reflection psi(1-x) - pi cot(pi x) for x < 0.5.
    At the poles (0, -1, ...) -inf at 0 and NaN below, as PyTorch."""
    v = np.asarray(x, dtype=np.float64)
    reflect = v < 0.5
    w = np.where(reflect, 1 - v, v)
    with np.errstate(divide="ignore", invalid="ignore"):
        w, acc = _shift_up(w, lambda t: 1 / t)
        inv2 = 1 / (w * w)
        series = np.log(w) - 0.5 / w - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252)))
        out = series - acc
        out = np.where(reflect, out - np.pi / np.tan(np.pi * v), out)
    poles = (v <= 0) & (v == np.floor(v))
    out = np.where(poles, np.where(v == 0, -np.inf, np.nan), out)
    return out.astype(x.dtype, copy=False)


def trigamma(x: np.ndarray) -> np.ndarray:
    """psi'(x) = sum_k 1 / (x + k)^2; reflection psi'(1-x) + psi'(x) = pi^2 / sin^2(pi x)."""
    v = np.asarray(x, dtype=np.float64)
    reflect = v < 0.5
    w = np.where(reflect, 1 - v, v)
    with np.errstate(divide="ignore", invalid="ignore"):
        w, acc = _shift_up(w, lambda t: 1 / (t * t))
        inv = 1 / w
        inv2 = inv * inv
        # 1/w + 1/(2w^2) + sum_k B_2k / w^(2k+1), to B_14: above 6 the next term is 4e-13
        # of the sum (it stopped at B_6 before: 2e-8, as far off as PyTorch's own)
        tail = 1 / 30 - inv2 * (5 / 66 - inv2 * (691 / 2730 - inv2 * 7 / 6))
        series = (
            inv + inv2 / 2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 * tail)))
        )
        out = series + acc
        out = np.where(reflect, np.pi**2 / np.sin(np.pi * v) ** 2 - out, out)
    poles = (v <= 0) & (v == np.floor(v))
    out = np.where(poles, np.inf, out)
    return out.astype(x.dtype, copy=False)


_ERFCX_ASYMPTOTIC_FROM = 26.0


def erfcx(x: np.ndarray) -> np.ndarray:
    """erfcx(x) = exp(x^2) erfc(x), the scaled complementary error function.

    Below 26, the product itself, with x^2 split into an exactly representable part
    (x rounded to 24 bits, squared) and a small rest, so that exp's argument carries no
    rounding error; from 26 on (where erfc underflows), the asymptotic series
    1/(x sqrt(pi)) sum_n (-1)^n (2n-1)!! / (2x^2)^n (A & S 7.1.23).
    """
    v = np.asarray(x, dtype=np.float64)
    small = np.where(v < _ERFCX_ASYMPTOTIC_FROM, v, 0.0)
    high = small.astype(np.float32).astype(np.float64)
    low = small - high
    with np.errstate(over="ignore", invalid="ignore"):
        near = np.exp(high * high) * np.exp(low * (2 * high + low)) * erfc(small)
        large = np.where(v < _ERFCX_ASYMPTOTIC_FROM, _ERFCX_ASYMPTOTIC_FROM, v)
        inv = 1 / (2 * large * large)
        term = np.ones_like(large)
        total = term
        for n in range(1, 10):
            term = -term * (2 * n - 1) * inv
            total = total + term
        far = total / (large * math.sqrt(math.pi))
    out = np.where(v < _ERFCX_ASYMPTOTIC_FROM, near, far)
    out = np.where(v < -27, np.inf, out)  # 2 exp(x^2) overflows from -26.64 on
    return np.where(np.isnan(v), np.nan, out).astype(x.dtype, copy=False)


_SQRT_HALF = math.sqrt(0.5)


def log_ndtr(x: np.ndarray) -> np.ndarray:
    """log Phi(x), the log of the standard normal CDF, with both tails kept.

    Below 0 from the scaled complementary error function, ``log(erfcx(-x / sqrt 2) / 2)
    - x^2 / 2``, so it does not hit log(0) where Phi underflows (x below about -38:
    log_ndtr(-40) = -804.6); from 0 up as ``log1p(-erfc(x / sqrt 2) / 2)``, which keeps
    Phi's tiny distance from 1 (log_ndtr(10) = -7.6e-24, not 0)."""
    v = np.asarray(x, dtype=np.float64)
    neg = np.where(v < 0, v, 0.0)
    pos = np.where(v >= 0, v, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.log(erfcx(-neg * _SQRT_HALF) / 2) - neg * neg / 2
        upper = np.log1p(-erfc(pos * _SQRT_HALF) / 2)
    out = np.where(v < 0, lower, upper)
    return np.where(np.isnan(v), np.nan, out).astype(x.dtype, copy=False)


def ndtri(p: np.ndarray) -> np.ndarray:
    """The inverse of Phi on [0, 1] (-inf at 0, inf at 1, NaN outside), accurate in both
    tails (ndtri(1e-300) = -37.05).

    By symmetry it solves Phi(x) = q for the smaller tail q = min(p, 1 - p) (1 - p is
    exact for p > 1/2), starting from Abramowitz & Stegun 26.2.23 (error below 4.5e-4)
    and taking Newton steps on ``log_ndtr(x) = log q``, whose slope ``Phi'(x) / Phi(x) =
    sqrt(2 / pi) / erfcx(-x / sqrt 2)`` is finite in the far tail."""
    v = np.asarray(p, dtype=np.float64)
    inside = (v > 0) & (v < 1)
    q = np.where(inside, np.where(v > 0.5, 1 - v, v), 0.25)
    t = np.sqrt(-2 * np.log(q))
    x = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t)
          / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t**3))  # fmt: skip
    log_q = np.log(q)
    for _ in range(4):
        slope = math.sqrt(2 / math.pi) / erfcx(-x * _SQRT_HALF)
        x = x - (log_ndtr(x) - log_q) / slope
    x = np.where(v > 0.5, -x, np.where(v == 0.5, 0.0, x))
    edge = np.where(v == 0, -np.inf, np.where(v == 1, np.inf, np.nan))
    return np.where(inside, x, edge).astype(p.dtype, copy=False)

"""Bessel functions of order 0 and 1 on arrays: I, K (modified), J, Y, and their kin
(the spherical j_0, and Airy's Ai, a Bessel function of order 1/3).

Forwards of the elementwise table (``elementwise.py``), computed in float64 and returned
in the input's floating dtype, by these methods, each where it is accurate:

- **Power series** near 0 (Abramowitz & Stegun 9.1.10-13, 9.6.10-13):
  ``I_n(x) = sum_k (x/2)^(2k+n) / (k! (k+n)!)`` and ``J_n`` the same with alternating
  signs; ``Y_n`` and ``K_n`` add ``log(x/2)`` times ``J_n`` or ``I_n`` and a series whose
  coefficients are harmonic numbers ``H_k = 1 + 1/2 + ... + 1/k``.
- **Hankel's integral** (DLMF 10.9, 10.32.8) for J, Y and K away from 0:
  ``H_n(x) = sqrt(2 / (pi x)) e^(i(x - n pi/2 - pi/4)) N_n(x)`` with
  ``N_n(x) = 1/Gamma(n + 1/2) int_0^inf e^-t t^(n - 1/2) (1 + i t / (2x))^(n - 1/2) dt``,
  and ``K_n(x) = sqrt(pi / (2x)) e^-x`` times the same integral with ``t / (2x)`` in place
  of ``i t / (2x)``. With ``t = s^2`` the integrand is analytic and decays like
  ``e^(-s^2)``, so the trapezoidal rule converges geometrically (error about
  ``exp(-2 pi d / h)``, ``d`` the distance to the nearest singularity): 34 nodes give
  full double precision for x >= 1. Then ``J = Re H``, ``Y = Im H``.
- Airy's ``Ai`` the same way: its Maclaurin series for ``|x| <= 1``, else Hankel's
  integral of order 1/3, with ``t = s^6`` to make the integrand analytic.
- **The asymptotic series** of ``I_n`` for large x (DLMF 10.40.1):
  ``I_n(x) ~ e^x / sqrt(2 pi x) sum_k (-1)^k a_k(n) / x^k``, whose terms shrink until
  ``k ~ 2x``, so 30 terms reach double precision for x >= 25.
"""

from __future__ import annotations

import math

import numpy as np

EULER_GAMMA = 0.5772156649015329

_SERIES_TERMS = 60  # enough for (x/2)^(2k) / (k!)^2 to vanish against the sum at x = 25
_I_ASYMPTOTIC_FROM = 25.0
_HANKEL_STEP = 0.2
_HANKEL_NODES = np.arange(0.0, 6.8, _HANKEL_STEP)  # e^(-s^2) < 1e-20 beyond


def _float64(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _out(values: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``values`` in ``like``'s dtype, NaN where ``like`` is NaN."""
    with np.errstate(over="ignore"):
        values = np.where(np.isnan(like), np.nan, values)
        return values.astype(like.dtype, copy=False)


# ------------------------------------------------------------------ power series
def _series(x: np.ndarray, n: int, sign: float, weights=None) -> np.ndarray:
    """sum_k sign^k w_k (x/2)^(2k+n) / (k! (k+n)!) with w_k = 1 or a weight per k."""
    quarter = x * x / 4
    term = (x / 2) ** n / math.factorial(n)
    total = term * (1.0 if weights is None else weights(0))
    for k in range(1, _SERIES_TERMS):
        term = term * sign * quarter / (k * (k + n))
        total = total + term * (1.0 if weights is None else weights(k))
    return total


def _harmonic(k: int) -> float:
    return sum(1.0 / j for j in range(1, k + 1))


def _psi_sum(k: int) -> float:
    """psi(k + 1) + psi(k + 2), psi(m + 1) = H_m - gamma."""
    return _harmonic(k) + _harmonic(k + 1) - 2 * EULER_GAMMA


# ------------------------------------------------------------------ Hankel's integral
def _hankel(n: int, c) -> np.ndarray:
    """N_n: 1/Gamma(n + 1/2) int_0^inf e^-t t^(n-1/2) (1 + c t)^(n-1/2) dt, with t = s^2
    (so 2 s^(2n) e^(-s^2) (1 + c s^2)^(n-1/2) ds), by the trapezoidal rule."""
    total = 0.0
    for j, s in enumerate(_HANKEL_NODES):
        weight = (0.5 if j == 0 else 1.0) * math.exp(-s * s) * s ** (2 * n)
        root = np.sqrt(1 + c * (s * s))  # (1 + c s^2)^(n - 1/2) for n = 0 or 1
        total = total + weight * (root if n == 1 else 1 / root)
    return total * 2 * _HANKEL_STEP / math.gamma(n + 0.5)


def _hankel_jy(n: int, x: np.ndarray) -> tuple:
    """(J_n(x), Y_n(x)) for x > 0 from Hankel's integral."""
    with np.errstate(all="ignore"):
        big = _hankel(n, 1j / (2 * x))
        chi = x - (2 * n + 1) * (math.pi / 4)
        amplitude = np.sqrt(2 / (math.pi * x))
        cos, sin = np.cos(chi), np.sin(chi)
        return amplitude * (big.real * cos - big.imag * sin), amplitude * (
            big.real * sin + big.imag * cos
        )


def _k_scaled_large(n: int, x: np.ndarray) -> np.ndarray:
    """e^x K_n(x) for x >= 1 from Hankel's integral."""
    return np.sqrt(math.pi / (2 * x)) * _hankel(n, 1 / (2 * x))


# ------------------------------------------------------------------ I_0, I_1
def _i_scaled(n: int, x: np.ndarray) -> np.ndarray:
    """e^-|x| I_n(x): the series near 0, the asymptotic series for |x| >= 25."""
    ax = np.abs(x)
    small = np.where(ax < _I_ASYMPTOTIC_FROM, ax, 0.0)
    near = _series(small, n, 1.0) * np.exp(-small)
    large = np.where(ax < _I_ASYMPTOTIC_FROM, _I_ASYMPTOTIC_FROM, ax)
    mu = 4.0 * n * n
    term = np.ones_like(large)
    total = term
    for k in range(1, 30):
        term = term * -(mu - (2 * k - 1) ** 2) / (8 * k * large)
        total = total + term
    far = total / np.sqrt(2 * math.pi * large)
    out = np.where(ax < _I_ASYMPTOTIC_FROM, near, far)
    out = np.where(np.isinf(x), 0.0, out)
    return out if n == 0 else np.copysign(out, x)


def _i_unscaled(n: int, x: np.ndarray) -> np.ndarray:
    """I_n(x) = e^|x| (e^-|x| I_n(x)); inf once e^|x| overflows, NaN at +-inf (PyTorch)."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.exp(np.abs(x)) * _i_scaled(n, x)
    return np.where(np.isinf(x), np.nan, out)


def i0(x: np.ndarray) -> np.ndarray:
    """I_0(x) = sum_k (x/2)^(2k) / (k!)^2"""
    return _out(_i_unscaled(0, _float64(x)), x)


def i1(x: np.ndarray) -> np.ndarray:
    """I_1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!)"""
    return _out(_i_unscaled(1, _float64(x)), x)


def i0e(x: np.ndarray) -> np.ndarray:
    """e^-|x| I_0(x)"""
    return _out(_i_scaled(0, _float64(x)), x)


def i1e(x: np.ndarray) -> np.ndarray:
    """e^-|x| I_1(x)"""
    return _out(_i_scaled(1, _float64(x)), x)


# ------------------------------------------------------------------ K_0, K_1
def _k_scaled(n: int, x: np.ndarray) -> np.ndarray:
    """e^x K_n(x) for x > 0: the log series below 1, Hankel's integral above;
    inf at 0, 0 at +inf, NaN below 0."""
    small = np.where((x > 0) & (x < 1), x, 0.5)
    log_half = np.log(small / 2)
    if n == 0:
        series = -(log_half + EULER_GAMMA) * _series(small, 0, 1.0)
        series = series + _series(small, 0, 1.0, _harmonic)
    else:
        series = 1 / small + log_half * _series(small, 1, 1.0)
        series = series - _series(small, 1, 1.0, _psi_sum) / 2
    large = np.where(x >= 1, x, 1.0)
    out = np.where(x < 1, series * np.exp(small), _k_scaled_large(n, large))
    out = np.where(x == 0, np.inf, np.where(np.isposinf(x), 0.0, out))
    return np.where((x < 0) | np.isnan(x), np.nan, out)


def modified_bessel_k0(x: np.ndarray) -> np.ndarray:
    """K_0(x), x > 0"""
    v = _float64(x)
    with np.errstate(all="ignore"):
        return _out(_k_scaled(0, v) * np.exp(-v), x)


def modified_bessel_k1(x: np.ndarray) -> np.ndarray:
    """K_1(x), x > 0"""
    v = _float64(x)
    with np.errstate(all="ignore"):
        return _out(_k_scaled(1, v) * np.exp(-v), x)


def scaled_modified_bessel_k0(x: np.ndarray) -> np.ndarray:
    """e^x K_0(x), x > 0"""
    with np.errstate(all="ignore"):
        return _out(_k_scaled(0, _float64(x)), x)


def scaled_modified_bessel_k1(x: np.ndarray) -> np.ndarray:
    """e^x K_1(x), x > 0"""
    with np.errstate(all="ignore"):
        return _out(_k_scaled(1, _float64(x)), x)


# ------------------------------------------------------------------ J_0, J_1, Y_0, Y_1
_JY_SERIES_BELOW = 2.0


def _jy(n: int, x: np.ndarray) -> tuple:
    """(J_n(|x|), Y_n(|x|)): the series below 2, Hankel's integral above."""
    ax = np.abs(x)
    small = np.where((ax > 0) & (ax < _JY_SERIES_BELOW), ax, 1.0)
    j_small = _series(small, n, -1.0)
    log_half = np.log(small / 2)
    if n == 0:
        y_small = (2 / math.pi) * (log_half + EULER_GAMMA) * j_small
        y_small = y_small - (2 / math.pi) * _series(small, 0, -1.0, _harmonic)
    else:
        y_small = -2 / (math.pi * small) + (2 / math.pi) * log_half * j_small
        y_small = y_small - _series(small, 1, -1.0, _psi_sum) / math.pi
    large = np.where(ax >= _JY_SERIES_BELOW, ax, _JY_SERIES_BELOW)
    j_large, y_large = _hankel_jy(n, large)
    use_series = ax < _JY_SERIES_BELOW
    return np.where(use_series, j_small, j_large), np.where(use_series, y_small, y_large)


def bessel_j0(x: np.ndarray) -> np.ndarray:
    """J_0(x) = sum_k (-1)^k (x/2)^(2k) / (k!)^2"""
    v = _float64(x)
    with np.errstate(all="ignore"):
        j, _ = _jy(0, v)
    j = np.where(v == 0, 1.0, j)
    return _out(np.where(np.isinf(v), np.nan, j), x)


def bessel_j1(x: np.ndarray) -> np.ndarray:
    """J_1(x) = sum_k (-1)^k (x/2)^(2k+1) / (k! (k+1)!)"""
    v = _float64(x)
    with np.errstate(all="ignore"):
        j, _ = _jy(1, v)
    j = np.where(v == 0, 0.0, np.where(v < 0, -j, j))  # J_1 is odd
    return _out(np.where(np.isinf(v), np.nan, j), x)


def _bessel_y(n: int, x: np.ndarray) -> np.ndarray:
    v = _float64(x)
    with np.errstate(all="ignore"):
        _, y = _jy(n, v)
    y = np.where(v == 0, -np.inf, y)
    return _out(np.where((v < 0) | np.isinf(v), np.nan, y), x)


def bessel_y0(x: np.ndarray) -> np.ndarray:
    """Y_0(x), x > 0: the Bessel function of the second kind"""
    return _bessel_y(0, x)


def bessel_y1(x: np.ndarray) -> np.ndarray:
    """Y_1(x), x > 0: the Bessel function of the second kind"""
    return _bessel_y(1, x)


def spherical_bessel_j0(x: np.ndarray) -> np.ndarray:
    """j_0(x) = sin(x) / x; 1 at 0, 0 at +-inf"""
    v = _float64(x)
    with np.errstate(all="ignore"):
        out = np.where(v == 0, 1.0, np.sin(v) / v)
    return _out(np.where(np.isinf(v), 0.0, out), x)


# ------------------------------------------------------------------ Airy's Ai
_AI_0 = 0.3550280538878172  # Ai(0) = 1 / (3^(2/3) Gamma(2/3))
_AI_PRIME_0 = -0.2588194037928068  # Ai'(0) = -1 / (3^(1/3) Gamma(1/3))
_AIRY_STEP = 0.04
_AIRY_NODES = np.arange(_AIRY_STEP, 2.2, _AIRY_STEP)  # e^(-s^6) < 1e-45 beyond


def _airy_series(x: np.ndarray) -> np.ndarray:
    """Ai(x) = Ai(0) f(x) + Ai'(0) g(x) with f = 1 + x^3/(2 3) + x^6/(2 3 5 6) + ... and
    g = x + x^4/(3 4) + x^7/(3 4 6 7) + ... (A & S 10.4.2-3), for |x| <= 1."""
    cube = x * x * x
    f_term, g_term = np.ones_like(x), x
    f, g = f_term, g_term
    for k in range(1, 20):
        f_term = f_term * cube / ((3 * k - 1) * (3 * k))
        g_term = g_term * cube / ((3 * k) * (3 * k + 1))
        f, g = f + f_term, g + g_term
    return _AI_0 * f + _AI_PRIME_0 * g


def _airy_hankel(c) -> np.ndarray:
    """N_(1/3): 1/Gamma(5/6) int_0^inf e^-t t^(-1/6) (1 + c t)^(-1/6) dt, with t = s^6
    (so 6 s^4 e^(-s^6) (1 + c s^6)^(-1/6) ds, analytic in s), by the trapezoidal rule."""
    total = 0.0
    for s in _AIRY_NODES:
        total = total + 6 * s**4 * math.exp(-(s**6)) * (1 + c * s**6) ** (-1 / 6)
    return total * _AIRY_STEP / math.gamma(5 / 6)


def airy_ai(x: np.ndarray) -> np.ndarray:
    """Ai(x), the solution of y'' = x y that decays as x -> inf; NaN at +-inf (PyTorch)"""
    v = _float64(x)
    with np.errstate(all="ignore"):
        ax = np.where(np.abs(v) > 1, np.abs(v), 2.0)
        zeta = 2 / 3 * ax**1.5
        # DLMF 9.6.1 and 9.6.6 with Hankel's integral for K_(1/3) and H_(1/3):
        # Ai(x) = sqrt(x/3) K_(1/3)(zeta) / pi,  Ai(-x) = sqrt(x/3) Re(e^(i pi/6) H_(1/3)(zeta))
        right = np.sqrt(ax / 3) / math.pi * np.sqrt(math.pi / (2 * zeta)) * np.exp(-zeta)
        right = right * _airy_hankel(1 / (2 * zeta))
        wave = np.exp(1j * (zeta - math.pi / 4)) * _airy_hankel(1j / (2 * zeta))
        left = np.sqrt(ax / 3) * np.sqrt(2 / (math.pi * zeta)) * wave.real
        near = _airy_series(np.where(np.abs(v) <= 1, v, 0.0))
        out = np.where(np.abs(v) <= 1, near, np.where(v > 0, right, left))
    return _out(np.where(np.isinf(v), np.nan, out), x)

"""The regularized incomplete gamma functions and Hurwitz's zeta function, on arrays.

Forwards of the elementwise table (``elementwise.py``), computed in float64:

- ``gammainc(a, x) = P(a, x) = 1/Gamma(a) int_0^x t^(a-1) e^-t dt`` and
  ``gammaincc(a, x) = Q(a, x) = 1 - P(a, x)``. Below ``x = a + 1`` the series
  ``P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a+1) ... (a+n))`` (A & S 6.5.29),
  above it Legendre's continued fraction
  ``Q = x^a e^-x / Gamma(a) 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...)))``
  (A & S 6.5.31), evaluated by the modified Lentz method; each gives the other as
  its complement. PyTorch's conventions: NaN for a < 0 or x < 0 and at (0, 0);
  P(0, x) = 1 for x > 0, P(a, 0) = 0, P(inf, x) = 0, P(a, inf) = 1.
- ``zeta(x, q) = sum_(k >= 0) (q + k)^-x``: the first terms summed (at least 9, and
  until ``q + k >= 9``),
  the rest by the Euler-Maclaurin formula with Bernoulli numbers B_2 ... B_24.
  inf at x = 1 and at q = 0, -1, -2, ...; NaN for x < 1 and, as in PyTorch, at
  x = inf for q > 1.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.functions import special_math as sm

_TINY = 1e-300
_EPS = 1e-16
_MAX_ITERATIONS = 5000


def _log_prefactor(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """log(x^a e^-x / Gamma(a)): the factor both expansions share."""
    return a * np.log(x) - x - sm.lgamma(a)


def _series_p(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) = x^a e^-x / Gamma(a+1) sum_n x^n / ((a+1) ... (a+n))."""
    term = 1 / a
    total = term
    for n in range(1, _MAX_ITERATIONS):
        term = term * x / (a + n)
        total = total + term
        if np.all(np.abs(term) <= np.abs(total) * _EPS):
            break
    return total * np.exp(_log_prefactor(a, x))


def _fraction_q(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q(a, x) by Legendre's continued fraction (modified Lentz)."""
    b = x + 1 - a
    c = np.full_like(x, 1 / _TINY)
    d = 1 / np.where(b == 0, _TINY, b)
    f = d
    for n in range(1, _MAX_ITERATIONS):
        an = -n * (n - a)
        b = b + 2
        d = an * d + b
        d = 1 / np.where(d == 0, _TINY, d)
        c = b + an / np.where(c == 0, _TINY, c)
        delta = c * d
        f = f * delta
        if np.all(np.abs(delta - 1) <= _EPS):
            break
    return f * np.exp(_log_prefactor(a, x))


def _p_and_q(a, x) -> tuple:
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    interior = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    use_series = interior & (x < a + 1)
    use_fraction = interior & ~use_series
    p = np.zeros(a.shape)
    q = np.zeros(a.shape)
    if use_series.any():
        p[use_series] = _series_p(a[use_series], x[use_series])
        q[use_series] = 1 - p[use_series]
    if use_fraction.any():
        q[use_fraction] = _fraction_q(a[use_fraction], x[use_fraction])
        p[use_fraction] = 1 - q[use_fraction]
    # the edges, in PyTorch's convention
    p_edge = np.where((x == 0) | np.isposinf(a), 0.0, 1.0)  # P(a, 0) = 0, P(inf, x) = 0
    invalid = (a < 0) | (x < 0) | np.isnan(x) | (np.isnan(a) & (x != 0))
    invalid = invalid | ((a == 0) & (x == 0)) | (np.isinf(a) & np.isinf(x))
    p = np.where(interior, p, np.where(invalid, np.nan, p_edge))
    q = np.where(interior, q, np.where(invalid, np.nan, 1 - p_edge))
    return p, q


def gammainc(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) = 1/Gamma(a) int_0^x t^(a-1) e^-t dt, the regularized lower incomplete gamma"""
    return _p_and_q(a, x)[0].astype(np.result_type(a, x), copy=False)


def gammaincc(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma"""
    return _p_and_q(a, x)[1].astype(np.result_type(a, x), copy=False)


# B_2, B_4, ..., B_24 (the Bernoulli numbers the Euler-Maclaurin remainder uses)
_BERNOULLI = (
    1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
    43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730,
)  # fmt: skip
_SHIFT_TO = 9.0


def zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """zeta(x, q) = sum_(k >= 0) (q + k)^-x, Hurwitz's zeta function"""
    s, a = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(q, dtype=np.float64))
    finite = np.isfinite(s) & np.isfinite(a) & (s > 1)
    s_ok = np.where(finite, s, 2.0)
    a_ok = np.where(finite, a, 1.0)
    # sum the first terms directly: at least 9 of them, and until q + k >= 9
    shifts = np.maximum(np.ceil(_SHIFT_TO - a_ok), _SHIFT_TO)
    total = np.zeros(s.shape)
    for k in range(int(shifts.max(initial=0))):
        total = total + np.where(k < shifts, (a_ok + k) ** -s_ok, 0.0)
    big = a_ok + shifts  # >= 9
    # Euler-Maclaurin: int_big^inf t^-s dt + f(big) / 2 - sum_j B_2j / (2j)! f^(2j-1)(big)
    total = total + big ** (1 - s_ok) / (s_ok - 1) + big**-s_ok / 2
    rising = s_ok * big ** (-s_ok - 1)  # s (s+1) ... (s+2j-2) big^(-s-2j+1) at j = 1
    for j, bernoulli in enumerate(_BERNOULLI, start=1):
        total = total + bernoulli / math.factorial(2 * j) * rising
        rising = rising * (s_ok + 2 * j - 1) * (s_ok + 2 * j) / (big * big)
    out = np.where(finite, total, np.nan)
    pole = (a <= 0) & (a == np.floor(a))  # a term (q + k)^-x is 1/0
    out = np.where(((s == 1) & ~np.isnan(a)) | (finite & pole), np.inf, out)
    # x = inf, as PyTorch: 1 at q = 1, inf below, NaN above (where the limit is 0)
    at_inf = np.where(a == 1, 1.0, np.where(a < 1, np.inf, np.nan))
    out = np.where(np.isposinf(s), at_inf, out)
    return out.astype(np.result_type(x, q), copy=False)

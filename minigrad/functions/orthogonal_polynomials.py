"""The classical orthogonal polynomials of ``torch.special``, by their three-term recurrences.

Each polynomial family starts from ``p_0 = 1`` and its ``p_1`` and climbs with
``p_(k+1) = (A_k x + B_k) p_k - C_k p_(k-1)`` (Abramowitz & Stegun 22.7) up to the degree
``n`` asked for, element by element. PyTorch's conventions for the degree: it is
truncated toward zero (``n = 2.5`` gives ``p_2``), and a negative or NaN degree gives 0.
The shifted Chebyshev polynomials are the plain ones at ``2x - 1`` (A & S 22.5.11-14).
On (-1, 1) the Chebyshev polynomials of degree above 6 come from their trigonometric
closed forms instead, as in PyTorch (the same values, without a loop over the degree).

These are forwards of the elementwise table (``elementwise.py``): ``f(x, n)`` on arrays of
one floating dtype.
"""

from __future__ import annotations

import numpy as np


def _degree(n: np.ndarray) -> np.ndarray:
    """PyTorch's degree: n truncated toward zero (so -0.5 is degree 0); -1 (the
    polynomial is 0) for a degree below 0, or NaN / infinite n."""
    degree = np.trunc(np.where(np.isfinite(n), n, -1))
    return np.where(degree < 0, -1, degree)


def _recurrence(x: np.ndarray, n: np.ndarray, first, step, closed=None) -> np.ndarray:
    """p_n(x) from p_0 = 1, p_1 = first(x), p_(k+1) = step(k, x, p_k, p_(k-1)).

    ``closed(x, degree)``, if given, is the closed form the Chebyshev families have on
    (-1, 1); it replaces the recurrence there above degree 6 (as in PyTorch), so that a
    high degree costs no loop of that length."""
    x, n = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(n, dtype=np.float64))
    degree = _degree(n)
    use_closed = np.zeros(x.shape, dtype=bool)
    if closed is not None:
        use_closed = (np.abs(x) < 1) & (degree > 6)
    climbing = np.where(use_closed, -1, degree)
    out = np.where(climbing == 0, 1.0, 0.0)
    previous, current = np.ones_like(x), first(x)
    out = np.where(climbing == 1, current, out)
    for k in range(1, int(climbing.max(initial=0))):
        previous, current = current, step(k, x, current, previous)
        out = np.where(climbing == k + 1, current, out)
        pending = climbing > k + 1
        if not np.isfinite(current[pending]).any() and np.isnan(current[pending]).all():
            out = np.where(pending, np.nan, out)  # NaN stays NaN: nothing left to climb
            break
    if closed is not None:
        with np.errstate(all="ignore"):
            out = np.where(use_closed, closed(np.where(use_closed, x, 0.5), degree), out)
    return out


def _chebyshev_step(k, x, p, q):
    return 2 * x * p - q


def _result(out: np.ndarray, like: np.ndarray) -> np.ndarray:
    return out.astype(np.result_type(like, np.float32) if like.dtype.kind == "f" else out.dtype)


# On (-1, 1), with x = cos(theta) (A & S 22.3.15-16; Mason & Handscomb 1.2):
# T_n = cos(n theta), U_n = sin((n+1) theta) / sin(theta),
# V_n = cos((n+1/2) theta) / cos(theta/2), W_n = sin((n+1/2) theta) / sin(theta/2).
def _t_closed(x, n):
    return np.cos(n * np.arccos(x))


def _u_closed(x, n):
    theta = np.arccos(x)
    return np.sin((n + 1) * theta) / np.sin(theta)


def _v_closed(x, n):
    theta = np.arccos(x)
    return np.cos((n + 0.5) * theta) / np.cos(theta / 2)


def _w_closed(x, n):
    theta = np.arccos(x)
    return np.sin((n + 0.5) * theta) / np.sin(theta / 2)


def chebyshev_polynomial_t(x, n):
    """T_n(x): T_0 = 1, T_1 = x, T_(k+1) = 2x T_k - T_(k-1)"""
    return _result(_recurrence(x, n, lambda v: v, _chebyshev_step, _t_closed), x)


def chebyshev_polynomial_u(x, n):
    """U_n(x): U_0 = 1, U_1 = 2x, U_(k+1) = 2x U_k - U_(k-1)"""
    return _result(_recurrence(x, n, lambda v: 2 * v, _chebyshev_step, _u_closed), x)


def chebyshev_polynomial_v(x, n):
    """V_n(x): V_0 = 1, V_1 = 2x - 1, V_(k+1) = 2x V_k - V_(k-1)"""
    return _result(_recurrence(x, n, lambda v: 2 * v - 1, _chebyshev_step, _v_closed), x)


def chebyshev_polynomial_w(x, n):
    """W_n(x): W_0 = 1, W_1 = 2x + 1, W_(k+1) = 2x W_k - W_(k-1)"""
    return _result(_recurrence(x, n, lambda v: 2 * v + 1, _chebyshev_step, _w_closed), x)


def shifted_chebyshev_polynomial_t(x, n):
    """T_n(2x - 1)"""
    return chebyshev_polynomial_t(2 * np.asarray(x) - 1, n)


def shifted_chebyshev_polynomial_u(x, n):
    """U_n(2x - 1)"""
    return chebyshev_polynomial_u(2 * np.asarray(x) - 1, n)


def shifted_chebyshev_polynomial_v(x, n):
    """V_n(2x - 1)"""
    return chebyshev_polynomial_v(2 * np.asarray(x) - 1, n)


def shifted_chebyshev_polynomial_w(x, n):
    """W_n(2x - 1)"""
    return chebyshev_polynomial_w(2 * np.asarray(x) - 1, n)


def hermite_polynomial_h(x, n):
    """H_n(x) (physicists'): H_0 = 1, H_1 = 2x, H_(k+1) = 2x H_k - 2k H_(k-1)"""
    return _result(_recurrence(x, n, lambda v: 2 * v, lambda k, v, p, q: 2 * v * p - 2 * k * q), x)


def hermite_polynomial_he(x, n):
    """He_n(x) (probabilists'): He_0 = 1, He_1 = x, He_(k+1) = x He_k - k He_(k-1)"""
    return _result(_recurrence(x, n, lambda v: v, lambda k, v, p, q: v * p - k * q), x)


def laguerre_polynomial_l(x, n):
    """L_n(x): L_0 = 1, L_1 = 1 - x, (k+1) L_(k+1) = (2k + 1 - x) L_k - k L_(k-1)"""

    def step(k, v, p, q):
        return ((2 * k + 1 - v) * p - k * q) / (k + 1)

    return _result(_recurrence(x, n, lambda v: 1 - v, step), x)


def legendre_polynomial_p(x, n):
    """P_n(x): P_0 = 1, P_1 = x, (k+1) P_(k+1) = (2k + 1) x P_k - k P_(k-1)"""

    def step(k, v, p, q):
        return ((2 * k + 1) * v * p - k * q) / (k + 1)

    return _result(_recurrence(x, n, lambda v: v, step), x)

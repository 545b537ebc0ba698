"""The classical orthogonal polynomials of ``torch.special``, by their three-term recurrences.

Each polynomial family starts from ``p_0 = 1`` and its ``p_1`` and climbs with
``p_(k+1) = (A_k x + B_k) p_k - C_k p_(k-1)`` (Abramowitz & Stegun 22.7) up to the degree
``n`` asked for, element by element. PyTorch's conventions for the degree: it is
truncated toward zero (``n = 2.5`` gives ``p_2``), and a negative or NaN degree gives 0.
The shifted Chebyshev polynomials are the plain ones at ``2x - 1`` (A & S 22.5.11-14).

These are forwards of the elementwise table (``elementwise.py``): ``f(x, n)`` on arrays of
one floating dtype.
"""

from __future__ import annotations

import numpy as np


def _recurrence(x: np.ndarray, n: np.ndarray, first, step) -> np.ndarray:
    """p_n(x) from p_0 = 1, p_1 = first(x), p_(k+1) = step(k, x, p_k, p_(k-1))."""
    x, n = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(n, dtype=np.float64))
    degree = np.where(np.isfinite(n) & (n >= 0), np.trunc(np.where(np.isfinite(n), n, 0)), -1)
    out = np.where(degree == 0, 1.0, 0.0)
    previous, current = np.ones_like(x), first(x)
    out = np.where(degree == 1, current, out)
    top = int(degree.max(initial=0))
    for k in range(1, top):
        previous, current = current, step(k, x, current, previous)
        out = np.where(degree == k + 1, current, out)
    return out


def _chebyshev_step(k, x, p, q):
    return 2 * x * p - q


def _result(out: np.ndarray, like: np.ndarray) -> np.ndarray:
    return out.astype(np.result_type(like, np.float32) if like.dtype.kind == "f" else out.dtype)


def chebyshev_polynomial_t(x, n):
    """T_n(x): T_0 = 1, T_1 = x, T_(k+1) = 2x T_k - T_(k-1)"""
    return _result(_recurrence(x, n, lambda v: v, _chebyshev_step), x)


def chebyshev_polynomial_u(x, n):
    """U_n(x): U_0 = 1, U_1 = 2x, U_(k+1) = 2x U_k - U_(k-1)"""
    return _result(_recurrence(x, n, lambda v: 2 * v, _chebyshev_step), x)


def chebyshev_polynomial_v(x, n):
    """V_n(x): V_0 = 1, V_1 = 2x - 1, V_(k+1) = 2x V_k - V_(k-1)"""
    return _result(_recurrence(x, n, lambda v: 2 * v - 1, _chebyshev_step), x)


def chebyshev_polynomial_w(x, n):
    """W_n(x): W_0 = 1, W_1 = 2x + 1, W_(k+1) = 2x W_k - W_(k-1)"""
    return _result(_recurrence(x, n, lambda v: 2 * v + 1, _chebyshev_step), x)


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

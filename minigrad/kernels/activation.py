"""Numba kernels for the pointwise activations whose math NumPy lacks or does slowly.

Exact GELU needs ``erf``, which NumPy does not have; SiLU done in NumPy takes five
passes over memory (a stable sigmoid is ``exp``, ``abs``, ``where``, a division, a
product). Each kernel here is one parallel pass over a flat, C-contiguous array.

The ``*_fwd_bwd`` kernels write the output and its derivative ``dy/dx`` in the same
pass (the derivative shares the expensive ``erf`` / ``exp`` with the output), so the
backward pass is one multiplication ``dx = dy * dy/dx``.

Arithmetic runs in float64 for both float32 and float64 arrays (``math.erf`` and
``math.exp`` in double, rounded once on the store), so float32 results are correctly
rounded in almost every element and float64 results are accurate to a few ulp.

Formulas (Phi is the standard normal CDF, phi its density):
    gelu(x)       = x Phi(x),  Phi(x) = (1 + erf(x / sqrt 2)) / 2
    gelu'(x)      = Phi(x) + x phi(x),  phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
    gelu_tanh(x)  = x (1 + tanh(u)) / 2,  u = sqrt(2/pi) (x + 0.044715 x^3)
    gelu_tanh'(x) = (1 + t) / 2 + x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2) / 2, t = tanh u
    silu(x)       = x s,  s = 1 / (1 + exp(-x))
    silu'(x)      = s (1 + x (1 - s))
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

_SIGS_1 = ["void(float32[::1], float32[::1])", "void(float64[::1], float64[::1])"]
_SIGS_2 = [
    "void(float32[::1], float32[::1], float32[::1])",
    "void(float64[::1], float64[::1], float64[::1])",
]
_SIGS_ERF = _SIGS_1

_INV_SQRT2 = 0.7071067811865476  # 1 / sqrt(2)
_INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi)
_SQRT_2_OVER_PI = 0.7978845608028654  # sqrt(2 / pi)
_GELU_C = 0.044715


@nb.njit(_SIGS_ERF, parallel=True, cache=True)
def erf(x, out):
    for i in nb.prange(x.size):
        out[i] = math.erf(np.float64(x[i]))


@nb.njit(_SIGS_1, parallel=True, cache=True)
def gelu_fwd(x, out):
    for i in nb.prange(x.size):
        v = np.float64(x[i])
        out[i] = 0.5 * v * (1.0 + math.erf(v * _INV_SQRT2))


@nb.njit(_SIGS_2, parallel=True, cache=True)
def gelu_fwd_bwd(x, out, dydx):
    for i in nb.prange(x.size):
        v = np.float64(x[i])
        cdf = 0.5 * (1.0 + math.erf(v * _INV_SQRT2))
        out[i] = v * cdf
        dydx[i] = cdf + v * _INV_SQRT_2PI * math.exp(-0.5 * v * v)


@nb.njit(_SIGS_1, parallel=True, cache=True)
def gelu_tanh_fwd(x, out):
    for i in nb.prange(x.size):
        v = np.float64(x[i])
        t = math.tanh(_SQRT_2_OVER_PI * (v + _GELU_C * v * v * v))
        out[i] = 0.5 * v * (1.0 + t)


@nb.njit(_SIGS_2, parallel=True, cache=True)
def gelu_tanh_fwd_bwd(x, out, dydx):
    for i in nb.prange(x.size):
        v = np.float64(x[i])
        t = math.tanh(_SQRT_2_OVER_PI * (v + _GELU_C * v * v * v))
        out[i] = 0.5 * v * (1.0 + t)
        du = _SQRT_2_OVER_PI * (1.0 + 3.0 * _GELU_C * v * v)
        dydx[i] = 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * du


@nb.njit(_SIGS_1, parallel=True, cache=True)
def silu_fwd(x, out):
    for i in nb.prange(x.size):
        v = np.float64(x[i])
        out[i] = v / (1.0 + math.exp(-v))


@nb.njit(_SIGS_2, parallel=True, cache=True)
def silu_fwd_bwd(x, out, dydx):
    for i in nb.prange(x.size):
        v = np.float64(x[i])
        s = 1.0 / (1.0 + math.exp(-v))
        out[i] = v * s
        dydx[i] = s * (1.0 + v * (1.0 - s))

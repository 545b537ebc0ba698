"""Numba kernels for the pointwise activations whose math NumPy lacks or does slowly.

Exact GELU needs ``erf``, which NumPy does not have; SiLU done in NumPy takes five
passes over memory (a stable sigmoid is ``exp``, ``abs``, ``where``, a division, a
product). Each kernel here is one pass over a flat, C-contiguous array.

Each kernel ``op(x, out, dydx)`` writes the output and, unless ``dydx`` is empty, its
derivative ``dy/dx`` in the same pass (the derivative shares the expensive exponential
with the output), so the backward pass is one multiplication ``dx = dy * dy/dx``
(``mul``, below).

Formulas (Phi is the standard normal CDF, phi its density):
    gelu(x)       = x Phi(x),  Phi(x) = (1 + erf(x / sqrt 2)) / 2
    gelu'(x)      = Phi(x) + x phi(x),  phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
    gelu_tanh(x)  = x (1 + tanh u) / 2 = x sigmoid(2u),  u = sqrt(2/pi) (x + 0.044715 x^3)
    gelu_tanh'(x) = s + 2 x s (1 - s) sqrt(2/pi) (1 + 3 * 0.044715 x^2),  s = sigmoid(2u)
    silu(x)       = x s,  s = 1 / (1 + exp(-x))
    silu'(x)      = s (1 + x (1 - s))

Two implementations, by dtype.

float64 (``gelu64``, ``gelu_tanh64``, ``silu64``): ``math.erfc`` / ``math.exp`` from the
C library, accurate to a few ulp everywhere: Phi(x) = erfc(-x / sqrt 2) / 2 and the
sigmoid forms avoid the cancellation of ``1 + erf(x)`` or ``1 + tanh(u)`` for x << 0.
These calls cannot be vectorised.

float32 (``gelu32``, ``gelu_tanh32``, ``silu32``): the same functions from arithmetic
alone, in float32 lanes, so that LLVM vectorises the loop 8 wide (AVX2): about 5x the
speed of the libm forms, for about 3 ulps of accuracy (the measurements of speed and
accuracy are in ``docs/benchmarks.md``, "Kernel measurements").

Building blocks, each a plain float32 computation:
  * exp(t) for -174 < t <= 0 as ``p * s1 * s2``: p = exp(r) and the reduction
    t = k ln2 + r from ``fast_exp.py``, and 2^k = s1 * s2, each factor built from its
    exponent bits, so a result down to 2^-149 (float32 subnormals) comes out of the last
    product rounded once, and nothing overflows the exponent field.
  * ``_mills(a)`` = Phi(-a) / phi(a) (Mills' ratio) for 0 <= a <= 15, as
    D(a) / (a D(a) + N(a)) with N, D of degrees 4 and 5, all coefficients positive (so
    Horner's rule suffers no cancellation), fitted for relative error (iterated weighted
    least squares with Lawson's minimax weights). For large a, m ~ D / (a D) = 1/a: D's
    rounding errors cancel.
  * GELU: Phi(-|x|) = phi(x) m(|x|) needs no ``1 + erf`` (which loses all accuracy below
    x = -4), and x Phi(x) = x - |x| Phi(-|x|) for x >= 0. The 1 / sqrt(2 pi) of phi is
    folded into the exp polynomial. x^2 is split exactly into ``sq + sq_lo`` with an
    FMA: exp(-x^2 / 2) turns an error in x^2 into a relative error x^2 / 2 times larger.
    Beyond |x| = 15 the tail is below 1e-50, and |x| is clamped there, so huge or
    infinite x give x (or -0) and a derivative of 1 (or -0), never inf * 0.
  * SiLU and GELU(tanh): sigmoid(z) = 1 / (1 + e) or e / (1 + e) with e = exp(-|z|), and
    1 - sigmoid(z) the other one, so neither cancels. GELU(tanh)'s argument 2u grows
    like x^3: an error of 1 ulp in it would become |2u| ulps in exp(-|2u|) (up to 80),
    so 2u and the exp's range reduction are computed in float64.

No finite input gives NaN; NaN in gives NaN out. ``error_model="numpy"`` removes
Python's zero-division checks, which would otherwise stop vectorisation.
``fastmath={"contract"}`` lets LLVM fuse a * b + c into FMAs. Not used: ``nnan`` /
``ninf`` (NaN in must give NaN out), ``reassoc`` (it may reorder the products with 2^k
that keep subnormal results right), ``arcp`` / ``afn`` (no effect). The signatures are
explicit (float32 kernels for float32, libm ones for float64).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from minigrad.kernels.fast_exp import exp_poly as _exp_poly
from minigrad.kernels.fast_exp import fma as _fma
from minigrad.kernels.fast_exp import pow2 as _pow2
from minigrad.kernels.fast_exp import reduce_ln2 as _reduce
from minigrad.kernels.jit import kernel

# Every kernel: (x, out, dydx) flat C-contiguous arrays of one dtype; an empty ``dydx``
# means "output only".
_JIT = dict(cache=True, nogil=True, error_model="numpy")
_INLINE = dict(inline="always", error_model="numpy")
_FAST = {"contract"}  # a * b + c may become one FMA; nothing else (see the docstring)
_JIT32 = dict(_JIT, fastmath=_FAST)
_INLINE32 = dict(_INLINE, fastmath=_FAST)
_PAR, _PAR32 = dict(_JIT, parallel=True), dict(_JIT32, parallel=True)  # prange loops
_SIG64 = ["void(float64[::1], float64[::1], float64[::1])"]  # (x, out, dydx)
_SIG32 = ["void(float32[::1], float32[::1], float32[::1])"]

_INV_SQRT2 = 0.7071067811865476  # 1 / sqrt(2)
_INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi)
_SQRT_2_OVER_PI = 0.7978845608028654  # sqrt(2 / pi)
_GELU_C = 0.044715


# ---------------------------------------------------------------------- float64: libm
@kernel(["void(float64[::1], float64[::1])"], **_PAR)
def erf(x, out):
    for i in nb.prange(x.size):
        out[i] = math.erf(np.float64(x[i]))


@kernel(_SIG64, **_PAR)
def gelu64(x, out, dydx):
    if dydx.size == 0:
        for i in nb.prange(x.size):
            out[i] = x[i] * 0.5 * math.erfc(-x[i] * _INV_SQRT2)  # erfc: exact tails
        return
    for i in nb.prange(x.size):
        v = x[i]
        cdf = 0.5 * math.erfc(-v * _INV_SQRT2)
        out[i] = v * cdf
        dydx[i] = cdf + v * _INV_SQRT_2PI * math.exp(-0.5 * v * v)


@nb.njit(**_INLINE)
def _sigmoid_pair_libm(z):
    """(sigmoid(z), 1 - sigmoid(z)), each without cancellation, via e = exp(-|z|)."""
    e = math.exp(-abs(z))
    inv = 1.0 / (1.0 + e)
    return (inv, e * inv) if z >= 0.0 else (e * inv, inv)


@kernel(_SIG64, **_PAR)
def gelu_tanh64(x, out, dydx):
    for i in nb.prange(x.size):
        v = x[i]
        s, s_c = _sigmoid_pair_libm(2.0 * _SQRT_2_OVER_PI * (v + _GELU_C * v * v * v))
        out[i] = v * s  # (1 + tanh u) / 2 = sigmoid(2u)
        if dydx.size != 0:
            du = _SQRT_2_OVER_PI * (1.0 + 3.0 * _GELU_C * v * v)
            dydx[i] = s + v * 2.0 * s * s_c * du  # (1 - tanh^2 u) / 2 = 2 s (1 - s)


@kernel(_SIG64, **_PAR)
def silu64(x, out, dydx):
    for i in nb.prange(x.size):
        v = x[i]
        s, s_c = _sigmoid_pair_libm(v)
        out[i] = v * s
        if dydx.size != 0:
            dydx[i] = s * (1.0 + v * s_c)


# ------------------------------------- float32: vectorised (the exp pieces: fast_exp.py)
_f32 = np.float32
_ZERO, _HALF, _ONE = _f32(0.0), _f32(0.5), _f32(1.0)
_LOG2E_64, _LN2_64 = 1.0 / math.log(2.0), math.log(2.0)

# exp(r) / sqrt(2 pi) on |r| <= ln2 / 2 (exp(r) itself: fast_exp.E0-E6): a degree-6
# minimax polynomial for relative error, lowest degree first. Float32 coefficients,
# each rounded in turn with the higher ones refitted: max error 0.48 ulp (the
# rounding of its constant term, 1 / sqrt(2 pi), which the polynomial cannot absorb:
# still better than a separate product, which may round by up to 1 ulp).
_G0, _G1, _G2, _G3 = _f32(0.3989423), _f32(0.3989423), _f32(0.19946955), _f32(0.06648908)
_G4, _G5, _G6 = _f32(0.016655345), _f32(0.0033455691), _f32(0.00038591135)

# Mills' ratio Phi(-a) / phi(a) = D / (a D + N) on [0, 15], lowest degree first.
_N0, _N1, _N2 = _f32(0.7978846), _f32(0.5042638), _f32(0.16683772)
_N3, _N4 = _f32(0.030030133), _f32(0.0025177405)
_D1, _D2, _D3 = _f32(1.0874306), _f32(0.56772757), _f32(0.17161022)
_D4, _D5 = _f32(0.030042008), _f32(0.0025175072)

_GELU_CLAMP = _f32(15.0)  # Phi(-15) = 3.7e-51: past it the tail is 0 in float32
_SILU_CLAMP = _f32(110.0)  # 110 exp(-110) = 2e-46 rounds to 0 in float32
_TANH_CLAMP = _f32(12.0)  # gelu_tanh: |2u| >= 142 there, so sigmoid(2u) is 0 or 1
_K2 = 2.0 * _SQRT_2_OVER_PI  # 2u = _K2 x (1 + 0.044715 x^2), in float64


@nb.njit(**_INLINE32)
def _split_pow2(k):
    """2^k = s1 * s2 for -252 <= k <= 0, both factors normal floats."""
    k1 = k >> 1
    return _pow2(k1), _pow2(k - k1)


@nb.njit(**_INLINE32)
def _exp_parts(t):
    """exp(t) = p * s1 * s2 for -174 < t <= 0 (multiply by s1, then by s2)."""
    k, r = _reduce(t, _ZERO)
    s1, s2 = _split_pow2(k)
    return _exp_poly(r), s1, s2


@nb.njit(**_INLINE32)
def _exp_parts_f64(t):
    """exp(t) = p * s1 * s2 for a float64 -174 < t <= 0: the reduction in float64, so
    that t need not be a float32 (gelu_tanh's argument, exact only in float64)."""
    k = np.int32(t * _LOG2E_64 - 0.5)
    r = np.float32(t - np.float64(k) * _LN2_64)  # |r| <= ln2 / 2 to 1e-16
    s1, s2 = _split_pow2(k)
    return _exp_poly(r), s1, s2


@nb.njit(**_INLINE32)
def _phi_parts(t, t_lo):
    """exp(t + t_lo) / sqrt(2 pi) = q * s1 * s2 for -174 < t <= 0, |t_lo| tiny."""
    k, r = _reduce(t, t_lo)
    q = _G6 * r + _G5
    q = q * r + _G4
    q = q * r + _G3
    q = q * r + _G2
    q = q * r + _G1
    q = q * r + _G0
    s1, s2 = _split_pow2(k)
    return q, s1, s2


@nb.njit(**_INLINE32)
def _mills(a):
    """Phi(-a) / phi(a) for 0 <= a <= 15."""
    n = _N4 * a + _N3
    n = n * a + _N2
    n = n * a + _N1
    n = n * a + _N0
    d = _D5 * a + _D4
    d = d * a + _D3
    d = d * a + _D2
    d = d * a + _D1
    d = d * a + _ONE
    return d / _fma(a, d, n)


@nb.njit(**_INLINE32)
def _gelu_and_derivative(v):
    """(gelu(v), gelu'(v)) for one float32 value."""
    a = abs(v)
    a = _GELU_CLAMP if _GELU_CLAMP < a else a  # one vminps; NaN passes
    sq = a * a
    sq_lo = _fma(a, a, -sq)  # a^2 = sq + sq_lo exactly
    q, s1, s2 = _phi_parts(-_HALF * sq, -_HALF * sq_lo)  # phi(a) = q s1 s2
    m = _mills(a)
    w = (((a * m) * q) * s1) * s2  # a Phi(-a): scaled last, so subnormals round once
    y = v - w if v >= _ZERO else -w  # x Phi(x) = x - x Phi(-x); -0 -> -0, NaN -> NaN
    dd = ((q * (m - a)) * s1) * s2  # Phi(-a) - a phi(a)
    dydx = _ONE - dd if v >= _ZERO else dd  # Phi(x) + x phi(x)
    return y, dydx


@kernel(_SIG32, **_PAR32)
def gelu32(x, out, dydx):
    if dydx.size == 0:
        for i in nb.prange(x.size):
            out[i], _ = _gelu_and_derivative(x[i])  # LLVM drops the unused derivative
        return
    for i in nb.prange(x.size):
        out[i], dydx[i] = _gelu_and_derivative(x[i])


@nb.njit(**_INLINE32)
def _sigmoid_parts(v, p, s1, s2):
    """sigmoid(z) and 1 - sigmoid(z) from exp(-|z|) = p s1 s2, z of the sign of v.

    Returns (s, s_c, t1, t2): sigmoid(z) = s t1 t2 and 1 - sigmoid(z) = s_c. Both are
    1 / (1 + e) or e / (1 + e), so neither cancels. For z < 0 the scale t1 t2 = 2^k is
    left for the caller to apply last, so that a result that is a normal float is not
    spoiled by a subnormal intermediate exp(-|z|) (z < -87).
    """
    e = (p * s1) * s2
    inv = _ONE / (_ONE + e)
    if v >= _ZERO:
        return inv, e * inv, _ONE, _ONE
    return p * inv, inv, s1, s2  # NaN lands here and stays NaN


@nb.njit(**_INLINE32)
def _silu_and_derivative(v):
    """(silu(v), silu'(v)) for one float32 value."""
    a = abs(v)
    a = _SILU_CLAMP if _SILU_CLAMP < a else a  # NaN passes
    p, s1, s2 = _exp_parts(-a)
    s, s_c, t1, t2 = _sigmoid_parts(v, p, s1, s2)
    c = a if v >= _ZERO else -a  # x clamped to +-110: x (1 - s) is 0 beyond, not inf * 0
    y = (((v if v >= _ZERO else c) * s) * t1) * t2  # v s = v for huge v
    dydx = ((s * _fma(c, s_c, _ONE)) * t1) * t2  # s (1 + x (1 - s))
    return y, dydx


@kernel(_SIG32, **_PAR32)
def silu32(x, out, dydx):
    if dydx.size == 0:
        for i in nb.prange(x.size):
            out[i], _ = _silu_and_derivative(x[i])
        return
    for i in nb.prange(x.size):
        out[i], dydx[i] = _silu_and_derivative(x[i])


@nb.njit(**_INLINE32)
def _gelu_tanh_and_derivative(v):
    """(gelu_tanh(v), gelu_tanh'(v)) for one float32 value."""
    a = abs(v)
    a = _TANH_CLAMP if _TANH_CLAMP < a else a  # NaN passes
    a64 = np.float64(a)
    # |2u| and 2 |x| du/dx in float64: an error of 1 ulp in 2u would become |2u| ulps in
    # exp(-|2u|); the second is where the derivative cancels (x near -0.75).
    t = -_K2 * a64 * (1.0 + _GELU_C * a64 * a64)
    two_x_du = np.float32(_K2 * a64 * (1.0 + 3.0 * _GELU_C * a64 * a64))
    p, s1, s2 = _exp_parts_f64(t)
    s, s_c, t1, t2 = _sigmoid_parts(v, p, s1, s2)  # sigmoid(2u) = (1 + tanh u) / 2
    y = (((v if v >= _ZERO else -a) * s) * t1) * t2  # v s = v for huge v; -0 below -12
    # (1 - tanh^2 u) / 2 = 2 s (1 - s):  dy/dx = s (1 + 2 x (1 - s) du/dx)
    two_x_du = two_x_du if v >= _ZERO else -two_x_du
    dydx = ((s * _fma(two_x_du, s_c, _ONE)) * t1) * t2
    return y, dydx


@kernel(_SIG32, **_PAR32)
def gelu_tanh32(x, out, dydx):
    if dydx.size == 0:
        for i in nb.prange(x.size):
            out[i], _ = _gelu_tanh_and_derivative(x[i])
        return
    for i in nb.prange(x.size):
        out[i], dydx[i] = _gelu_tanh_and_derivative(x[i])


# ---------------------------------------------------------------------- backward
@kernel(_SIG32 + _SIG64, **_PAR)
def mul(a, b, out):
    """out = a * b: the backward pass dx = dy * dy/dx, on the kernels' threads (NumPy's
    product runs on one)."""
    for i in nb.prange(a.size):
        out[i] = a[i] * b[i]

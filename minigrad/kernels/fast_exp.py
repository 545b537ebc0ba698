"""Float32 building blocks for vectorizable exp in Numba kernels, shared by the
activation and attention kernels: a fused multiply-add, 2^k from exponent bits, a
Cody-Waite reduction ``t = k ln2 + r`` and a degree-6 polynomial for exp(r) on
|r| <= ln2 / 2 (max error 0.05 ulp): ``exp(t) = exp_poly(r) * 2^k``. Numba's own
``math.exp`` on float32 does not vectorize; these do (``docs/benchmarks.md``).

Only public APIs: Numba's ``numba.extending.intrinsic`` and llvmlite's IR builder
(``llvmlite.ir``: ``Module.declare_intrinsic``, bit casts).

This is the one module whose jitted helpers other kernel modules import. Numba's cache
does not notice an edit here in the kernels that inline them: after changing this file,
delete the cached kernels (the ``*.nbi`` / ``*.nbc`` files in ``__pycache__``).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["fma", "pow2", "reduce_ln2", "exp_poly"]


@intrinsic
def fma(typingctx, a, b, c):
    """a * b + c with one rounding (``llvm.fma``: one instruction with FMA hardware)."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        f32 = ir.FloatType()
        fnty = ir.FunctionType(f32, [f32, f32, f32])
        fn = builder.module.declare_intrinsic("llvm.fma", [f32], fnty)
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def pow2(typingctx, k):
    """2.0 ** k as a float32, for an int32 -126 <= k <= 127: the bits (k + 127) << 23."""
    sig = types.float32(types.int32)

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        bits = builder.shl(builder.add(args[0], ir.Constant(i32, 127)), ir.Constant(i32, 23))
        return builder.bitcast(bits, ir.FloatType())

    return sig, codegen


_f32 = np.float32
LOG2E = _f32(1.0 / math.log(2.0))
LN2_HI = _f32(math.log(2.0))  # ln 2 = LN2_HI + LN2_LO to 2^-48
LN2_LO = _f32(math.log(2.0) - float(LN2_HI))
# exp(r) on |r| <= ln2 / 2: degree-6 minimax polynomial for relative error, lowest degree
# first; float32 coefficients, each rounded in turn with the higher ones refitted.
E0, E1, E2, E3 = _f32(1.0), _f32(1.0), _f32(0.49999994), _f32(0.16666523)
E4, E5, E6 = _f32(0.041668292), _f32(0.008368532), _f32(0.0013818297)
_HALF = _f32(0.5)


@numba.njit(inline="always", fastmath={"contract"}, error_model="numpy")
def reduce_ln2(t, t_lo):
    """``(k, r)`` with t + t_lo = k ln2 + r, |r| <= ln2 / 2, for a float32 t <= 0 (t_lo a
    tiny correction, or 0)."""
    k = np.int32(t * LOG2E - _HALF)  # nearest integer (t <= 0: truncation after -0.5)
    kf = np.float32(k)
    r = fma(kf, -LN2_HI, t)  # exact product, one rounding: error < 2^-26
    r = fma(kf, -LN2_LO, r) + t_lo
    return k, r


@numba.njit(inline="always", fastmath={"contract"}, error_model="numpy")
def exp_poly(r):
    """exp(r) for |r| <= ln2 / 2 (Horner)."""
    p = E6 * r + E5
    p = p * r + E4
    p = p * r + E3
    p = p * r + E2
    p = p * r + E1
    return p * r + E0

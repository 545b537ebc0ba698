"""Rounding float32 values to bfloat16 or float16, the arithmetic autocast emulates.

NumPy has no bfloat16 type, but bfloat16 is float32 with the low 16 bits of the mantissa
dropped: the same sign bit and 8 exponent bits, 7 of float32's 23 mantissa bits. So a
float32 array whose low 16 bits are zero holds bfloat16 values exactly, and rounding to
bfloat16 is integer arithmetic on the float32 bits, round to nearest, ties to even (as
PyTorch converts)::

    bits = float32 bits of x
    bits = (bits + 0x7FFF + (bits >> 16 & 1)) & 0xFFFF0000

Adding ``0x7FFF`` plus the last kept bit carries into the kept bits exactly when the
dropped part is above half a unit, or exactly half with an odd kept part. Values past
bfloat16's largest finite value round to infinity, as in PyTorch; NaN stays NaN (the
formula alone could turn a NaN whose payload lies in the dropped bits into infinity).
float16 rounding is NumPy's own conversion there and back.

:class:`RoundTo` is that rounding as an operation in the graph: its gradient is the
incoming gradient rounded the same way, because in PyTorch the gradient of a bfloat16
tensor is a bfloat16 tensor.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function

__all__ = ["RoundTo", "round_array"]


def round_bfloat16(a: np.ndarray) -> np.ndarray:
    """``a`` (float32) rounded to the nearest bfloat16 value, as a new float32 array."""
    flat = np.ascontiguousarray(a, dtype=np.float32).reshape(-1)  # 1-d: no scalar overflow
    bits = flat.view(np.uint32)
    kept_lsb = (bits >> np.uint32(16)) & np.uint32(1)
    rounded = (bits + np.uint32(0x7FFF) + kept_lsb) & np.uint32(0xFFFF0000)
    out = rounded.view(np.float32)
    nan = np.isnan(flat)
    if nan.any():
        out[nan] = flat[nan]
    return out.reshape(np.shape(a))


def round_array(a: np.ndarray, kind: str) -> np.ndarray:
    """``a`` rounded to ``kind`` (``"bfloat16"`` or ``"float16"``), kept as float32."""
    if kind == "bfloat16":
        return round_bfloat16(a)
    with np.errstate(over="ignore"):  # beyond float16's range is inf, as in PyTorch
        return np.asarray(a).astype(np.float16).astype(np.float32)


class RoundTo(Function):
    """``x`` rounded to ``kind``'s precision, still a float32 tensor. Backward: the
    gradient rounded the same way (the gradient of a lower-precision tensor has its
    precision)."""

    @staticmethod
    def forward(ctx, x, kind):
        ctx.kind = kind
        return round_array(x._data, kind)

    @staticmethod
    def backward(ctx, g):
        return RoundTo.apply(g, ctx.kind), None

    @staticmethod
    def backward_array(ctx, g):
        return round_array(g, ctx.kind), None

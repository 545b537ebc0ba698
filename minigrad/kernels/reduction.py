"""``sum_leading``: a sum over leading axes as one BLAS product, for large arrays.

A bias's gradient is the sum of the output gradient over its rows. For a C-contiguous
float32 / float64 array of at least ``SUM_LEADING_BLAS_ELEMENTS`` it is computed as one
matrix-vector product ``ones @ a`` on ``a`` viewed as [lead, rest]. Measured against
``np.add.reduce`` on float32 [1024, 64] / [1024, 256] / [4096, 128]: 3.0 / 11.6 /
14.7 us against 14.9 / 29.0 / 81 us, with a third of the error (BLAS sums in blocks),
the same bits on 1 to 4 threads; but [32, 128] / [64, 64]: 3.0 / 2.9 us against
1.6 / 1.8 us, and [256, 64]: 3.4 against 4.7 us (see benchmarks/).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["SUM_LEADING_BLAS_ELEMENTS", "sum_leading"]

#: Below this many elements ``sum_leading`` takes NumPy's sum: the BLAS call costs more.
SUM_LEADING_BLAS_ELEMENTS = 8192


def sum_leading(a: np.ndarray, k: int) -> np.ndarray:
    """``a.sum(axis=(0, ..., k - 1))``, as a BLAS product where that is faster."""
    if (
        a.dtype not in (np.float32, np.float64)
        or k == 0
        or a.size < SUM_LEADING_BLAS_ELEMENTS
        or not a.flags.c_contiguous
    ):
        return a.sum(tuple(range(k)))
    lead = math.prod(a.shape[:k])
    out = np.matmul(np.ones(lead, a.dtype), a.reshape(lead, math.prod(a.shape[k:])))
    return out.reshape(a.shape[k:])

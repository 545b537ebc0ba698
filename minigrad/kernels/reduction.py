"""``sum_leading``: a sum over leading axes as one BLAS product, for large arrays.

A bias's gradient is the sum of the output gradient over its rows. For a C-contiguous
float32 / float64 array of at least ``SUM_LEADING_BLAS_ELEMENTS`` it is computed as one
matrix-vector product ``ones @ a`` on ``a`` viewed as [lead, rest]: faster than
``np.add.reduce`` from that size on, with a third of the error (BLAS sums in blocks), the
same bits on 1 to 4 threads; slower below it (``docs/benchmarks.md``).
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

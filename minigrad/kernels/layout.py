"""Layout helpers of the kernel wrappers: C-contiguous arrays, parameters as vectors, and
the fixed chunks of the sums over rows (dweight, dbias, BatchNorm's statistics; why
chunks: ``kernels/__init__.py``). The measurements behind the numbers below are in
``docs/benchmarks.md``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["backward_rows", "contiguous", "row_chunks", "vector"]

#: The sums over rows are cut into at most this many chunks of rows.
MAX_CHUNKS = 32
#: A chunk holds at least this many values: below it, a chunk's own zeroed sums and the
#: extra row to add at the end cost more than the chunk's work.
MIN_CHUNK_ELEMENTS = 4096
#: Wide sums get fewer chunks (but at least ``MIN_CHUNKS``): all chunks' sums together
#: hold at most ``MAX_SUM_VALUES`` values per sum.
MAX_SUM_VALUES = 32768
MIN_CHUNKS = 8


def row_chunks(rows: int, row_size: int, width: int) -> tuple[int, int]:
    """``(rows_per_chunk, chunks)``: the fixed partition of ``rows`` rows of ``row_size``
    values each, for sums ``width`` values wide."""
    most = min(MAX_CHUNKS, max(MIN_CHUNKS, MAX_SUM_VALUES // max(1, width)))
    per = max(1, -(-rows // most), -(-MIN_CHUNK_ELEMENTS // max(1, row_size)))
    return per, max(1, -(-rows // per))


def contiguous(a, dtype):
    """``a`` as a writeable C-contiguous array of ``dtype`` (a copy only when needed:
    the kernels' signatures take writeable C-contiguous arrays)."""
    flags = a.flags
    if a.dtype == dtype and flags.c_contiguous and flags.writeable:
        return a
    a = np.ascontiguousarray(a, dtype=dtype)
    return a if a.flags.writeable else a.copy()


def vector(param, n: int, dtype, default: float):
    """A parameter as a C-contiguous [n] vector of ``dtype`` (``default`` if None)."""
    if param is None:
        return np.full(n, default, dtype=dtype)
    param = contiguous(param, dtype)
    return param if param.ndim == 1 else param.reshape(n)


def backward_rows(dy, x, normalized_ndim: int, need_dx: bool, sums: int):
    """The arrays of a backward over the last ``normalized_ndim`` axes of ``x`` (LayerNorm,
    RMSNorm), one row per normalized slice: ``(norm_shape, dy2, x2, per, dx, partial)``
    with ``dy2`` and ``x2`` C-contiguous [rows, n] in x's dtype, ``per`` rows per chunk
    (``row_chunks``), ``dx`` [rows, n] to write (empty without ``need_dx``) and
    ``partial`` [chunks, sums, n], float64, for each chunk's parameter-gradient sums."""
    norm_shape = x.shape[x.ndim - normalized_ndim :]
    n = math.prod(norm_shape)
    rows = x.size // n
    dt = x.dtype
    per, chunks = row_chunks(rows, n, n)
    dx = np.empty((rows, n) if need_dx else (0, 0), dt)
    partial = np.empty((chunks, sums, n))
    dy2, x2 = contiguous(dy, dt).reshape(rows, n), contiguous(x, dt).reshape(rows, n)
    return norm_shape, dy2, x2, per, dx, partial

"""Numba kernel for the backward pass of an embedding lookup (a scatter-add).

``out[idx[n], :] += g[n, :]`` for every row n: repeated indices accumulate. NumPy's
``np.add.at`` does the same but is 10-40x slower (measured with 8192 lookups of
384-wide rows: 0.75 ms for this loop against 12-36 ms for ``np.add.at`` or sorting
with ``np.add.reduceat``). The loop is serial: rows with the same index would race if
split between threads.
"""

from __future__ import annotations

from .jit import kernel

_SIGS = [
    "void(int64[::1], float32[:, ::1], float32[:, ::1])",
    "void(int64[::1], float64[:, ::1], float64[:, ::1])",
]


@kernel(_SIGS, cache=True)
def scatter_add_rows(idx, g, out):
    width = g.shape[1]
    for n in range(idx.shape[0]):
        row = idx[n]
        for j in range(width):
            out[row, j] += g[n, j]

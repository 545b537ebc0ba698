"""The LU factorization with partial pivoting, written on NumPy, and its gradient.

``lu_factor_arrays`` is Doolittle's elimination, one column at a time for every matrix of
the batch at once: at step j the row with the largest |entry| in column j (at or below
the diagonal) is swapped up (LAPACK's ``getrf`` choice: the first largest), the entries
below the pivot are divided by it (the column of L) and the rank-1 product of that column
and the pivot row is subtracted from the trailing block. The result is LAPACK's compact
form: L's strict lower triangle (its diagonal is ones) and U in one array, and the row
swaps as 1-based pivots (row j was swapped with row ``pivots[j] - 1``).

``LuFactor`` (square A = P L U): with X = L^-1 P^T dA U^-1 = L^-1 dL + dU U^-1, the
first term strictly lower triangular and the second upper, L^-1 dL = tril(X, -1) and
dU U^-1 = triu(X). Then <G_L, dL> + <G_U, dU> = <tril(L^T G_L, -1) + triu(G_U U^T), X>,
so ``G_A = P L^-T (tril(L^T G_L, -1) + triu(G_U U^T)) U^-T``; G_L and G_U are the
strict lower and the upper part of the gradient of the compact LU.
"""

from __future__ import annotations

import numpy as np

from minigrad._constant import constant
from minigrad.autograd.function import Function
from minigrad.functions.linalg import Solve, as_stack


def lu_factor_arrays(a: np.ndarray):
    """``(LU, pivots, info)`` of each matrix of ``a`` (``(*, m, n)``): the compact LU,
    the 1-based int32 pivots ``(*, min(m, n))`` and ``info`` ``(*)``: 0, or the 1-based
    index of the first zero pivot (U is singular)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    lu = as_stack(a).copy()
    rows = np.arange(len(lu))
    pivots = np.zeros((len(lu), k), dtype=np.int32)
    info = np.zeros(len(lu), dtype=np.int32)
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)  # the pivot row of each matrix
        pivots[:, j] = p + 1
        row_j = lu[rows, j].copy()
        lu[rows, j] = lu[rows, p]
        lu[rows, p] = row_j
        pivot = lu[:, j, j]
        zero = pivot == 0  # then the whole column below is 0 too: nothing to eliminate
        info[(info == 0) & zero] = j + 1
        lu[:, j + 1 :, j] /= np.where(zero, 1, pivot)[:, None]
        lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j : j + 1] * lu[:, j : j + 1, j + 1 :]
    batch = a.shape[:-2]
    return lu.reshape(a.shape), pivots.reshape(batch + (k,)), info.reshape(batch)


def permutation_from_pivots(pivots: np.ndarray, m: int) -> np.ndarray:
    """The row order ``perm`` (``(*, m)``) the pivots make: row i of L U is row
    ``perm[i]`` of A."""
    flat = as_stack(pivots, 1) - 1
    rows = np.arange(len(flat))
    perm = np.tile(np.arange(m), (len(flat), 1))
    for j in range(flat.shape[-1]):
        p = flat[:, j]
        swapped = perm[rows, j].copy()
        perm[rows, j] = perm[rows, p]
        perm[rows, p] = swapped
    return perm.reshape(pivots.shape[:-1] + (m,))


def permutation_matrix(perm: np.ndarray, dtype) -> np.ndarray:
    """P with A = P L U: ``P[perm[i], i] = 1``."""
    m = perm.shape[-1]
    return np.eye(m, dtype=dtype)[perm].swapaxes(-1, -2)


class LuFactor(Function):
    """The compact LU of a square A (computed by the caller with ``lu_factor_arrays``),
    with P (the permutation matrix) a constant of the backward."""

    @staticmethod
    def forward(ctx, a, lu, p):
        ctx.save_for_backward(lu, p)
        return lu

    @staticmethod
    def backward(ctx, g):
        lu, p = ctx.saved_tensors
        n = lu.shape[-1]
        lower = lu.tril(-1) + np.eye(n, dtype=lu.dtype)
        upper = lu.triu()
        inner = (lower.mT @ g.tril(-1)).tril(-1) + (g.triu() @ upper.mT).triu()
        x = Solve.apply(lower.mT, inner)  # L^-T inner
        x = Solve.apply(upper, x.mT).mT  # ... U^-T
        return constant(p) @ x, None, None

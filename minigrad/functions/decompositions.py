"""Matrix factorizations with their gradients: Cholesky, QR, symmetric eigen, SVD.

A factorization has several results (Q and R, eigenvalues and eigenvectors ...) and a
``Function`` has one output, so each Function returns them side by side in one array
(``pack``) and the caller takes them apart with differentiable slices (``unpack``); the
backward receives the gradient of that array and takes it apart the same way. Each
backward reads the Function's own saved output, so it can be differentiated again.

Real matrices, batched over the leading dims. The derivations (``<X, Y>`` is
``sum(X * Y)``, ``G_X`` the gradient of the loss with respect to X):

- **Cholesky**, A = L L^T with L lower triangular. dA = dL L^T + L dL^T, so
  L^-1 dA L^-T = L^-1 dL + (L^-1 dL)^T, and L^-1 dL (lower triangular) is
  ``Phi(L^-1 dA L^-T)``, where Phi keeps the lower triangle and halves the diagonal.
  Then <G_L, dL> = <Phi(L^T G_L), L^-1 dA L^-T>, so
  ``G_A = L^-T Phi(L^T G_L) L^-1``, symmetrized (only symmetric dA are admissible).
- **QR**, A = Q R (m >= n: Q is m x n with Q^T Q = I, R upper triangular). With
  X = Q^T dA R^-1 and C = Q^T dQ (antisymmetric): C is the strict lower triangle of X
  minus its transpose, dR = (X - C) R and dQ = (I - Q Q^T) dA R^-1 + Q C. Collecting
  the terms of <G_Q, dQ> + <G_R, dR> gives, with M = G_R R^T - Q^T G_Q,
  ``G_A = (G_Q + Q copyutl(M)) R^-T``, where copyutl(M) keeps the upper triangle of M
  and mirrors its strict upper part below. For m < n, A = [X | Y] with X = Q R_1
  square and R_2 = Q^T Y: G_Y = Q G_R2, and X's gradient is the square case with
  G_Q + Y G_R2^T in place of G_Q.
- **Eigh**, A = V diag(lambda) V^T (A symmetric). From A dV + dA V = dV Lambda +
  V dLambda: d lambda_i = (V^T dA V)_ii and V^T dV = F o (V^T dA V) with
  F_ij = 1 / (lambda_j - lambda_i) off the diagonal, 0 on it. V^T dV is antisymmetric,
  so only the antisymmetric part of V^T G_V counts:
  ``G_A = V (diag(G_lambda) + F o skew(V^T G_V)) V^T``, skew(M) = (M - M^T) / 2, which is
  symmetric (as PyTorch's).
- **SVD**, A = U diag(S) V^T (reduced, k = min(m, n)). Townsend's formula, with
  F_ij = 1 / (s_j^2 - s_i^2) off the diagonal:
  ``G_A = U [(F o (U^T G_U - G_U^T U)) S + diag(G_S) + S (F o (V^T G_V - G_V^T V))] V^T
  + (I - U U^T) G_U S^-1 V^T + U S^-1 G_V^T (I - V V^T)``.

When a loss uses only the eigenvalues (singular values), the eigenvector terms are left
out: the gradient is then ``V diag(G_lambda) V^T`` (``U diag(G_S) V^T``), finite even
where eigenvalues repeat. Eigenvector and singular-vector gradients are finite only
for distinct eigenvalues, and meaningful only for losses that do not depend on each
vector's sign (PyTorch's documentation gives the same warning).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.linalg import (
    LinAlgError,
    Solve,
    as_stack,
    eigh_arrays,
    pack,
    svd_arrays,
    unpack,
)
from minigrad.functions.shape import Cat


def _eye(n: int, like) -> np.ndarray:
    return np.eye(n, dtype=like.dtype)


def _right_solve_transposed(r, x):
    """``x R^-T`` (a solve with R^T from the right), differentiable."""
    return Solve.apply(r, x.mT).mT


# --------------------------------------------------------------------------- Cholesky
def _factor(m: np.ndarray) -> np.ndarray | None:
    """The lower Cholesky factor of a (batch of) matrix, or None where LAPACK stops: at a
    pivot that is not positive, and (as PyTorch's LAPACK does) at a NaN pivot, which
    NumPy's passes on into the factor."""
    try:
        lower = np.linalg.cholesky(m)
    except np.linalg.LinAlgError:
        return None
    return None if np.isnan(np.diagonal(lower, axis1=-2, axis2=-1)).any() else lower


def cholesky_arrays(a: np.ndarray, name: str) -> np.ndarray:
    """The lower Cholesky factor, or ``LinAlgError`` naming the first matrix of the batch
    that is not positive-definite and the order of its failing leading minor."""
    lower = _factor(a)
    if lower is not None:
        return lower
    info = cholesky_info(a)
    where = ""
    if a.ndim > 2:
        where = f"(Batch element {int(np.flatnonzero(info)[0])}): "
    order = int(info[info > 0][0])
    raise LinAlgError(
        f"{name}: {where}The factorization could not be completed because the input is "
        f"not positive-definite (the leading minor of order {order} is not "
        "positive-definite)."
    )


def cholesky_info(a: np.ndarray) -> np.ndarray:
    """Per matrix of the batch: 0 if it is positive-definite, else the order of its first
    leading minor that is not (LAPACK's ``info``)."""
    flat = as_stack(a)
    info = np.zeros(len(flat), dtype=np.int32)
    for i, m in enumerate(flat):
        if _factor(m) is not None:
            continue
        info[i] = next(k for k in range(1, m.shape[-1] + 1) if _factor(m[:k, :k]) is None)
    return info.reshape(a.shape[:-2])


class Cholesky(Function):
    """L = cholesky(A), lower triangular, A = L L^T (reads A's lower triangle)."""

    @staticmethod
    def forward(ctx, a):
        lower = cholesky_arrays(a._data, "linalg.cholesky")
        ctx.save_for_backward(lower)
        return lower

    @staticmethod
    def backward(ctx, g):
        (lower,) = ctx.saved_tensors
        n = lower.shape[-1]
        phi = (lower.mT @ g).tril() * (1.0 - 0.5 * _eye(n, lower))  # halve the diagonal
        ga = Solve.apply(lower.mT, Solve.apply(lower.mT, phi.mT).mT)  # L^-T Phi L^-1
        return 0.5 * (ga + ga.mT)


# --------------------------------------------------------------------------------- QR
def qr_shapes(m: int, n: int, mode: str) -> tuple:
    k = min(m, n)
    if mode == "complete":
        return (m, m), (m, n)
    if mode == "r":
        return (0,), (k, n)
    return (m, k), (k, n)


class Qr(Function):
    """(Q, R) = qr(A), packed; ``mode`` is ``'reduced'``, ``'complete'`` or ``'r'``."""

    @staticmethod
    def forward(ctx, a, mode):
        x = a._data
        if mode == "r":
            q = np.zeros(x.shape[:-2] + (0,), dtype=x.dtype)
            r = np.linalg.qr(x, mode="r")
        else:
            q, r = np.linalg.qr(x, mode=mode)
        out = pack([q, r], x.shape[:-2])
        ctx.save_for_backward(out)
        ctx.shape, ctx.mode = x.shape[-2:], mode
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        (m, n), mode = ctx.shape, ctx.mode
        if mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when "
                "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                "differentiate through linalg.qr."
            )
        if mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        shapes = qr_shapes(m, n, mode)
        q, r = unpack(out, shapes)
        gq, gr = unpack(g, shapes)
        if m >= n:
            return _qr_backward_tall(q, r, gq, gr), None
        # wide: A = [X | Y], X = Q R1 (square), R2 = Q^T Y
        y = q @ r[..., m:]
        gx = _qr_backward_tall(q, r[..., :m], gq + y @ gr[..., m:].mT, gr[..., :m])
        return Cat.apply(gx.ndim - 1, gx, q @ gr[..., m:]), None


def _qr_backward_tall(q, r, gq, gr):
    """G_A = (G_Q + Q copyutl(M)) R^-T with M = G_R R^T - Q^T G_Q (module docstring)."""
    m = gr @ r.mT - q.mT @ gq
    copyutl = m.triu() + m.triu(1).mT
    return _right_solve_transposed(r, gq + q @ copyutl)


# ------------------------------------------------------------------- symmetric eigen
def _off_diagonal_inverse_gaps(values):
    """F_ij = 1 / (v_j - v_i) off the diagonal, 0 on it."""
    n = values.shape[-1]
    eye = _eye(n, values)
    gaps = values.unsqueeze(-2) - values.unsqueeze(-1)  # (*, n, n): v_j - v_i
    return (1.0 - eye) / (gaps + eye)


class Eigh(Function):
    """(eigenvalues, eigenvectors) of a symmetric matrix, packed; ``uplo`` says which
    triangle of A is read."""

    @staticmethod
    def forward(ctx, a, uplo):
        values, vectors = eigh_arrays(a._data, uplo)
        out = pack([values, vectors], a._data.shape[:-2])
        ctx.save_for_backward(out)
        ctx.n = a._data.shape[-1]
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        n = ctx.n
        values, vectors = unpack(out, ((n,), (n, n)))
        gvalues, gvectors = unpack(g, ((n,), (n, n)))
        inner = gvalues.unsqueeze(-1) * _eye(n, values)  # diag(G_lambda)
        if gvectors._data.any():  # the loss uses the eigenvectors too
            m = vectors.mT @ gvectors
            skew = 0.5 * (m - m.mT)  # V^T dV is antisymmetric: only this part of m counts
            inner = inner + _off_diagonal_inverse_gaps(values) * skew
        return vectors @ inner @ vectors.mT, None


# ------------------------------------------------------------------------------- SVD
def svd_shapes(m: int, n: int, full_matrices: bool) -> tuple:
    k = min(m, n)
    if full_matrices:
        return (m, m), (k,), (n, n)
    return (m, k), (k,), (k, n)


class Svd(Function):
    """(U, S, Vh) = svd(A), packed; the backward uses the first k = min(m, n) columns of
    U and rows of Vh (the others are not unique), as PyTorch does."""

    @staticmethod
    def forward(ctx, a, full_matrices):
        x = a._data
        u, s, vh = svd_arrays(x, full_matrices=full_matrices)
        out = pack([u, s, vh], x.shape[:-2])
        ctx.save_for_backward(out)
        ctx.shapes = svd_shapes(x.shape[-2], x.shape[-1], full_matrices)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        u, s, vh = unpack(out, ctx.shapes)
        gu, gs, gvh = unpack(g, ctx.shapes)
        k = s.shape[-1]
        u, vh, gu, gvh = u[..., :k], vh[..., :k, :], gu[..., :k], gvh[..., :k, :]
        inner = gs.unsqueeze(-1) * _eye(k, s)  # diag(G_S)
        if not (gu._data.any() or gvh._data.any()):  # the loss uses S only
            return u @ inner @ vh, None
        v, gv = vh.mT, gvh.mT
        f = _off_diagonal_inverse_gaps(s * s)  # 1 / (s_j^2 - s_i^2)
        j = f * (u.mT @ gu - gu.mT @ u)
        kk = f * (v.mT @ gv - gv.mT @ v)
        inner = inner + j * s.unsqueeze(-2) + s.unsqueeze(-1) * kk
        ga = u @ inner @ vh
        m, n = u.shape[-2], vh.shape[-1]
        if m > k:  # (I - U U^T) G_U S^-1 V^T
            ga = ga + (gu - u @ (u.mT @ gu)) / s.unsqueeze(-2) @ vh
        if n > k:  # U S^-1 G_V^T (I - V V^T)
            ga = ga + u @ ((gvh - (gvh @ v) @ vh) / s.unsqueeze(-1))
        return ga, None

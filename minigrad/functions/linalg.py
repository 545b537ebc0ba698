"""Matrix inverse, determinant and linear solve, batched over leading dims.

- ``Inv``: Y = A^-1. From d(A Y) = 0: dY = -Y dA Y, so the gradient of A is
  ``-Y^T G Y^T``.
- ``Det``: y = det A. Jacobi's formula d det A = tr(adj(A) dA) gives the gradient
  ``g adj(A)^T``, the matrix of cofactors: ``g det(A) A^-T`` for an invertible A, and
  for a singular one (where PyTorch still has a gradient) the cofactors from the SVD
  A = U S V^T: ``det(U) det(V) U diag(prod_{j != i} s_j) V^T``.
- ``Solve``: X = A^-1 B. Then ``G_B = A^-T G`` (a solve with the transpose) and
  ``G_A = -G_B X^T``.

Each backward is written with these same operations, so it can be differentiated again.
A singular matrix raises ``RuntimeError`` (PyTorch's ``linalg.LinAlgError`` is one).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.broadcast import unbroadcast


class LinAlgError(RuntimeError):
    """A matrix that is singular where an inverse is needed."""


def _inv(a: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.inv: the matrix is singular (not invertible)") from None


def svd_arrays(a: np.ndarray, full_matrices: bool = True, compute_uv: bool = True):
    """``np.linalg.svd`` raising minigrad's ``LinAlgError`` with PyTorch's message where
    LAPACK does not converge (a NaN in the input does that). A matrix with an infinity
    and no NaN gives NaNs, as in PyTorch, whichever LAPACK NumPy was built with (some
    builds, NumPy 2.5's among them, stop there instead of returning NaNs)."""
    infinite = np.isinf(a).any(axis=(-2, -1)) & ~np.isnan(a).any(axis=(-2, -1))
    if infinite.any():
        out = svd_arrays(np.where(infinite[..., None, None], 0, a), full_matrices, compute_uv)
        nan = infinite if np.ndim(infinite) else np.bool_(True)
        parts = out if compute_uv else (out,)
        parts = tuple(np.where(nan.reshape(nan.shape + (1,) * (p.ndim - nan.ndim)), np.nan, p)
                      for p in parts)  # fmt: skip
        return parts if compute_uv else parts[0]
    try:
        return np.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    except np.linalg.LinAlgError:
        why = "the input matrix contained non-finite values"
        if np.isfinite(a).all():
            why = "the input matrix is ill-conditioned or has too many repeated singular values"
        raise LinAlgError(f"linalg.svd: The algorithm failed to converge because {why}.") from None


def eigh_arrays(a: np.ndarray, uplo: str = "L", compute_v: bool = True):
    """``np.linalg.eigh`` (or ``eigvalsh``) raising minigrad's ``LinAlgError`` where
    LAPACK does not converge."""
    try:
        return np.linalg.eigh(a, UPLO=uplo) if compute_v else np.linalg.eigvalsh(a, UPLO=uplo)
    except np.linalg.LinAlgError:
        raise LinAlgError(
            "linalg.eigh: The algorithm failed to converge because the input matrix is "
            "ill-conditioned or has too many repeated eigenvalues."
        ) from None


def _mT(x):
    return x.swapaxes(-1, -2) if isinstance(x, np.ndarray) else x.mT


class Inv(Function):
    @staticmethod
    def forward(ctx, a):
        y = _inv(a._data)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return -(y.mT @ g @ y.mT)

    @staticmethod
    def backward_array(ctx, g):
        (y,) = ctx.saved_arrays
        return -(_mT(y) @ g @ _mT(y))


class Det(Function):
    @staticmethod
    def forward(ctx, a):
        y = np.linalg.det(a._data)
        ctx.save_for_backward(a, y)
        return y

    @staticmethod
    def backward(ctx, g):
        a, y = ctx.saved_tensors
        if np.all(y._data != 0):  # differentiable again through the inverse
            return (g * y).unsqueeze(-1).unsqueeze(-1) * Inv.apply(a).mT
        return g.unsqueeze(-1).unsqueeze(-1) * _cofactors_tensor(a)

    @staticmethod
    def backward_array(ctx, g):
        a, y = ctx.saved_arrays
        if np.all(y != 0):
            return (g * y)[..., None, None] * _mT(_inv(a))
        return g[..., None, None] * cofactors(a)


def _cofactors_tensor(a):
    """``cofactors`` in Tensor operations, so that it can be differentiated again:
    ``C_ij = (-1)^(i+j) det(A without row i and column j)``, every minor at once."""
    from minigrad.functions.constant import constant

    n = a.shape[-1]
    keep = np.array([[k for k in range(n) if k != i] for i in range(n)], np.int64)
    minors = a[..., keep.reshape(n, 1, n - 1, 1), keep.reshape(1, n, 1, n - 1)]
    sign = (-1.0) ** np.add.outer(np.arange(n), np.arange(n))
    return Det.apply(minors) * constant(sign.astype(a.dtype))


def cofactors(a: np.ndarray) -> np.ndarray:
    """The cofactor matrix adj(A)^T (the gradient of det A) of every matrix of ``a``,
    singular or not, from the SVD A = U diag(s) V^T: ``adj(A)^T = det(U) det(V) U
    diag(c) V^T`` with ``c_i = prod_{j != i} s_j`` (formed from the products of the
    singular values before and after i, so no division by a zero s_i)."""
    u, s, vh = svd_arrays(a)
    n = s.shape[-1]
    ones = np.ones(s.shape[:-1] + (1,), s.dtype)
    before = np.cumprod(np.concatenate([ones, s[..., : n - 1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    c = before * after
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return sign[..., None, None] * (u * c[..., None, :]) @ vh


def solve_arrays(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.linalg.solve`` for a (batch of) matrix ``b`` of shape ``(*, n, k)``: the batch
    dims are broadcast first, so the same call means the same thing on NumPy 1.x (where a
    ``b`` with one dim fewer than ``a`` is read as a stack of vectors) and 2.x."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    return np.linalg.solve(a, b)


class Solve(Function):
    @staticmethod
    def forward(ctx, a, b):
        try:
            x = solve_arrays(a._data, b._data)
        except np.linalg.LinAlgError:
            raise LinAlgError("linalg.solve: the matrix A is singular") from None
        ctx.save_for_backward(a, x)
        ctx.shapes = (a._data.shape, b._data.shape)
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        gb = Solve.apply(a.mT, g)
        return _batch_unbroadcast(ctx, -(gb @ x.mT), gb)

    @staticmethod
    def backward_array(ctx, g):
        a, x = ctx.saved_arrays
        gb = solve_arrays(_mT(a), g)
        return _batch_unbroadcast(ctx, -(gb @ _mT(x)), gb)


def as_stack(a: np.ndarray, core: int = 2) -> np.ndarray:
    """``a`` of shape ``(*batch, *core_shape)`` as one stack ``(B, *core_shape)``, B the
    number of batch elements (a reshape that also works when a dim is 0)."""
    batch = a.shape[: a.ndim - core]
    return a.reshape((int(np.prod(batch)),) + a.shape[a.ndim - core :])


def pack(arrays, batch: tuple) -> np.ndarray:
    """Several results of one factorization as one array ``(*batch, total)``: each
    ``(*batch, ...)`` array flattened over its own dims, side by side (a ``Function`` has
    one output; ``unpack`` gives the pieces back as differentiable slices)."""
    flat = [a.reshape(batch + (int(np.prod(a.shape[len(batch) :])),)) for a in arrays]
    return np.concatenate(flat, -1)


def unpack(packed, shapes) -> list:
    """The pieces of ``pack``'s result (a Tensor or an array): one per shape, each
    ``(*batch, *shape)``."""
    batch = tuple(packed.shape[:-1])
    out, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        out.append(packed[..., start : start + size].reshape(batch + tuple(shape)))
        start += size
    return out


def _batch_unbroadcast(ctx, ga, gb) -> tuple:
    """Sum the gradients over batch dims that broadcasting added (A or B had fewer)."""
    a_needs, b_needs = ctx.needs_input_grad
    a_shape, b_shape = ctx.shapes
    return (
        unbroadcast(ga, a_shape) if a_needs else None,
        unbroadcast(gb, b_shape) if b_needs else None,
    )


class CholeskySolve(Function):
    """X = A^-1 B for A = L L^T (``upper``: U^T U) given its Cholesky factor; only the
    factor's lower (upper) triangle is read, as LAPACK's potrs reads it.

    The backward is PyTorch's: ``G_B = A^-1 G`` and ``G_L = -(G_B X^T + X G_B^T) L``
    (``upper``: ``-U (G_B X^T + X G_B^T)``), the derivative of ``A = L L^T`` written with
    the whole factor, so the triangle the forward ignores gets the formula's value too
    (where the factor is triangular, as it is when it comes from ``cholesky``, that is
    the gradient of every element the forward read). ``cholesky_inverse`` is this with
    B the identity."""

    @staticmethod
    def forward(ctx, b, factor, upper):
        f = factor._data
        tri = np.triu(f) if upper else np.tril(f)
        a = _mT(tri) @ tri if upper else tri @ _mT(tri)
        try:
            x = solve_arrays(a, b._data)
        except np.linalg.LinAlgError:
            raise LinAlgError("cholesky_solve: the factor is singular") from None
        ctx.upper = upper
        ctx.shapes = (b._data.shape, f.shape)
        ctx.save_for_backward(factor, x, a)
        return x

    @staticmethod
    def backward(ctx, g):
        factor, x, a = ctx.saved_tensors
        tri = factor.triu() if ctx.upper else factor.tril()
        a = tri.mT @ tri if ctx.upper else tri @ tri.mT  # again, differentiably
        gb = Solve.apply(a, g)
        common = gb @ x.mT + x @ gb.mT
        gl = -(factor @ common) if ctx.upper else -(common @ factor)
        b_shape, f_shape = ctx.shapes
        return unbroadcast(gb, b_shape), unbroadcast(gl, f_shape), None

    @staticmethod
    def backward_array(ctx, g):
        factor, x, a = ctx.saved_arrays
        gb = solve_arrays(a, g)
        common = gb @ _mT(x) + x @ _mT(gb)
        gl = -(factor @ common) if ctx.upper else -(common @ factor)
        b_shape, f_shape = ctx.shapes
        return unbroadcast(gb, b_shape), unbroadcast(gl, f_shape), None

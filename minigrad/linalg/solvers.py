"""``mg.linalg``'s solvers and matrix functions built on the factorizations:
triangular solves, least squares, the pseudoinverse, rank, condition number, the matrix
exponential, tensor inverses and solves, and the ``*_ex`` forms that report instead of
raising.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.functions import linalg as L
from minigrad.functions import matrix_functions as MF
from minigrad.functions.errors import ShapeError
from minigrad.functions.lu import lu_factor_arrays
from minigrad.linalg import return_types as rt
from minigrad.linalg.checks import matrix, same_dtype, square
from minigrad.linalg.decompositions import svdvals
from minigrad.linalg.lu import lu_unpack
from minigrad.linalg.norms import matrix_norm
from minigrad.tensor import Tensor, as_tensor


def _eye_like(A: Tensor) -> np.ndarray:
    return np.eye(A.shape[-1], dtype=A.dtype)


# ---------------------------------------------------------------------- triangular
def solve_triangular(
    input,
    B,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
) -> Tensor:
    """X with ``A X = B`` (``left=False``: ``X A = B``) for a triangular A: only its upper
    (``upper=True``) or lower triangle is read, and with ``unitriangular=True`` its
    diagonal is taken to be ones.

    The solve is a linear solve with the triangle of A, so the gradient of A is confined
    to that triangle (``G_A = -A^-T G X^T`` there).

    Shape: A ``(*, n, n)``, B ``(*, n, k)`` (``left=False``: ``(*, k, n)``), batch dims
    broadcast.

    Example::

        >>> A = mg.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> mg.linalg.solve_triangular(A, mg.tensor([[3.0], [4.0]]), upper=True)
        tensor([[1.],
                [1.]])
    """
    A = input
    A = square(A, "linalg.solve_triangular")
    B = matrix(B, "linalg.solve_triangular", "B")
    same_dtype(A, B, "linalg.solve_triangular")
    n = A.shape[-1]
    if B.shape[-2 if left else -1] != n:
        raise ShapeError(
            f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    if unitriangular:
        T = A.triu(1) if upper else A.tril(-1)
        T = T + _eye_like(A)
    else:
        T = A.triu() if upper else A.tril()
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return L.Solve.apply(T.mT, B.mT).mT
    return L.Solve.apply(T, B)


# ------------------------------------------------------------------------ the _ex forms
def inv_ex(A, *, check_errors: bool = False):
    """``(inverse, info)``: ``info`` (int32, ``(*)``) is 0 where A is invertible, else the
    1-based index of the first zero pivot of its LU factorization (LAPACK's ``info``);
    the inverse of a singular matrix is not meaningful (NaN here)."""
    A = square(A, "linalg.inv_ex")
    info = _lu_info(A.numpy())
    singular = info > 0
    if check_errors or not singular.any():
        return rt.linalg_inv_ex(L.Inv.apply(A), _info(info))
    return rt.linalg_inv_ex(_nan_where(singular, A.numpy(), np.linalg.inv), _info(info))


def solve_ex(A, B, *, left: bool = True, check_errors: bool = False):
    """``(result, info)``: ``solve`` that reports a singular A in ``info`` instead of
    raising."""
    A = square(A, "linalg.solve_ex")
    info = _lu_info(A.numpy())
    singular = info > 0
    if check_errors or not singular.any():
        return rt.linalg_solve_ex(solve(A, B, left=left), _info(info))
    B = as_tensor(B).detach()
    safe = np.where(singular[..., None, None], _eye_like(A), A.numpy())  # solvable stand-ins
    out = solve(Tensor._make(safe, False, None), B, left=left).numpy()
    vector = left and (B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1]))
    bad = singular.reshape(singular.shape + (1,) * (1 if vector else 2))  # (*batch, 1[, 1])
    return rt.linalg_solve_ex(Tensor._make(np.where(bad, np.nan, out), False, None), _info(info))


def _lu_info(a: np.ndarray) -> np.ndarray:
    """Per matrix: 0, or the 1-based index of the first exact zero pivot of its LU
    factorization (LAPACK's ``info``: the matrix is singular)."""
    _, _, info = lu_factor_arrays(a)
    return info


def _info(info: np.ndarray) -> Tensor:
    return Tensor._make(info.astype(np.int32), False, None)


def _nan_where(bad: np.ndarray, a: np.ndarray, fn) -> Tensor:
    safe = np.where(bad[..., None, None], np.eye(a.shape[-1], dtype=a.dtype), a)
    out = fn(safe)
    out[bad] = np.nan
    return Tensor._make(out, False, None)


# ----------------------------------------------------------------- pinv, rank, lstsq
def _tolerances(s: np.ndarray, m: int, n: int, atol, rtol, rcond=None):
    """The cut-off ``max(atol, rtol * s_max)`` per matrix, PyTorch's defaults: with
    neither given, rtol = eps * max(m, n); with only atol > 0, rtol = 0."""
    if rcond is not None:
        rtol = rcond
    atol_value = 0.0 if atol is None else _as_array(atol)
    if rtol is None:
        given = atol is not None and np.any(atol_value > 0)
        rtol = 0.0 if given else np.finfo(s.dtype).eps * max(m, n)
    smax = s.max(-1, initial=0.0) if s.shape[-1] else np.zeros(s.shape[:-1], s.dtype)
    return np.maximum(atol_value, _as_array(rtol) * smax)


def _as_array(x):
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def pinv(input, rcond=None, hermitian: bool = False, *, atol=None, rtol=None) -> Tensor:
    """The Moore-Penrose pseudoinverse: from the SVD ``A = U diag(S) Vh``,
    ``pinv(A) = Vh^T diag(1/s where s > tol, else 0) U^T`` with
    ``tol = max(atol, rtol * max(S))`` (defaults as ``matrix_rank``). ``hermitian=True``
    uses the eigendecomposition of a symmetric A (its lower triangle). The older ``rcond``
    (also positional, as in PyTorch) is an ``rtol``.

    The gradient is that of a matrix of constant rank (``functions/matrix_functions.py``).

    Shape: ``(*, m, n)`` -> ``(*, n, m)``.

    Example::

        >>> mg.linalg.pinv(mg.tensor([[1.0, 2.0]]))
        tensor([[0.2],
                [0.4]])
    """
    A = input
    A = matrix(A, "linalg.pinv")
    a = A.numpy()
    m, n = a.shape[-2:]
    if hermitian:
        values, vectors = L.eigh_arrays(a)
        tol = _tolerances(np.abs(values), m, n, atol, rtol, rcond)
        keep = np.abs(values) > tol[..., None]
        inverse = np.where(keep, 1 / np.where(keep, values, 1), 0)
        p = (vectors * inverse[..., None, :]) @ vectors.swapaxes(-1, -2)
    else:
        u, s, vh = L.svd_arrays(a, full_matrices=False)
        tol = _tolerances(s, m, n, atol, rtol, rcond)
        keep = s > tol[..., None]
        inverse = np.where(keep, 1 / np.where(keep, s, 1), 0)
        p = (vh.swapaxes(-1, -2) * inverse[..., None, :]) @ u.swapaxes(-1, -2)
    return MF.Pinv.apply(A, p.astype(a.dtype, copy=False))


def matrix_rank(input, tol=None, hermitian: bool = False, *, atol=None, rtol=None) -> Tensor:
    """The number of singular values above ``max(atol, rtol * max(S))`` (int64, ``(*)``).
    With neither given, rtol = eps * max(m, n); with only ``atol > 0``, rtol = 0. The
    older ``tol`` is an ``atol`` with rtol = 0.

    Example::

        >>> mg.linalg.matrix_rank(mg.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
    """
    A = input
    A = matrix(A, "linalg.matrix_rank")
    a = A.numpy()
    if tol is not None:
        atol, rtol = tol, 0.0
    s = (
        np.abs(L.eigh_arrays(a, compute_v=False))
        if hermitian
        else L.svd_arrays(a, compute_uv=False)
    )
    cut = _tolerances(s, *a.shape[-2:], atol, rtol)
    return Tensor._make(np.asarray((s > cut[..., None]).sum(-1), dtype=np.int64), False, None)


def lstsq(input, b, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B``: X minimizes ``||A X - B||_F``.

    Returns ``(solution, residuals, rank, singular_values)`` as PyTorch's CPU drivers
    do: ``solution`` ``(*, n, k)``; ``residuals`` the squared residuals per column
    (drivers ``'gelsd'``, ``'gelss'`` and ``'gels'``, for m > n with every matrix of full
    rank; empty otherwise and for the default ``'gelsy'``); ``rank`` (int64, ``(*)``;
    empty for ``'gels'``); ``singular_values`` (``'gelsd'`` and ``'gelss'``; else empty).
    The solution is ``pinv(A) @ B`` with A's rank cut at
    ``rcond * max(S)`` (default eps * max(m, n)), and differentiable.

    Example::

        >>> A = mg.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
        >>> mg.linalg.lstsq(A, mg.tensor([[1.0], [2.0], [3.0]])).solution
        tensor([[1.],
                [1.]])
    """
    A, B = input, b
    A = matrix(A, "torch.linalg.lstsq")
    B = as_tensor(B)
    if B.ndim < 1:
        raise ShapeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() "
                         "and (input.dim() - other.dim()) <= 1")  # fmt: skip
    same_dtype(A, B, "torch.linalg.lstsq")
    drivers = (None, "gels", "gelsy", "gelsd", "gelss")
    if driver not in drivers:
        raise ShapeError(f"torch.linalg.lstsq: parameter `driver` should be one of "
                         f"(gels, gelsy, gelsd, gelss), got {driver}")  # fmt: skip
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.shape[-2] != A.shape[-2]:
        raise ShapeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2), "
                         f"got {A.shape[-2]} and {Bm.shape[-2]}")  # fmt: skip
    m, n = A.shape[-2:]
    a = A.numpy()
    s = L.svd_arrays(a, compute_uv=False)
    rcond_value = np.finfo(a.dtype).eps * max(m, n) if rcond is None else rcond
    cut = _tolerances(s, m, n, None, rcond_value)
    rank = (s > cut[..., None]).sum(-1)
    solution = pinv(A, rtol=rcond_value) @ Bm
    residuals = _empty(a.dtype)  # gelsy gives none; the others for m > n and full rank
    if driver not in (None, "gelsy") and m > n and np.all(rank == n):
        residuals = ((A @ solution - Bm) ** 2).sum(-2)
    svals = Tensor._make(s, False, None) if driver in ("gelsd", "gelss") else _empty(a.dtype)
    if driver == "gels":  # gels assumes full rank: no rank
        rank_t = Tensor._make(np.zeros(0, dtype=np.int64), False, None)
    else:
        rank_t = Tensor._make(np.asarray(rank, dtype=np.int64), False, None)
    if vector:
        solution = solution.squeeze(-1)
    return rt.linalg_lstsq(solution, residuals, rank_t, svals)


def _empty(dtype) -> Tensor:
    return Tensor._make(np.zeros(0, dtype=dtype), False, None)


# ------------------------------------------------------------------ condition number
def cond(input, p=None) -> Tensor:
    """The condition number of A in the norm ``p``: ``||A||_p ||A^-1||_p``. For
    ``p=None`` or ``2`` it is ``s_max / s_min`` (``-2``: ``s_min / s_max``) from the
    singular values, for any ``(*, m, n)``; other norms (``'fro'``, ``'nuc'``, ``1``,
    ``-1``, ``inf``, ``-inf``) need square matrices (a singular one gives ``inf``).

    Example::

        >>> mg.linalg.cond(mg.tensor([[2.0, 0.0], [0.0, 0.5]]))
        tensor(4.)
    """
    A = input
    A = matrix(A, "linalg.cond")
    if p is None or p == 2 or p == -2:
        s = svdvals(A)
        smax, smin = s[..., 0], s[..., -1]
        return smin / smax if p == -2 else smax / smin
    if p not in ("fro", "nuc", 1, -1, math.inf, -math.inf):
        raise ShapeError(f"linalg.cond got an invalid norm type: {p}")
    A = square(A, "linalg.cond")
    inverse, info = inv_ex(A)
    out = matrix_norm(A, p) * matrix_norm(inverse, p)
    if info.numpy().any():  # a singular matrix: an infinite condition number
        return out.masked_fill(info > 0, math.inf)
    return out


# --------------------------------------------------------------------- matrix exponential
def matrix_exp(input) -> Tensor:
    """The matrix exponential ``exp(A) = sum_k A^k / k!`` (scaling and squaring with a
    Pade approximant), differentiable (``functions/matrix_functions.py``).

    Shape: ``(*, n, n)`` -> ``(*, n, n)``.

    Example::

        >>> mg.linalg.matrix_exp(mg.tensor([[0.0, 1.0], [0.0, 0.0]]))
        tensor([[1., 1.],
                [0., 1.]])
    """
    A = input
    return MF.MatrixExp.apply(square(A, "linalg.matrix_exp"))


# ---------------------------------------------------------------------- tensor forms
def tensorinv(input, ind: int = 2) -> Tensor:
    """The inverse of A read as a matrix of its first ``ind`` dims by the rest:
    ``tensordot(tensorinv(A), A, ind)`` is the identity. Shape ``A.shape[ind:] +
    A.shape[:ind]``."""
    A = input
    A = as_tensor(A)
    if ind <= 0:
        raise ShapeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = A.shape[:ind], A.shape[ind:]
    if math.prod(rows) != math.prod(cols):
        raise ShapeError(
            f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {math.prod(cols)} != {math.prod(rows)}"
        )
    return inv(A.reshape(math.prod(rows), math.prod(cols))).reshape(cols + rows)


def tensorsolve(input, other, dims=None) -> Tensor:
    """X with ``tensordot(A, X, X.ndim) = B``: X has shape ``A.shape[B.ndim:]``. ``dims``
    moves those dims of A to the end first."""
    A, B = input, other
    A, B = as_tensor(A), as_tensor(B)
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        order = [d for d in range(A.ndim) if d not in dims] + dims
        A = A.permute(*order)
    x_shape = A.shape[B.ndim :]
    rows, cols = math.prod(A.shape[: B.ndim]), math.prod(x_shape)
    if rows != cols or B.numel() != rows:  # B is read as a vector, as PyTorch reads it
        raise ShapeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {cols} != {rows}"
        )
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(x_shape)


# ---------------------------------------------------------------------- square matrices
def _square(x: Tensor, name: str) -> Tensor:
    return square(x, f"linalg.{name}")


def inv(A) -> Tensor:
    """The inverse of a square matrix (of each in a batch); see functions/linalg.py."""
    return L.Inv.apply(_square(as_tensor(A), "inv"))


def det(A) -> Tensor:
    """The determinant of a square matrix (of each in a batch)."""
    return L.Det.apply(_square(as_tensor(A), "det"))


def slogdet(A):
    """``(sign, logabsdet)``: the sign and log |det A|; the gradient flows through
    ``logabsdet`` (the sign's is 0, but it stays in the graph, as in PyTorch)."""
    A = _square(as_tensor(A), "slogdet")
    d = det(A)
    return rt.linalg_slogdet(d.sign(), d.abs().log())


def solve(A, B, *, left: bool = True) -> Tensor:
    """X with ``A X = B`` (``left=False``: ``X A = B``), A square and invertible.

    B is a (batch of) vector(s) when it is 1-D or has A's shape without its last dim;
    otherwise a (batch of) matrix ``(*, n, k)``. Batch dims broadcast.

    Example::

        >>> mg.linalg.solve(mg.tensor([[2.0, 0.0], [0.0, 4.0]]), mg.tensor([2.0, 2.0]))
        tensor([1. , 0.5])
    """
    A, B = _square(as_tensor(A), "solve"), as_tensor(B)
    same_dtype(A, B, "linalg.solve")
    if not left:
        if B.ndim < 2:
            raise ShapeError("linalg.solve: Vector broadcasting of the left hand side is not "
                             "supported for left=False. In this case linalg.solve is "
                             "equivalent to B / A.squeeze(-1)")  # fmt: skip
        return solve(A.mT, B.mT).mT
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    Bm = B.unsqueeze(-1) if vector else B
    n = A.shape[-1]
    if Bm.ndim < 2 or Bm.shape[-2] != n:
        raise ShapeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                         f"AX = B ({n}x{n} and {'x'.join(map(str, B.shape))})")  # fmt: skip
    try:
        np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
    except ValueError:
        raise ShapeError(f"linalg.solve: the batch dims of A {A.shape} and B {B.shape} do "
                         "not broadcast") from None  # fmt: skip
    X = L.Solve.apply(A, Bm)
    return X.squeeze(-1) if vector else X


def matrix_power(input, n: int) -> Tensor:
    """A @ A @ ... (n times); n = 0 the identity, n < 0 powers of the inverse."""
    A = input
    A = _square(as_tensor(A), "matrix_power")
    if n < 0:
        A, n = inv(A), -n
    out = None
    base = A
    while n:  # square and multiply
        if n & 1:
            out = base if out is None else out @ base
        base = base @ base if n > 1 else base
        n >>= 1
    if out is None:  # n = 0: the identity, in A's graph with gradient 0 (as PyTorch)
        from minigrad.ops import where

        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), A.shape)
        every = Tensor._make(np.ones(A.shape, bool), False, None)
        return where(every, Tensor._make(eye.copy(), False, None), A)
    return out


def lu_solve(LU, pivots, B, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """X with ``A X = B`` given ``A``'s compact LU (``left=False``: ``X A = B``;
    ``adjoint=True``: A^T in place of A). Differentiable in ``LU`` and ``B``.

    Shape: LU ``(*, n, n)``, B ``(*, n, k)``, batch dims broadcast.

    Example::

        >>> A = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> LU, pivots = mg.linalg.lu_factor(A)
        >>> mg.linalg.lu_solve(LU, pivots, mg.tensor([[5.0], [11.0]]))
        tensor([[1.],
                [2.]])
    """
    from minigrad.linalg.solvers import solve_triangular

    LU = square(LU, "linalg.lu_solve", "LU")
    B = matrix(B, "linalg.lu_solve", "B")
    same_dtype(LU, B, "linalg.lu_solve")
    n = LU.shape[-1]
    if B.shape[-2 if left else -1] != n:
        raise ShapeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                         f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                         f"{B.shape[-2]}x{B.shape[-1]})")  # fmt: skip
    P = lu_unpack(LU.detach(), pivots, unpack_data=False).P
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    if adjoint:  # A^T X = B: U^T L^T P^T X = B, so X = P L^-T U^-T B
        y = solve_triangular(LU.mT, B, upper=False)  # U^T y = B
        y = solve_triangular(LU.mT, y, upper=True, unitriangular=True)  # L^T z = y
        return P @ y
    y = solve_triangular(LU, P.mT @ B, upper=False, unitriangular=True)  # L y = P^T B
    return solve_triangular(LU, y, upper=True)  # U x = y

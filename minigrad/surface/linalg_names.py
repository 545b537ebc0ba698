"""The torch-level and Tensor-method names of the linear-algebra family: ``mg.svd``,
``mg.cholesky_solve``, ``x.qr()``, ``mg.cdist``, ``x.renorm(...)``, ``x.addmm_(...)`` ...

Most are PyTorch's older spellings of ``mg.linalg`` functions (different argument
orders, ``V`` instead of ``Vh``, ``some=`` for ``full_matrices=``); each says which.
``mg.linalg`` itself is imported on first use (``import minigrad`` stays fast).
"""

from __future__ import annotations

import numpy as np

from minigrad.functions import signatures
from minigrad.functions.errors import ShapeError
from minigrad.tensor import Tensor, as_tensor


def _linalg():
    from minigrad import linalg

    return linalg


def _rt():
    from minigrad.linalg import return_types

    return return_types


# ------------------------------------------------------------------------ Cholesky
def cholesky(input, upper: bool = False) -> Tensor:
    """``linalg.cholesky(input, upper=upper)`` (PyTorch's older name)."""
    return _linalg().cholesky(input, upper=upper)


def cholesky_solve(input, input2, upper: bool = False) -> Tensor:
    """X with ``A X = B`` for ``B = input`` and A given by its Cholesky factor
    ``input2`` (``A = L L^T``, or ``U^T U`` with ``upper=True``), differentiable in both
    with PyTorch's gradient (``functions/linalg.CholeskySolve``)."""
    from minigrad.functions.linalg import CholeskySolve

    b, factor = as_tensor(input), as_tensor(input2)
    if b.ndim < 2 or factor.ndim < 2 or factor.shape[-1] != factor.shape[-2]:
        raise RuntimeError(
            f"cholesky_solve: expected a matrix B (*, n, k) and a square factor (*, n, n), got "
            f"shapes {tuple(b.shape)} and {tuple(factor.shape)}"
        )
    if b.shape[-2] != factor.shape[-1]:
        raise RuntimeError(
            f"cholesky_solve: Incompatible matrix sizes for B {tuple(b.shape)} and the factor "
            f"{tuple(factor.shape)}"
        )
    return CholeskySolve.apply(b, factor, bool(upper))


def cholesky_inverse(input, upper: bool = False) -> Tensor:
    """``A^-1`` for A given by its Cholesky factor (``A = L L^T``; ``upper=True``:
    ``U^T U``)."""
    factor = as_tensor(input)
    eye = np.broadcast_to(np.eye(factor.shape[-1], dtype=factor.dtype), factor.shape)
    return cholesky_solve(Tensor._make(eye.copy(), False, None), factor, upper)


# ------------------------------------------------------------------------------- LU
def lu(A, pivot: bool = True, get_infos: bool = False):
    """``(A_LU, pivots)`` (and ``infos`` with ``get_infos=True``): ``linalg.lu_factor_ex``
    under PyTorch's older name; it does not raise for a singular matrix."""
    packed, pivots, info = _linalg().lu_factor_ex(A, pivot=pivot)
    return (packed, pivots, info) if get_infos else (packed, pivots)


def lu_solve(input, LU_data, LU_pivots) -> Tensor:
    """``linalg.lu_solve(LU_data, LU_pivots, input)``: X with A X = ``input`` (the older
    argument order)."""
    return _linalg().lu_solve(LU_data, LU_pivots, input)


def lu_unpack(LU_data, LU_pivots, unpack_data: bool = True, unpack_pivots: bool = True):
    """``(P, L, U)`` from ``lu_factor``'s compact form (see ``linalg/lu.py``)."""
    from minigrad.linalg.lu import lu_unpack as unpack

    return unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)


# ---------------------------------------------------------------------- QR, SVD, ...
def qr(input, some: bool = True):
    """``(Q, R)``: ``linalg.qr`` with ``some=True`` for ``mode='reduced'`` and
    ``False`` for ``'complete'``."""
    Q, R = _linalg().qr(input, "reduced" if some else "complete")
    return _rt().qr(Q, R)


def svd(input, some: bool = True, compute_uv: bool = True):
    """``(U, S, V)`` with ``A = U diag(S) V^T``: V, not Vh as ``linalg.svd`` returns;
    ``some=True`` is the reduced SVD. With ``compute_uv=False`` U and V are zeros (and S
    has no gradient through them)."""
    A = as_tensor(input)
    if not compute_uv:  # zeros of shapes (m, m) and (n, n), whatever ``some`` says
        m, n = A.shape[-2:]
        U = Tensor._make(np.zeros(A.shape[:-2] + (m, m), dtype=A.dtype), False, None)
        V = Tensor._make(np.zeros(A.shape[:-2] + (n, n), dtype=A.dtype), False, None)
        return _rt().svd(U, _linalg().svdvals(A), V)
    U, S, Vh = _linalg().svd(A, full_matrices=not some)
    return _rt().svd(U, S, Vh.mT)


def pinverse(input, rcond: float = 1e-15) -> Tensor:
    """``linalg.pinv(input, rtol=rcond)``."""
    return _linalg().pinv(input, rtol=rcond)


def matrix_exp(input) -> Tensor:
    """``linalg.matrix_exp(input)``."""
    return _linalg().matrix_exp(input)


def triangular_solve(
    input, A, upper: bool = True, transpose: bool = False, unitriangular: bool = False
):
    """``(solution, cloned_coefficient)``: X with ``op(A) X = b`` for ``b = input``, A
    triangular (op(A) = A^T with ``transpose=True``); ``cloned_coefficient`` is a copy of
    A."""
    A = as_tensor(A)
    T = A.mT if transpose else A
    X = _linalg().solve_triangular(
        T, as_tensor(input), upper=upper != transpose, unitriangular=unitriangular
    )
    return _rt().triangular_solve(X, A.clone())


def geqrf(input):
    """``(a, tau)``: QR in LAPACK's compact form (see ``minigrad/linalg/householder.py``)."""
    from minigrad.linalg.householder import geqrf as _geqrf

    return _geqrf(input)


def orgqr(input, input2) -> Tensor:
    """``linalg.householder_product(input, input2)``: Q from ``geqrf``'s reflectors and
    their scales ``input2``."""
    return _linalg().householder_product(input, input2)


def ormqr(input, input2, input3, left: bool = True, transpose: bool = False) -> Tensor:
    """``Q @ input3`` (``left=False``: ``input3 @ Q``; ``transpose``: Q^T) with Q given by
    ``geqrf``'s reflectors ``input`` and scales ``input2``, without forming Q."""
    from minigrad.linalg.householder import ormqr as _ormqr

    return _ormqr(input, input2, input3, left, transpose)


def chain_matmul(*matrices) -> Tensor:
    """``linalg.multi_dot(matrices)``: the product of the matrices given as arguments."""
    return _linalg().multi_dot(matrices)


# ---------------------------------------------------------------------------- norms
def norm(input, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
    """PyTorch's older ``torch.norm``: ``p='fro'`` the 2-norm over ``dim`` (every element
    by default), ``p='nuc'`` the nuclear norm over two dims, a number ``p`` a vector norm
    over ``dim`` (every element by default)."""
    linalg = _linalg()
    if out is not None:
        raise ShapeError("norm: out= is not supported in minigrad; use the result")
    dims = (dim,) if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dims is None or len(dims) <= 2):
            return linalg.vector_norm(input, 2, dims, keepdim, dtype=dtype)
        A = as_tensor(input)
        dims = tuple(range(A.ndim)) if dims is None else dims
        return linalg.matrix_norm(A, p, dims, keepdim, dtype=dtype)
    return linalg.vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype)


def frobenius_norm(input, dim=(-2, -1), keepdim: bool = False) -> Tensor:
    """sqrt(sum x^2) over ``dim``."""
    return _linalg().vector_norm(input, 2, dim, keepdim)


def nuclear_norm(input, dim=(-2, -1), keepdim: bool = False) -> Tensor:
    """The sum of the singular values over the two dims ``dim`` (also called as
    ``nuclear_norm(input, keepdim)``)."""
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = (-2, -1), dim
    A = as_tensor(input)
    if dim == (-2, -1) and A.ndim != 2:
        raise ShapeError(f"nuclear_norm: Expected a 2-D tensor, got {A.ndim}-D (give dim)")
    return _linalg().matrix_norm(A, "nuc", dim, keepdim)


def dist(input, other, p=2) -> Tensor:
    """The p-norm of ``input - other`` (broadcast), over every element."""
    signatures.tensor_argument("dist", other, "other", 2)
    return _linalg().vector_norm(as_tensor(input) - other, p)


def cdist(
    x1, x2, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"
) -> Tensor:
    """The p-norm distance between each row of ``x1`` ``(*, P, M)`` and each row of ``x2``
    ``(*, R, M)``: ``(*, P, R)``, batch dims broadcast. Computed from the differences
    (every ``compute_mode`` gives the same numbers here); the gradient at a distance of 0
    is 0, as in PyTorch."""
    a, b = as_tensor(x1), as_tensor(x2)
    if a.ndim < 2 or b.ndim < 2:
        raise ShapeError(f"cdist only supports at least 2D tensors, X1 got: {a.ndim}D")
    if a.shape[-1] != b.shape[-1]:
        raise ShapeError(
            f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} X2: {b.shape[-1]}"
        )
    if p < 0:
        raise ShapeError(f"cdist only supports non-negative p values, got {p}")
    diff = a.unsqueeze(-2) - b.unsqueeze(-3)  # (*, P, R, M)
    return _linalg().vector_norm(diff, p, -1)


def cross(input, other, dim=None) -> Tensor:
    """The cross product of 3-vectors along ``dim``; ``dim=None`` is the first dim of size
    3 (PyTorch's older default; ``linalg.cross`` uses -1)."""
    a, b = as_tensor(input), as_tensor(other)
    if dim is None:
        shape = np.broadcast_shapes(a.shape, b.shape)
        sizes = [d for d, n in enumerate(shape) if n == 3]
        if not sizes:
            raise ShapeError(f"no dimension of size 3 in input (shape {tuple(shape)})")
        dim = sizes[0]
    return _linalg().cross(a, b, dim=dim)


def vander(x, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-D x: columns x^(N-1), ..., x, 1 (``increasing=True``:
    1, x, ..., x^(N-1))."""
    x = as_tensor(x)
    if x.ndim != 1:
        raise ShapeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise ShapeError("N must be non-negative.")
    if N == 0:
        return Tensor._make(np.zeros((x.shape[0], 0), dtype=_vander_dtype(x)), False, None)
    if x.dtype.kind in "bi":
        x = x.long()
    if N == 1:
        out = x.unsqueeze(-1) * 0 + 1
    else:
        out = _linalg().vander(x, N=N)
    return out if increasing else out.flip(-1)


def _vander_dtype(x: Tensor):
    return np.int64 if x.dtype.kind in "bi" else x.dtype


def renorm(input, p, dim: int, maxnorm) -> Tensor:
    """Each slice ``input.select(dim, i)`` whose p-norm exceeds ``maxnorm`` scaled down to
    norm ``maxnorm`` (by ``maxnorm / (norm + 1e-7)``, as PyTorch); the others unchanged."""
    x = as_tensor(input)
    if p <= 0:
        raise ShapeError(f"renorm: non-positive-norm not supported (p = {p})")
    if x.ndim < 1:
        raise ShapeError("renorm: input needs at least 1 dimension, got 0 dimensions")
    dim = dim % x.ndim
    others = tuple(d for d in range(x.ndim) if d != dim)
    norms = _linalg().vector_norm(x, p, others, keepdim=True)
    scale = (maxnorm / (norms + 1e-7)).where(norms > maxnorm, 1.0)
    return x * scale


def renorm_(input, p, dim: int, maxnorm) -> Tensor:
    """``renorm`` written into ``input``."""
    return input._inplace("renorm_", renorm(input, p, dim, maxnorm))


# --------------------------------------------------- in-place matrix products (x.addmm_)
def addmm_(input, mat1, mat2, *legacy, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * mat1 @ mat2`` written into ``input`` (and so on below;
    the legacy forms with leading numbers as in ``addmm``)."""
    out = input.addmm(mat1, mat2, *legacy, beta=beta, alpha=alpha)
    return input._inplace("addmm_", out)


def addmv_(input, mat, vec, *legacy, beta=1, alpha=1) -> Tensor:
    return input._inplace("addmv_", input.addmv(mat, vec, *legacy, beta=beta, alpha=alpha))


def addr_(input, vec1, vec2, *legacy, beta=1, alpha=1) -> Tensor:
    return input._inplace("addr_", input.addr(vec1, vec2, *legacy, beta=beta, alpha=alpha))


def baddbmm_(input, batch1, batch2, *legacy, beta=1, alpha=1) -> Tensor:
    out = input.baddbmm(batch1, batch2, *legacy, beta=beta, alpha=alpha)
    return input._inplace("baddbmm_", out)


def addbmm_(input, batch1, batch2, *legacy, beta=1, alpha=1) -> Tensor:
    out = input.addbmm(batch1, batch2, *legacy, beta=beta, alpha=alpha)
    return input._inplace("addbmm_", out)


# ------------------------------------------------------------------ randomized SVD, PCA
def svd_lowrank(A, q: int | None = 6, niter: int = 2, M=None):
    """An approximate rank-q SVD ``(U, S, V)`` of ``A - M`` (Halko, Martinsson and Tropp):
    an orthonormal basis Q of the range of ``(A - M) G`` for a random Gaussian G
    ``(n, q)``, refined by ``niter`` power iterations, then the SVD of the small
    ``Q^T (A - M)``. Uses minigrad's random generator (``mg.manual_seed``), so the
    numbers are not PyTorch's; it is differentiable as the operations it is made of."""
    from minigrad.creation import randn

    linalg = _linalg()
    A = as_tensor(A)
    if M is not None:
        A = A - M
    m, n = A.shape[-2:]
    q = 6 if q is None else q
    if not 0 <= q <= min(m, n):
        raise ShapeError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    G = randn(*A.shape[:-2], n, q, dtype=A.dtype)
    Q = linalg.qr(A @ G).Q
    for _ in range(niter):
        Q = linalg.qr(A.mT @ Q).Q
        Q = linalg.qr(A @ Q).Q
    U, S, Vh = linalg.svd(Q.mT @ A, full_matrices=False)
    return Q @ U, S, Vh.mT


def pca_lowrank(A, q: int | None = None, center: bool = True, niter: int = 2):
    """``svd_lowrank`` of A with each column's mean removed (``center=True``); q is
    ``min(6, m, n)`` by default. Returns ``(U, S, V)``: V's columns are the principal
    directions."""
    A = as_tensor(A)
    m, n = A.shape[-2:]
    q = min(6, m, n) if q is None else q
    if center:
        A = A - A.mean(-2, keepdim=True)
    return svd_lowrank(A, q, niter)


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):  # fmt: skip
    """``(E, X)``: the k largest (``largest=False``: smallest) eigenpairs of the symmetric
    generalized problem ``A X = B X diag(E)`` (B symmetric positive-definite, the identity
    by default).

    PyTorch iterates (LOBPCG) towards them; minigrad's A is dense, so it computes them
    exactly: with ``B = L L^T``, the eigenpairs (E, V) of ``L^-1 A L^-T`` give
    ``X = L^-T V``. The iteration's settings (``X`` as a start, ``n``, ``iK``, ``niter``,
    ``tol``, ``method``, ``tracker``, ``ortho_*``) are accepted and change nothing but the
    number of pairs (k, else n, else X's columns, else 1). Differentiable in A and B
    through ``cholesky``, ``solve_triangular`` and ``eigh``.

    Shape: A ``(*, m, m)`` -> E ``(*, k)``, X ``(*, m, k)``; m must be at least 3 k
    (PyTorch's condition for the iteration).
    """
    linalg = _linalg()
    A = as_tensor(A)
    if k is None:
        k = n if n is not None else (as_tensor(X).shape[-1] if X is not None else 1)
    m = A.shape[-1]
    if m < 3 * k:
        raise ValueError(
            f"LPBPCG algorithm is not applicable when the number of A rows (={m}) is smaller "
            f"than 3 x the number of requested eigenpairs (={k})"
        )
    if B is None:
        values, vectors = linalg.eigh(A)
    else:
        lower = linalg.cholesky(as_tensor(B))
        half = linalg.solve_triangular(lower, A, upper=False)  # L^-1 A
        values, V = linalg.eigh(linalg.solve_triangular(lower, half.mT, upper=False))
        vectors = linalg.solve_triangular(lower.mT, V, upper=True)  # L^-T V
    if largest is None or largest:  # eigh's order is ascending: the last k, largest first
        return values[..., m - k :].flip(-1), vectors[..., m - k :].flip(-1)
    return values[..., :k], vectors[..., :k]


def _tensor_norm(self, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """``x.norm(p, dim, keepdim, dtype)``: ``torch.norm(x, ...)`` (``dtype`` fourth, no ``out``)."""
    return norm(self, p, dim, keepdim, dtype=dtype)


#: Tensor methods with no function of that name.
TENSOR_METHODS = {"norm": _tensor_norm}
#: Tensor methods (the tensor is the first argument).
METHODS = (
    "cholesky cholesky_inverse cholesky_solve cross dist geqrf lu lu_solve matrix_exp orgqr "
    "ormqr pinverse qr svd triangular_solve renorm renorm_ addmm_ addmv_ addr_ baddbmm_ "
    "addbmm_"
).split()
_METHOD_ONLY = {"renorm_", "addmm_", "addr_", "baddbmm_", "addbmm_"}
#: ``mg.X`` functions.
FUNCTIONS = [name for name in METHODS if name not in _METHOD_ONLY] + (
    "lu_unpack svd_lowrank pca_lowrank lobpcg chain_matmul norm frobenius_norm nuclear_norm "
    "vander cdist"
).split()

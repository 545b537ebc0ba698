"""``mg.linalg``: ``torch.linalg`` on NumPy: norms, inverses and solves here; the
factorizations (``decompositions.py``), the LU family (``lu.py``), LDL^T (``ldl.py``),
triangular and least-squares solvers and matrix functions (``solvers.py``) and
Householder reflectors (``householder.py``) in their own files.

``vector_norm(x, ord=2, dim=None, keepdim=False)`` is ``(sum |x_i|^ord)^(1/ord)`` over
``dim`` (every element by default); ``ord=inf`` is ``max |x_i|``, ``-inf`` ``min |x_i|``,
``0`` the count of non-zeros. ``norm(x)`` is the 2-norm of all elements (the Frobenius
norm of a matrix), or a vector norm along one ``dim``. The 2-norm has a gradient of 0
at ``x = 0``, as in PyTorch (see ``functions/vector_norm.py``).
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.functions import linalg as L
from minigrad.functions import reduction as R
from minigrad.functions.errors import ShapeError
from minigrad.functions.linalg import LinAlgError
from minigrad.functions.vector_norm import Norm2
from minigrad.linalg import return_types as rt
from minigrad.linalg.checks import same_dtype as _same_dtype
from minigrad.linalg.checks import square as _checked_square
from minigrad.linalg.decompositions import cholesky, cholesky_ex, eigh, eigvalsh, qr, svd, svdvals
from minigrad.linalg.householder import householder_product
from minigrad.linalg.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from minigrad.linalg.lu import lu, lu_factor, lu_factor_ex, lu_solve
from minigrad.linalg.solvers import (
    cond,
    inv_ex,
    lstsq,
    matrix_exp,
    matrix_rank,
    pinv,
    solve_ex,
    solve_triangular,
    tensorinv,
    tensorsolve,
)
from minigrad.tensor import Tensor, as_tensor

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh",
    "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex",
    "ldl_solve", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matmul",
    "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv",
    "qr", "slogdet", "solve", "solve_ex",
    "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
    "vector_norm",
]  # fmt: skip


def vector_norm(input, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """The vector ``ord``-norm of ``x`` over ``dim`` (see the module docstring).

    Example::

        >>> mg.linalg.vector_norm(mg.tensor([3.0, 4.0]))
        tensor(5.)
    """
    x = input
    x = as_tensor(x)
    if dtype is not None:
        x = x.to(dtype)
    if x.dtype.kind != "f":
        raise TypeError(
            f"linalg.vector_norm: expected a floating point input, got {x.dtype} (use "
            "x.float() or dtype=)"
        )
    if isinstance(ord, str) or isinstance(ord, bool):
        raise ValueError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    dims = R.reduce_dims(dim, x.ndim)
    if ord == 2:
        return Norm2.apply(x, dims, keepdim)
    a = x.abs()
    if ord == math.inf:
        return a.amax(dim, keepdim)
    if ord == -math.inf:
        return a.amin(dim, keepdim)
    if ord == 0:
        return (a != 0).to(x.dtype).sum(dim, keepdim)
    if ord == 1:
        return a.sum(dim, keepdim)
    return (a**ord).sum(dim, keepdim) ** (1.0 / ord)


def norm(input, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """A vector or a matrix norm, as ``torch.linalg.norm``: with ``dim`` an int (or a
    1-tuple) a vector norm along it, with ``dim`` a 2-tuple a matrix norm over those dims;
    with ``dim=None`` the 2-norm of every element when ``ord`` is None, else a vector norm
    of a 1-D input or a matrix norm of a 2-D one.

    Example::

        >>> mg.linalg.norm(mg.tensor([[3.0, 0.0], [0.0, 4.0]]), 2)
        tensor(4.)
    """
    A = input
    A = as_tensor(A)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is None:
        if ord is None:
            return vector_norm(A, 2, None, keepdim, dtype=dtype)
        if A.ndim not in (1, 2):
            raise ShapeError(f"linalg.norm: If dim is not specified but ord is, the input "
                             f"must be 1D or 2D. Got {A.ndim}D.")  # fmt: skip
        dim = tuple(range(A.ndim))
    if len(dim) == 1:
        if isinstance(ord, str):
            raise ShapeError(f"linalg.vector_norm: ord={ord!r} is a matrix norm; "
                             "use two dims")  # fmt: skip
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    raise ShapeError(
        f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"
    )


# ---------------------------------------------------------------------- square matrices
def _square(x: Tensor, name: str) -> Tensor:
    return _checked_square(x, f"linalg.{name}")


def inv(A) -> Tensor:
    """The inverse of a square matrix (of each in a batch); see functions/linalg.py."""
    return L.Inv.apply(_square(as_tensor(A), "inv"))


def det(A) -> Tensor:
    """The determinant of a square matrix (of each in a batch)."""
    return L.Det.apply(_square(as_tensor(A), "det"))


def slogdet(A):
    """``(sign, logabsdet)``: the sign and log |det A|; the gradient flows through
    ``logabsdet``."""
    A = _square(as_tensor(A), "slogdet")
    d = det(A)
    return rt.linalg_slogdet(d.sign().detach(), d.abs().log())


def solve(A, B, *, left: bool = True) -> Tensor:
    """X with ``A X = B`` (``left=False``: ``X A = B``), A square and invertible.

    B is a (batch of) vector(s) when it is 1-D or has A's shape without its last dim;
    otherwise a (batch of) matrix ``(*, n, k)``. Batch dims broadcast.

    Example::

        >>> mg.linalg.solve(mg.tensor([[2.0, 0.0], [0.0, 4.0]]), mg.tensor([2.0, 2.0]))
        tensor([1. , 0.5])
    """
    A, B = _square(as_tensor(A), "solve"), as_tensor(B)
    _same_dtype(A, B, "linalg.solve")
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


def matrix_power(input, n: int) -> Tensor:  # noqa: A002
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
    if out is None:
        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), A.shape)
        return Tensor._make(eye.copy(), False, None)
    return out


def multi_dot(tensors) -> Tensor:
    """The product of several matrices (1-D first and last ones as row / column)."""
    ts = [as_tensor(t) for t in tensors]
    if len(ts) < 2:
        raise ShapeError("linalg.multi_dot: expected at least two tensors")
    out = ts[0]
    for t in ts[1:]:
        out = out @ t
    return out


def matmul(input, other) -> Tensor:  # noqa: A002
    return as_tensor(input) @ other


def vecdot(x, y, *, dim: int = -1) -> Tensor:
    """sum(x * y) along ``dim``, broadcasting."""
    return (as_tensor(x) * y).sum(dim)


def cross(input, other, *, dim: int = -1) -> Tensor:  # noqa: A002
    """The cross product of 3-vectors along ``dim``."""
    a, b = as_tensor(input), as_tensor(other)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = a.expand(*shape), b.expand(*shape)
    if shape[dim] != 3:
        raise ShapeError(f"linalg.cross: dim {dim} must have size 3, got {shape[dim]}")
    a0, a1, a2 = (a.select(dim, i) for i in range(3))
    b0, b1, b2 = (b.select(dim, i) for i in range(3))
    from minigrad.ops import stack

    return stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim % len(shape))


def diagonal(A, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return as_tensor(A).diagonal(offset, dim1, dim2)


def matrix_norm(input, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """A matrix norm over the two dims ``dim``: ``'fro'`` sqrt(sum a_ij^2); ``'nuc'`` the
    sum of the singular values; ``2`` / ``-2`` the largest / smallest singular value;
    ``1`` / ``-1`` the max / min column sum of |A|; ``inf`` / ``-inf`` the max / min row
    sum.

    Example::

        >>> mg.linalg.matrix_norm(mg.tensor([[1.0, -2.0], [3.0, 4.0]]), 1)
        tensor(6.)
    """
    A = input
    A = as_tensor(A) if dtype is None else as_tensor(A).to(dtype)
    if A.dtype.kind != "f":
        from minigrad.linalg.checks import floating

        floating(A, "linalg.matrix_norm")
    if A.ndim < 2:
        raise ShapeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                         "dimensions.")  # fmt: skip
    d0, d1 = dim[0] % A.ndim, dim[1] % A.ndim
    if d0 == d1:
        raise ShapeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in (1, -1):
        sums = A.abs().sum(d0, keepdim=True)
        out = sums.amax(d1, keepdim=True) if ord == 1 else sums.amin(d1, keepdim=True)
    elif ord in (math.inf, -math.inf):
        sums = A.abs().sum(d1, keepdim=True)
        out = sums.amax(d0, keepdim=True) if ord > 0 else sums.amin(d0, keepdim=True)
    elif ord in ("nuc", 2, -2):
        rest = [d for d in range(A.ndim) if d not in (d0, d1)]
        s = svdvals(A.permute(*rest, d0, d1))  # (*rest, k), descending
        out = s.sum(-1) if ord == "nuc" else (s[..., 0] if ord == 2 else s[..., -1])
        for d in sorted((d0, d1)):
            out = out.unsqueeze(d)
    else:
        raise ShapeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return out if keepdim else out.squeeze((d0, d1))


def vander(x, *, N: int | None = None) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of x: its columns are x^0, x^1, ..., x^(N-1) (N = the
    length of x by default). Built from products, so the gradient at x = 0 is finite.

    Shape: ``(*, n)`` -> ``(*, n, N)``.

    Example::

        >>> mg.linalg.vander(mg.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [1, 2, 4],
                [1, 3, 9]])
    """
    from minigrad.ops import stack

    x = as_tensor(x)
    if x.ndim < 1:
        raise ShapeError("linalg.vander: x must have at least one dimension.")
    if x.dtype.kind == "b":
        raise ShapeError("linalg.vander supports floating point, complex, and integer "
                         "tensors, but got Bool")  # fmt: skip
    if N is not None and N <= 1:
        raise ShapeError("N must be greater than 1.")
    n = x.shape[-1] if N is None else N
    columns = [x * 0 + 1]
    for _ in range(1, n):
        columns.append(columns[-1] * x)
    return stack(columns, -1)


def logdet(A) -> Tensor:
    """log det A (NaN where the determinant is negative, as PyTorch)."""
    return det(A).log()


def chain_matmul(*matrices) -> Tensor:
    return multi_dot(matrices)


from minigrad.unsupported import module_getattr  # noqa: E402

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)

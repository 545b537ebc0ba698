"""``mg.linalg``: ``torch.linalg`` on NumPy. Products and small helpers here; the norms
(``norms.py``), the factorizations (``decompositions.py``), the LU family (``lu.py``),
LDL^T (``ldl.py``), inverses, determinants and solvers, triangular and least-squares
ones included, and matrix functions (``solvers.py``) and Householder reflectors
(``householder.py``) in their own files.
"""

from __future__ import annotations

import numpy as np

from minigrad.amp.autocast_mode import lower_precision
from minigrad.functions.errors import ShapeError
from minigrad.functions.linalg import LinAlgError
from minigrad.functions.reduction import normalize_dims
from minigrad.linalg.checks import LinalgDtypeError
from minigrad.linalg.decompositions import cholesky, cholesky_ex, eigh, eigvalsh, qr, svd, svdvals
from minigrad.linalg.householder import householder_product
from minigrad.linalg.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from minigrad.linalg.lu import lu, lu_factor, lu_factor_ex
from minigrad.linalg.norms import matrix_norm, norm, vector_norm
from minigrad.linalg.solvers import (
    cond,
    det,
    inv,
    inv_ex,
    lstsq,
    lu_solve,
    matrix_exp,
    matrix_power,
    matrix_rank,
    pinv,
    slogdet,
    solve,
    solve_ex,
    solve_triangular,
    tensorinv,
    tensorsolve,
)
from minigrad.printing import torch_dtype_name
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


def multi_dot(tensors) -> Tensor:
    """The product of several matrices (1-D first and last ones as row / column)."""
    ts = [as_tensor(t) for t in tensors]
    if len(ts) < 2:
        raise ShapeError("linalg.multi_dot: expected at least two tensors")
    out = ts[0]
    for t in ts[1:]:
        out = out @ t
    return out


def matmul(input, other) -> Tensor:
    return as_tensor(input) @ other


@lower_precision  # bfloat16 under mg.autocast (minigrad/amp/autocast_mode.py)
def vecdot(x, y, *, dim: int = -1) -> Tensor:
    """sum(x * y) along ``dim``, broadcasting."""
    x = as_tensor(x)
    if x.dtype.kind != "f":
        raise LinalgDtypeError(
            "linalg.vecdot: Expected a floating point or complex tensor as input. Got "
            f"{torch_dtype_name(x.dtype)}"
        )
    return (x * y).sum(dim)


def cross(input, other, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim``."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim != b.ndim:
        raise ShapeError("linalg.cross: inputs must have the same number of dimensions.")
    (d,) = normalize_dims(dim, a.ndim)
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise ShapeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and "
            f"{b.shape[d]}"
        )
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = a.expand(*shape), b.expand(*shape)
    a0, a1, a2 = (a.select(dim, i) for i in range(3))
    b0, b1, b2 = (b.select(dim, i) for i in range(3))
    from minigrad.ops import stack

    return stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim % len(shape))


def diagonal(A, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return as_tensor(A).diagonal(offset, dim1, dim2)


def vander(x, *, N: int | None = None) -> Tensor:
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
    if x.ndim < 1:  # a 0-d x is one value, as in PyTorch: one row
        x = x.reshape(1)
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


def chain_matmul(*matrices) -> Tensor:
    return multi_dot(matrices)


from minigrad.unsupported import module_getattr  # noqa: E402

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)

"""``mg.linalg``: norms, as ``torch.linalg``.

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
from minigrad.tensor import Tensor, as_tensor

__all__ = [
    "LinAlgError", "cross", "det", "diagonal", "inv", "matmul", "matrix_norm", "matrix_power",
    "multi_dot", "norm", "slogdet", "solve", "vecdot", "vector_norm",
]  # fmt: skip


def vector_norm(x, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """The vector ``ord``-norm of ``x`` over ``dim`` (see the module docstring).

    Example::

        >>> mg.linalg.vector_norm(mg.tensor([3.0, 4.0]))
        tensor(5.)
    """
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


def norm(x, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """``torch.linalg.norm`` for what minigrad supports: the 2-norm of every element
    (``ord=None``, or ``"fro"`` on a matrix) and vector norms along one ``dim``.
    Matrix norms other than Frobenius (``"nuc"``, ``2`` over two dims) raise."""
    x = as_tensor(x)
    if ord is None or ord == "fro":
        if ord == "fro" and dim is None and x.ndim != 2:
            raise ValueError(
                f"linalg.norm: ord='fro' needs a 2-D input or two dims, got {x.ndim} dims"
            )
        return vector_norm(x, 2, dim, keepdim, dtype=dtype)
    if dim is None and x.ndim == 1 or isinstance(dim, int):
        return vector_norm(x, ord, dim, keepdim, dtype=dtype)
    raise NotImplementedError(
        f"linalg.norm: matrix norm ord={ord!r} is not implemented in minigrad (only "
        "Frobenius); use linalg.vector_norm for vector norms"
    )


# ---------------------------------------------------------------------- square matrices
def _square(x: Tensor, name: str) -> Tensor:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"linalg.{name}: expected (a batch of) square matrices, got {x.shape}")
    if x.dtype.kind != "f":
        raise TypeError(f"linalg.{name}: expected a floating point input, got {x.dtype}")
    return x


def inv(A) -> Tensor:
    """The inverse of a square matrix (of each in a batch); see functions/linalg.py."""
    return L.Inv.apply(_square(as_tensor(A), "inv"))


def det(A) -> Tensor:
    """The determinant of a square matrix (of each in a batch)."""
    return L.Det.apply(_square(as_tensor(A), "det"))


def slogdet(A):
    """``(sign, log|det A|)``; the gradient flows through ``log|det A|``."""
    A = _square(as_tensor(A), "slogdet")
    d = det(A)
    return d.sign().detach(), d.abs().log()


def solve(A, B, *, left: bool = True) -> Tensor:
    """X with A X = B (``left=False``: X A = B)."""
    A, B = _square(as_tensor(A), "solve"), as_tensor(B)
    if not left:
        return solve(A.mT, B.mT).mT
    if B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1]):  # vector(s)
        return L.Solve.apply(A, B.unsqueeze(-1)).squeeze(-1)
    return L.Solve.apply(A, B)


def matrix_power(A, n: int) -> Tensor:
    """A @ A @ ... (n times); n = 0 the identity, n < 0 powers of the inverse."""
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


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """The Frobenius norm (``"fro"``), or the max column / row sum of |A| (``1``,
    ``inf``, and ``-1``, ``-inf`` for the min). Spectral and nuclear norms raise."""
    A = as_tensor(A) if dtype is None else as_tensor(A).to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, dim, keepdim)
    d0, d1 = dim
    if ord in (1, -1):
        sums = A.abs().sum(d0, keepdim=True)
        out = sums.amax(d1, keepdim=True) if ord == 1 else sums.amin(d1, keepdim=True)
    elif ord in (math.inf, -math.inf):
        sums = A.abs().sum(d1, keepdim=True)
        out = sums.amax(d0, keepdim=True) if ord > 0 else sums.amin(d0, keepdim=True)
    else:
        raise NotImplementedError(
            f"linalg.matrix_norm: ord={ord!r} needs singular values, which minigrad does "
            "not compute; use 'fro', 1, -1, inf or -inf"
        )
    return out if keepdim else out.squeeze((d0 % A.ndim, d1 % A.ndim))


def logdet(A) -> Tensor:
    """log det A (NaN where the determinant is negative, as PyTorch)."""
    return det(A).log()


def chain_matmul(*matrices) -> Tensor:
    return multi_dot(matrices)

from minigrad.unsupported import module_getattr  # noqa: E402

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)

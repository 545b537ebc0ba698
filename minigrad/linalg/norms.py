"""Vector and matrix norms: ``vector_norm``, ``norm``, ``matrix_norm``.

``vector_norm(x, ord=2, dim=None, keepdim=False)`` is ``(sum |x_i|^ord)^(1/ord)`` over
``dim`` (every element by default); ``ord=inf`` is ``max |x_i|``, ``-inf`` ``min |x_i|``,
``0`` the count of non-zeros. ``norm(x)`` is the 2-norm of all elements (the Frobenius
norm of a matrix), or a vector norm along one ``dim``. The 2-norm has a gradient of 0
at ``x = 0``, as in PyTorch (see ``functions/vector_norm.py``).
"""

from __future__ import annotations

import math

from minigrad.functions import reduction as R
from minigrad.functions.errors import DtypeError, ShapeError
from minigrad.functions.vector_norm import Norm2, PNorm
from minigrad.linalg.checks import floating
from minigrad.linalg.decompositions import svdvals
from minigrad.tensor import Tensor, as_tensor


def vector_norm(input, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
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
        raise DtypeError(
            f"linalg.vector_norm: expected a floating point input, got {x.dtype} (use "
            "x.float() or dtype=)"
        )
    if isinstance(ord, str) or isinstance(ord, bool):
        raise ValueError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    dims = R.reduce_dims(dim, x.ndim)
    if ord == 2:
        return Norm2.apply(x, dims, keepdim)
    if math.isinf(ord) and 0 in [x.shape[d] for d in dims]:
        raise ShapeError(
            f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
            "operation does not have an identity"
        )
    return PNorm.apply(x, float(ord), dims, keepdim)


def norm(input, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
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


def matrix_norm(input, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
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
        out = _extreme(A.abs().sum(d0, keepdim=True), d1, ord > 0)  # column sums
    elif ord in (math.inf, -math.inf):
        out = _extreme(A.abs().sum(d1, keepdim=True), d0, ord > 0)  # row sums
    elif ord in ("nuc", 2, -2):
        rest = [d for d in range(A.ndim) if d not in (d0, d1)]
        s = svdvals(A.permute(*rest, d0, d1))  # (*rest, k), descending
        # amax / amin, not s[..., 0]: tied singular values share the gradient (PyTorch)
        out = s.sum(-1) if ord == "nuc" else _extreme(s, -1, ord > 0)
        if ord != "nuc":
            out = out.squeeze(-1)
        for d in sorted((d0, d1)):
            out = out.unsqueeze(d)
    else:
        raise ShapeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return out if keepdim else out.squeeze((d0, d1))


def _extreme(values: Tensor, dim: int, largest: bool) -> Tensor:
    """``amax`` / ``amin`` over ``dim`` (kept): a norm's largest of no values is 0 (every
    norm is >= 0), its smallest of none an error, as in PyTorch."""
    if values.shape[dim] == 0:
        if not largest:
            raise ShapeError(
                f"linalg.matrix_norm: amin(): Expected reduction dim {dim} to have non-zero size."
            )
        return values.sum(dim, keepdim=True)  # zeros, in the graph
    return values.amax(dim, keepdim=True) if largest else values.amin(dim, keepdim=True)

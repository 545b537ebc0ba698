"""``mg.linalg``: norms, as ``torch.linalg``.

``vector_norm(x, ord=2, dim=None, keepdim=False)`` is ``(sum |x_i|^ord)^(1/ord)`` over
``dim`` (every element by default); ``ord=inf`` is ``max |x_i|``, ``-inf`` ``min |x_i|``,
``0`` the count of non-zeros. ``norm(x)`` is the 2-norm of all elements (the Frobenius
norm of a matrix), or a vector norm along one ``dim``. The 2-norm has a gradient of 0
at ``x = 0``, as in PyTorch (see ``functions/vector_norm.py``).
"""

from __future__ import annotations

import math

from minigrad.functions import reduction as R
from minigrad.functions.vector_norm import Norm2
from minigrad.tensor import Tensor, as_tensor

__all__ = ["norm", "vector_norm"]


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

"""Distances and similarities: ``pairwise_distance``, ``cosine_similarity``, ``pdist``,
``normalize``, written with Tensor operations (autograd differentiates them)."""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.functions.errors import DtypeError
from minigrad.printing import torch_dtype_name
from minigrad.tensor import Tensor, as_tensor

__all__ = ["cosine_similarity", "normalize", "pairwise_distance", "pdist"]


def _p_norm(d: Tensor, p: float, dim: int, keepdim: bool = False) -> Tensor:
    """``(sum |d|^p)^(1/p)`` along ``dim``, any order (0 counts the non-zeros, inf is the
    largest ``|d|``): ``linalg.vector_norm``, whose gradient at 0 is PyTorch's, where
    ``sqrt(sum d^2)`` would give NaN (a zero distance) and ``** (1 / 0)`` would raise."""
    from minigrad.linalg.norms import vector_norm

    d = d if d.dtype.kind == "f" else d.float()  # integer inputs give float distances
    return vector_norm(d, p, dim, keepdim)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dimension (inputs broadcast).

    Shape: ``(N, D)`` and ``(N, D)`` (or ``(D,)``) -> ``(N,)``.

    Example::

        >>> F.pairwise_distance(mg.zeros(2, 3), mg.ones(2, 3))  # about sqrt(3)
    """
    x1, x2 = as_tensor(x1), as_tensor(x2)
    dim = -1 if max(x1.ndim, x2.ndim) > 0 else 0
    return _p_norm(x1 - x2 + eps, p, dim, keepdim)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``x1 . x2 / (max(||x1||, eps) max(||x2||, eps))`` along ``dim`` (inputs broadcast).

    Shape: ``(*, D, *)`` twice -> the broadcast shape without ``dim``.
    """
    x1, x2 = as_tensor(x1), as_tensor(x2)
    common = dtypes.result_type(x1.dtype, x1.ndim, x2.dtype, x2.ndim)
    if common.kind != "f":
        raise DtypeError(
            "expected common dtype to be floating point, yet common dtype is "
            f"{torch_dtype_name(common)}"
        )
    shape = np.broadcast_shapes(x1.shape, x2.shape)  # norms of the broadcast vectors
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    n1 = _p_norm(x1, 2, dim).clamp(min=eps)
    n2 = _p_norm(x2, 2, dim).clamp(min=eps)
    return (x1 * x2).sum(dim) / (n1 * n2)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between every pair of rows ``i < j`` of a 2-D input, in the
    order of the upper triangle. Shape: ``(N, M) -> (N (N - 1) / 2,)``."""
    x = as_tensor(input)
    if x.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {x.ndim}D")
    if x.dtype.kind != "f":
        raise DtypeError("pdist only supports floating-point dtypes")
    i, j = np.triu_indices(x.shape[0], 1)
    return _p_norm(x[i] - x[j], p, -1)


def normalize(
    input: Tensor,
    p: float = 2.0,
    dim: int = 1,
    eps: float = 1e-12,
    out=None,
) -> Tensor:
    """``x / max(||x||_p, eps)`` along ``dim``."""
    if out is not None:
        raise TypeError("normalize: out= is not supported")
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise DtypeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{torch_dtype_name(x.dtype)}"
        )
    return x / _p_norm(x, p, dim, keepdim=True).clamp(min=eps)

"""Argument checks shared by ``mg.linalg``'s functions, with PyTorch's messages and classes.

PyTorch raises ``RuntimeError`` for a tensor that is not a (batch of) matrix, not square,
or not floating point; minigrad's errors are ``RuntimeError`` too (the dtype error is also
a ``TypeError``, the class minigrad raised before).
"""

from __future__ import annotations

from minigrad.functions.errors import DtypeError, ShapeError
from minigrad.printing import torch_dtype_name as _torch_name
from minigrad.tensor import Tensor, as_tensor


class LinalgDtypeError(DtypeError):
    """A linear-algebra function given an integer or bool tensor (PyTorch raises
    ``RuntimeError`` or ``NotImplementedError``; ``DtypeError`` is both)."""


def floating(x, name: str) -> Tensor:
    """``x`` as a tensor, which must be float32 or float64."""
    x = as_tensor(x)
    if x.dtype.kind != "f" or x.dtype.itemsize < 4:
        raise LinalgDtypeError(
            f"{name}: Expected a floating point or complex tensor as input. Got "
            f"{_torch_name(x.dtype)}"
        )
    return x


def matrix(x, name: str, arg: str = "A") -> Tensor:
    """``x`` as a floating tensor of shape ``(*, m, n)``."""
    x = floating(x, name)
    if x.ndim < 2:
        raise ShapeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    return x


def square(x, name: str, arg: str = "A") -> Tensor:
    """``x`` as a floating tensor of shape ``(*, n, n)``."""
    x = matrix(x, name, arg)
    m, n = x.shape[-2:]
    if m != n:
        raise ShapeError(
            f"{name}: {arg} must be batches of square matrices, but they are {m} by {n} matrices"
        )
    return x


def same_dtype(a: Tensor, b: Tensor, name: str) -> None:
    """A and B of one dtype (PyTorch does not promote in its solvers)."""
    if a.dtype != b.dtype:
        raise LinalgDtypeError(
            f"{name}: Expected A and B to have the same dtype, but found A of type "
            f"{_torch_name(a.dtype)} and B of type {_torch_name(b.dtype)} instead"
        )

"""Errors of the operations, with the exception classes PyTorch programs catch.

PyTorch raises ``RuntimeError`` for shapes that do not fit and ``NotImplementedError``
(or ``TypeError`` for an operator) for an operation a dtype does not have; minigrad's
errors are those classes and, where NumPy's habit or minigrad's own earlier releases
raised another class, that one too, so that either ``except`` catches them.
"""

from __future__ import annotations

import numpy as np

from minigrad.printing import torch_dtype_name


class ShapeError(RuntimeError, ValueError):
    """Shapes that do not broadcast or do not fit an operation, and arguments an
    operation cannot take (PyTorch raises ``RuntimeError`` for both)."""


class DtypeError(TypeError, NotImplementedError):
    """An operation that is not defined for a tensor's dtype (``bitwise_and`` on floats)."""


class DtypeMismatchError(RuntimeError, TypeError):
    """Operands of different dtypes where PyTorch requires one dtype (``matmul``,
    ``linear``): PyTorch raises ``RuntimeError``; minigrad raised ``TypeError`` before."""


class IndexRangeError(IndexError, RuntimeError):
    """An index out of range of its dim: PyTorch raises ``IndexError`` for some
    operations (``index_select``, ``x[i]``) and ``RuntimeError`` for others (``gather``,
    ``scatter``), so this is both."""


class EmptyReductionError(ShapeError, IndexError):
    """A reduction without an identity (max, min) over a dim of size 0: PyTorch raises
    ``IndexError`` ("Expected reduction dim to have non-zero size")."""


class IntegerDivisionByZero(RuntimeError, ZeroDivisionError):
    """An integer ``//``, ``%``, ``fmod`` or ``div(rounding_mode=...)`` by zero, which
    has no integer answer: PyTorch raises ``RuntimeError("ZeroDivisionError")`` (NumPy
    would give 0 with a warning); Python's ``ZeroDivisionError`` catches it too."""


def no_kernel(name: str, dtype) -> DtypeError:
    """PyTorch's error for an operation it has no kernel of for ``dtype``:
    ``"name" not implemented for 'Bool'`` (a ``NotImplementedError``, and so a
    ``RuntimeError``)."""
    return DtypeError(f"\"{name}\" not implemented for '{torch_dtype_name(np.dtype(dtype))}'")


def floating_only(name: str, dtype) -> None:
    """``no_kernel`` for an integer or bool ``dtype``: the operations PyTorch computes on
    floating tensors only (``softmax``, ``lerp``, the losses)."""
    if np.dtype(dtype).kind != "f":
        raise no_kernel(name, dtype)

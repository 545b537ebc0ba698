"""``mg.linalg``'s LU family: ``lu_factor``, ``lu_factor_ex``, ``lu``, ``lu_unpack`` and
``lu_solve``, with partial pivoting (the factorization itself is in
``minigrad/functions/lu.py``).

The compact form is LAPACK's: one ``(*, m, n)`` array holding L's strict lower
triangle (L has a unit diagonal) and U, and 1-based int32 ``pivots`` ``(*, min(m, n))``:
row j was swapped with row ``pivots[j] - 1``. Then ``A = P L U``.
"""

from __future__ import annotations

import numpy as np

from minigrad.functions import lu as LU_
from minigrad.functions.constant import constant
from minigrad.functions.errors import ShapeError
from minigrad.functions.linalg import LinAlgError
from minigrad.linalg import return_types as rt
from minigrad.linalg.checks import matrix
from minigrad.tensor import Tensor, as_tensor

lu_factor_arrays = LU_.lu_factor_arrays


def _no_pivot(pivot: bool, name: str) -> None:
    if not pivot:
        raise ShapeError(f"{name}: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A, *, pivot: bool = True, check_errors: bool = False):
    """``(LU, pivots, info)``: the compact LU factorization (module docstring); ``info``
    (int32, ``(*)``) is 0, or the 1-based index of the first zero pivot of U.
    Differentiable (``functions/lu.py``).

    Example::

        >>> LU, pivots, info = mg.linalg.lu_factor_ex(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> pivots
        tensor([2, 2], dtype=int32)
    """
    A = matrix(A, "linalg.lu_factor_ex")
    _no_pivot(pivot, "linalg.lu_factor_ex")
    lu, pivots, info = LU_.lu_factor_arrays(A.numpy())
    if check_errors and info.any():
        _raise_singular(info, "linalg.lu_factor_ex")
    m = A.shape[-2]
    p = LU_.permutation_matrix(LU_.permutation_from_pivots(pivots, m), lu.dtype)
    out = LU_.LuFactor.apply(A, lu, p)
    return rt.linalg_lu_factor_ex(out, _int32(pivots), _int32(info))


def lu_factor(A, *, pivot: bool = True):
    """``(LU, pivots)`` with ``A = P L U`` (see ``lu_factor_ex``). Raises
    ``mg.linalg.LinAlgError`` when U is singular (a zero pivot).

    Shape: ``(*, m, n)`` -> ``(*, m, n)`` and ``(*, min(m, n))``.
    """
    A = matrix(A, "linalg.lu_factor")
    _no_pivot(pivot, "linalg.lu_factor")
    lu, pivots, info = lu_factor_ex(A)
    if info.numpy().any():
        _raise_singular(info.numpy(), "torch.linalg.lu_factor")
    return rt.linalg_lu_factor(lu, pivots)


def _raise_singular(info: np.ndarray, name: str) -> None:
    where = ""
    if info.ndim:
        where = f"(Batch element {int(np.flatnonzero(info)[0])}): "
    first = int(info[info > 0].flat[0])
    raise LinAlgError(
        f"{name}: {where}U[{first},{first}] is zero and using it on lu_solve would result "
        "in a division by zero. If you still want to perform the factorization, consider "
        "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
    )


def _int32(a) -> Tensor:
    return constant(np.asarray(a, dtype=np.int32))


def lu(A, *, pivot: bool = True):
    """``(P, L, U)`` with ``A = P L U``: P a permutation matrix ``(*, m, m)``, L lower
    triangular with ones on the diagonal ``(*, m, k)``, U upper triangular
    ``(*, k, n)``, k = min(m, n). Singular matrices are factored too.

    Example::

        >>> P, L, U = mg.linalg.lu(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> (P @ L @ U).allclose(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
        True
    """
    A = matrix(A, "linalg.lu")
    _no_pivot(pivot, "linalg.lu")
    packed, pivots, _ = lu_factor_ex(A)
    return rt.linalg_lu(*lu_unpack(packed, pivots))


def lu_unpack(LU_data, LU_pivots, unpack_data: bool = True, unpack_pivots: bool = True):
    """``(P, L, U)`` from the compact form; with ``unpack_data=False`` L and U are empty,
    with ``unpack_pivots=False`` P is. Differentiable in ``LU_data``."""
    packed = matrix(LU_data, "lu_unpack", "LU_data")
    pivots = as_tensor(LU_pivots)
    if pivots.dtype.kind not in "iu":
        raise ShapeError(f"lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. Note: this function is intended to be used with the output produced by torch.linalg.lu_factor, got {pivots.dtype}")  # fmt: skip  # noqa: E501
    m, n = packed.shape[-2:]
    k = min(m, n)
    empty = constant(np.zeros(0, dtype=packed.dtype))
    P = L = U = empty
    if unpack_data:
        L = packed[..., :, :k].tril(-1) + np.eye(m, k, dtype=packed.dtype)
        U = packed[..., :k, :].triu()
    if unpack_pivots:
        perm = LU_.permutation_from_pivots(pivots.numpy(), m)
        P = constant(LU_.permutation_matrix(perm, packed.dtype))
    return rt.lu_unpack(P, L, U)

"""``ldl_factor``, ``ldl_factor_ex`` and ``ldl_solve``: the LDL^T factorization of a
symmetric (possibly indefinite) matrix with Bunch-Kaufman pivoting, written on NumPy as
LAPACK's ``sytf2`` (lower triangle) and ``sytrs``, so the compact results are
PyTorch's.

``A = P L D L^T P^T`` with L unit lower triangular and D block diagonal with 1 x 1 and
2 x 2 blocks. The compact ``LD`` holds D's blocks on and next to the diagonal and L's
multipliers below; ``pivots`` (int32, 1-based) says for each column how it was
interchanged: ``pivots[k] = p > 0``: a 1 x 1 block, rows and columns k and p - 1 were
swapped; ``pivots[k] = pivots[k + 1] = -p < 0``: a 2 x 2 block at k, k + 1, and k + 1
was swapped with p - 1.

Pivot choice at column k (alpha = (1 + sqrt 17) / 8 bounds the growth of the entries):
with ``colmax`` the largest |a_ik| below the diagonal and ``rowmax`` the largest
off-diagonal entry in the row and column of that ``imax``: a 1 x 1 pivot on a_kk if
|a_kk| >= alpha colmax or |a_kk| rowmax >= alpha colmax^2; else a 1 x 1 pivot on
a_imax,imax if that is >= alpha rowmax; else a 2 x 2 pivot on k and imax.

Neither function is differentiable (as in PyTorch).
"""

from __future__ import annotations

import numpy as np

from minigrad.functions.constant import constant
from minigrad.functions.errors import ShapeError
from minigrad.functions.linalg import LinAlgError, as_stack
from minigrad.linalg import return_types as rt
from minigrad.linalg.checks import matrix, same_dtype, square
from minigrad.tensor import as_tensor

ALPHA = (1 + 17**0.5) / 8


def _choose_pivot(a: np.ndarray, k: int):
    """``(kp, kstep)`` for column k of the trailing lower triangle (0-based)."""
    n = a.shape[0]
    absakk = abs(a[k, k])
    colmax, imax = 0.0, k
    if k < n - 1:
        imax = k + 1 + int(np.argmax(np.abs(a[k + 1 :, k])))
        colmax = abs(a[imax, k])
    if max(absakk, colmax) == 0:
        return k, 1, True  # a zero column: D is singular here
    if absakk >= ALPHA * colmax:
        return k, 1, False
    rowmax = np.max(np.abs(a[imax, k:imax]))  # row imax, left of the diagonal
    if imax < n - 1:
        rowmax = max(rowmax, np.max(np.abs(a[imax + 1 :, imax])))
    if absakk >= ALPHA * colmax * (colmax / rowmax):
        return k, 1, False
    if abs(a[imax, imax]) >= ALPHA * rowmax:
        return imax, 1, False
    return imax, 2, False


def _interchange(a: np.ndarray, k: int, kk: int, kp: int, kstep: int) -> None:
    """Swap rows and columns kk and kp (kp > kk) of the lower triangle from column k on."""
    n = a.shape[0]
    if kp < n - 1:
        a[kp + 1 :, [kk, kp]] = a[kp + 1 :, [kp, kk]]
    between = a[kk + 1 : kp, kk].copy()
    a[kk + 1 : kp, kk] = a[kp, kk + 1 : kp]
    a[kp, kk + 1 : kp] = between
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
    if kstep == 2:
        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]


def _factor_one(a: np.ndarray):
    """LDL^T of one symmetric matrix (its lower triangle), in place: (pivots, info)."""
    n = a.shape[0]
    pivots = np.zeros(n, dtype=np.int32)
    info, k = 0, 0
    while k < n:
        kp, kstep, zero = _choose_pivot(a, k)
        if zero and info == 0:
            info = k + 1
        kk = k + kstep - 1
        if kp != kk:
            _interchange(a, k, kk, kp, kstep)
        if kstep == 1 and not zero and k < n - 1:
            x = a[k + 1 :, k].copy()
            a[k + 1 :, k + 1 :] -= np.tril(np.outer(x, x)) / a[k, k]
            a[k + 1 :, k] = x / a[k, k]
        elif kstep == 2 and k < n - 2:
            d21 = a[k + 1, k]
            d11, d22 = a[k + 1, k + 1] / d21, a[k, k] / d21
            t = 1 / (d11 * d22 - 1) / d21
            wk = t * (d11 * a[k + 2 :, k] - a[k + 2 :, k + 1])  # the multipliers of L
            wkp1 = t * (d22 * a[k + 2 :, k + 1] - a[k + 2 :, k])
            a[k + 2 :, k + 2 :] -= np.tril(
                np.outer(a[k + 2 :, k], wk) + np.outer(a[k + 2 :, k + 1], wkp1)
            )
            a[k + 2 :, k], a[k + 2 :, k + 1] = wk, wkp1
        if kstep == 1:
            pivots[k] = kp + 1
        else:
            pivots[k] = pivots[k + 1] = -(kp + 1)
        k += kstep
    return pivots, info


def ldl_factor_ex(input, *, hermitian: bool = False, check_errors: bool = False):
    """``(LD, pivots, info)``: the compact LDL^T factorization of a symmetric A (its
    lower triangle is read; the module docstring describes the result). ``info`` (int32,
    ``(*)``) is 0, or the 1-based index of a zero diagonal block of D (A is singular).

    Shape: ``(*, n, n)`` -> ``(*, n, n)``, ``(*, n)``, ``(*)``.
    """
    A = input
    A = square(A, "torch.linalg.ldl_factor_ex")
    _no_gradient(A, "linalg.ldl_factor")
    n = A.shape[-1]
    flat = as_stack(np.tril(A.numpy())).copy()
    pivots = np.zeros(flat.shape[:2], dtype=np.int32)
    info = np.zeros(len(flat), dtype=np.int32)
    for i, a in enumerate(flat):
        pivots[i], info[i] = _factor_one(a)
    if check_errors and info.any():
        raise LinAlgError(
            "torch.linalg.ldl_factor_ex: The factorization could not be completed because "
            f"the input is singular (a zero diagonal block of D at {int(info.max())})"
        )
    batch = A.shape[:-2]
    return rt.linalg_ldl_factor_ex(
        constant(flat.reshape(A.shape)),
        constant(pivots.reshape(batch + (n,))),
        constant(info.reshape(batch)),
    )


def ldl_factor(input, *, hermitian: bool = False):
    """``(LD, pivots)``: ``ldl_factor_ex`` that raises ``mg.linalg.LinAlgError`` for a
    singular A.

    Example::

        >>> LD, pivots = mg.linalg.ldl_factor(mg.tensor([[0.0, 1.0], [1.0, 0.0]]))
        >>> pivots
        tensor([-2, -2], dtype=int32)
    """
    A = input
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    if info.numpy().any():
        raise LinAlgError(
            "torch.linalg.ldl_factor: The factorization could not be completed because the "
            f"input is singular (a zero diagonal block of D at {int(info.numpy().max())})"
        )
    return rt.linalg_ldl_factor(LD, pivots)


def _no_gradient(A, name: str) -> None:
    if A.requires_grad:
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


def _solve_one(a: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """X with A X = B from one compact factorization (LAPACK's ``sytrs``, lower)."""
    n = a.shape[0]
    b = b.copy()
    k = 0
    while k < n:  # solve P L D y = b
        if pivots[k] > 0:
            kp = pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1 :] -= np.outer(a[k + 1 :, k], b[k])
            b[k] /= a[k, k]
            k += 1
            continue
        kp = -pivots[k] - 1
        b[[k + 1, kp]] = b[[kp, k + 1]]
        b[k + 2 :] -= np.outer(a[k + 2 :, k], b[k]) + np.outer(a[k + 2 :, k + 1], b[k + 1])
        akm1k = a[k + 1, k]
        akm1, ak = a[k, k] / akm1k, a[k + 1, k + 1] / akm1k
        denom = akm1 * ak - 1
        bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
        b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
        k += 2
    k = n - 1
    while k >= 0:  # solve L^T P^T x = y
        if pivots[k] > 0:
            b[k] -= a[k + 1 :, k] @ b[k + 1 :]
            kp = pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
            continue
        b[k] -= a[k + 1 :, k] @ b[k + 1 :]
        b[k - 1] -= a[k + 1 :, k - 1] @ b[k + 1 :]
        kp = -pivots[k] - 1
        b[[k, kp]] = b[[kp, k]]
        k -= 2
    return b


def ldl_solve(LD, pivots, B, *, hermitian: bool = False):
    """X with ``A X = B`` from A's compact LDL^T factorization (``ldl_factor``).

    Shape: LD ``(*, n, n)``, pivots ``(*, n)``, B ``(*, n, k)``, batch dims broadcast.
    """
    LD = square(LD, "torch.linalg.ldl_solve", "LD")
    B = matrix(B, "torch.linalg.ldl_solve", "B")
    same_dtype(LD, B, "torch.linalg.ldl_solve")
    _no_gradient(LD, "linalg.ldl_solve")
    _no_gradient(B, "linalg.ldl_solve")
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise ShapeError(
            "torch.linalg.ldl_solve: Incompatible shapes of A and B for the equation AX = B "
            f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    batch = np.broadcast_shapes(LD.shape[:-2], B.shape[:-2])
    lds = as_stack(np.broadcast_to(LD.numpy(), batch + (n, n)))
    pivs = as_stack(np.broadcast_to(as_tensor(pivots).numpy(), batch + (n,)), 1)
    bs = as_stack(np.broadcast_to(B.numpy(), batch + B.shape[-2:]))
    out = np.stack([_solve_one(a, p, b) for a, p, b in zip(lds, pivs, bs)]) if len(bs) else bs
    return constant(out.reshape(batch + B.shape[-2:]).astype(B.dtype, copy=False))

"""``mg.linalg``'s factorizations: Cholesky, QR, symmetric eigendecomposition, SVD.

Each works on a matrix or a batch ``(*, m, n)``, returns PyTorch's named tuple and is
differentiable; the derivations are in ``minigrad/functions/decompositions.py``.
"""

from __future__ import annotations

import numpy as np

from minigrad.functions import decompositions as D
from minigrad.functions.errors import ShapeError
from minigrad.functions.linalg import unpack
from minigrad.linalg import return_types as rt
from minigrad.linalg.checks import matrix, square
from minigrad.tensor import Tensor


# --------------------------------------------------------------------------- Cholesky
def cholesky(input, *, upper: bool = False) -> Tensor:
    """The Cholesky factor of a symmetric positive-definite matrix: ``A = L L^T`` with L
    lower triangular (``upper=True``: ``A = U^T U``, U = L^T). Only the lower triangle of
    A is read.

    Raises ``mg.linalg.LinAlgError`` (a ``RuntimeError``) when A is not positive-definite.

    Shape: ``(*, n, n)`` -> ``(*, n, n)``.

    Example::

        >>> mg.linalg.cholesky(mg.tensor([[4.0, 2.0], [2.0, 5.0]]))
        tensor([[2., 0.],
                [1., 2.]])
    """
    A = input
    A = square(A, "linalg.cholesky")
    lower = D.Cholesky.apply(A)
    return lower.mT if upper else lower


def cholesky_ex(input, *, upper: bool = False, check_errors: bool = False):
    """``(L, info)``: ``cholesky`` that reports instead of raising: ``info`` (int32,
    shape ``(*)``) is 0 for a positive-definite matrix, else the order of its first leading
    minor that is not; the factor of such a matrix is not meaningful (NaN here)."""
    A = input
    A = square(A, "linalg.cholesky_ex")
    info = D.cholesky_info(A.numpy())
    if check_errors or not info.any():
        return rt.linalg_cholesky_ex(cholesky(A, upper=upper), _int_tensor(info))
    data = A.numpy().copy()
    bad = info > 0
    data[bad] = np.eye(A.shape[-1], dtype=data.dtype)  # factor the others only
    lower = np.linalg.cholesky(data)
    lower[bad] = np.nan
    out = Tensor._make(lower.swapaxes(-1, -2).copy() if upper else lower, False, None)
    return rt.linalg_cholesky_ex(out, _int_tensor(info))


def _int_tensor(a) -> Tensor:
    return Tensor._make(np.asarray(a, dtype=np.int32), False, None)


# --------------------------------------------------------------------------------- QR
def qr(A, mode: str = "reduced"):
    """``(Q, R)`` with ``A = Q R``, Q with orthonormal columns, R upper triangular.

    Args:
        mode: ``'reduced'`` (Q is ``(*, m, k)``, R ``(*, k, n)``, k = min(m, n)),
            ``'complete'`` (Q is ``(*, m, m)``, R ``(*, m, n)``) or ``'r'`` (R only; Q is
            an empty tensor, and the result cannot be differentiated).

    Example::

        >>> Q, R = mg.linalg.qr(mg.randn(4, 3))
        >>> Q.shape, R.shape
        ((4, 3), (3, 3))
    """
    A = matrix(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise ShapeError(f"qr received unrecognized mode '{mode}' but expected one of "
                         "'reduced' (default), 'r', or 'complete'")  # fmt: skip
    m, n = A.shape[-2:]
    q, r = unpack(D.Qr.apply(A, mode), D.qr_shapes(m, n, mode))
    if mode == "r":
        q = q.reshape(0).detach()
    return rt.linalg_qr(q, r)


# ------------------------------------------------------------------- symmetric eigen
def eigh(input, UPLO: str = "L"):
    """``(eigenvalues, eigenvectors)`` of a symmetric matrix: ``A = V diag(L) V^T``, the
    eigenvalues in ascending order, the eigenvectors as the columns of V. Only the
    triangle ``UPLO`` (``'L'`` or ``'U'``) of A is read.

    Gradients through the eigenvectors are finite for distinct eigenvalues and meaningful
    only for losses that do not depend on each eigenvector's sign.

    Shape: ``(*, n, n)`` -> ``(*, n)`` and ``(*, n, n)``.

    Example::

        >>> mg.linalg.eigh(mg.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
        tensor([1., 3.])
    """
    A = input
    A = square(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise ShapeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    n = A.shape[-1]
    values, vectors = unpack(D.Eigh.apply(A, UPLO), ((n,), (n, n)))
    return rt.linalg_eigh(values, vectors)


def eigvalsh(input, UPLO: str = "L") -> Tensor:
    """The eigenvalues of a symmetric matrix, ascending (see ``eigh``); their gradient is
    ``V diag(G) V^T``, finite even where eigenvalues repeat."""
    A = input
    square(A, "linalg.eigvalsh")
    return eigh(A, UPLO).eigenvalues


# ------------------------------------------------------------------------------- SVD
def svd(A, full_matrices: bool = True, *, driver=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``: singular values S descending, U's
    columns and Vh's rows orthonormal.

    Args:
        full_matrices: U ``(*, m, m)`` and Vh ``(*, n, n)`` if True (the default, as in
            PyTorch), else ``(*, m, k)`` and ``(*, k, n)`` with k = min(m, n).
        driver: accepted for PyTorch's signature (CUDA only); must be None.

    Gradients flow through the first k columns of U and rows of Vh; through U and Vh
    they are finite for distinct singular values, and meaningful only for losses that
    do not depend on the signs of the singular vectors.

    Example::

        >>> U, S, Vh = mg.linalg.svd(mg.randn(4, 3), full_matrices=False)
        >>> U.shape, S.shape, Vh.shape
        ((4, 3), (3,), (3, 3))
    """
    A = matrix(A, "linalg.svd")
    if driver is not None:
        raise ShapeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                         "CUDA inputs with cuSOLVER backend.")  # fmt: skip
    m, n = A.shape[-2:]
    shapes = D.svd_shapes(m, n, full_matrices)
    u, s, vh = unpack(D.Svd.apply(A, bool(full_matrices)), shapes)
    return rt.linalg_svd(u, s, vh)


def svdvals(A, *, driver=None) -> Tensor:
    """The singular values of A, descending; shape ``(*, min(m, n))``. Their gradient is
    ``U diag(G) Vh``, finite even where singular values repeat."""
    matrix(A, "linalg.svdvals")
    return svd(A, full_matrices=False, driver=driver).S

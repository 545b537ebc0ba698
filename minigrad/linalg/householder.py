"""Householder reflectors: ``geqrf`` (QR in LAPACK's compact form), ``householder_product``
(= ``orgqr``: Q from the reflectors) and ``ormqr`` (multiply by Q without forming it).

A reflector is ``H = I - tau v v^T`` with ``v = (0, ..., 0, 1, v_{i+1}, ..., v_m)``: the
i-th column of the compact array below its diagonal holds v's tail. ``Q = H_1 H_2 ... H_k``.
``householder_product`` and ``ormqr`` are written with Tensor operations, one reflector at
a time, so they are differentiable in the reflectors, tau and C.
"""

from __future__ import annotations

import numpy as np

from minigrad.functions.constant import constant
from minigrad.functions.errors import ShapeError
from minigrad.functions.linalg import as_stack
from minigrad.linalg import return_types as rt
from minigrad.linalg.checks import floating, matrix
from minigrad.tensor import Tensor


def _reflector(A: Tensor, i: int) -> Tensor:
    """v_i (``(*, m)``): 0 above row i, 1 at row i, A's column i below."""
    m = A.shape[-2]
    below = constant((np.arange(m) > i).astype(A.dtype))
    one = constant((np.arange(m) == i).astype(A.dtype))
    return A[..., :, i] * below + one


def _apply_reflector(v: Tensor, tau: Tensor, C: Tensor) -> Tensor:
    """(I - tau v v^T) C for C ``(*, m, p)``."""
    return C - tau[..., None, None] * v.unsqueeze(-1) @ (v.unsqueeze(-2) @ C)


def _check(A, tau, name: str):
    A = matrix(A, name, "input")
    tau = floating(tau, name)
    m, n = A.shape[-2:]
    if tau.shape[-1] > n:
        raise ShapeError(f"{name}: input.shape[-1] must be greater than or equal to "
                         f"tau.shape[-1]")  # fmt: skip
    if n > m:
        raise ShapeError(f"{name}: input.shape[-2] must be greater than or equal to "
                         f"input.shape[-1]")  # fmt: skip
    return A, tau


def householder_product(input, tau) -> Tensor:
    """The first n columns of ``H_1 ... H_k`` (``(*, m, n)``), the reflectors read from
    A's columns below the diagonal and ``tau`` (``(*, k)``, k <= n <= m).

    Example::

        >>> a, tau = mg.geqrf(mg.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> mg.linalg.householder_product(a, tau)  # Q of the QR factorization
        tensor([[-0.6, -0.8],
                [-0.8,  0.6]])
    """
    A = input
    A, tau = _check(A, tau, "torch.linalg.householder_product")
    m, n = A.shape[-2:]
    Q = constant(np.broadcast_to(np.eye(m, n, dtype=A.dtype), A.shape).copy())
    if tau.shape[-1] == 0:  # no reflector: the identity, in A's graph with gradient 0
        from minigrad.ops import where

        return where(constant(np.ones(A.shape, bool)), Q, A)
    for i in reversed(range(tau.shape[-1])):  # H_i (H_{i+1} ... H_k I)
        Q = _apply_reflector(_reflector(A, i), tau[..., i], Q)
    return Q


def orgqr(input, tau) -> Tensor:
    """``householder_product(input, tau)`` (LAPACK's name)."""
    return householder_product(input, tau)


def ormqr(input, tau, other, left: bool = True, transpose: bool = False) -> Tensor:
    """``Q C`` with ``Q = H_1 ... H_k`` (the full m x m Q of ``geqrf``), C = ``other``:
    ``left=False`` gives ``C Q``, ``transpose=True`` uses Q^T."""
    A = matrix(input, "ormqr", "input")
    tau = floating(tau, "ormqr")
    C = matrix(other, "ormqr", "other")
    order = range(tau.shape[-1])
    # Q C = H_1 (... (H_k C)); Q^T C = H_k (... (H_1 C)); C Q = (Q^T C^T)^T
    if not left:
        return ormqr(A, tau, C.mT, left=True, transpose=not transpose).mT
    for i in order if transpose else reversed(order):
        C = _apply_reflector(_reflector(A, i), tau[..., i], C)
    return C


def geqrf(input):
    """``(a, tau)``: the QR factorization in LAPACK's compact form: R on and above a's
    diagonal, the reflectors' tails below it, their scales in ``tau`` (``(*, min(m, n))``).
    Each reflector is chosen as LAPACK's ``larfg``: it maps x to ``(beta, 0, ..., 0)`` with
    ``beta = -sign(x_0) ||x||``. Not differentiable (as in PyTorch)."""
    A = matrix(input, "geqrf", "input")
    a = as_stack(A.numpy()).copy()
    m, n = a.shape[-2:]
    k = min(m, n)
    tau = np.zeros((len(a), k), dtype=a.dtype)
    for j in range(k):
        alpha = a[:, j, j].copy()
        tail = np.linalg.norm(a[:, j + 1 :, j], axis=-1)
        reflect = tail > 0  # a zero tail needs no reflection (tau = 0)
        beta = np.where(alpha >= 0, -1.0, 1.0) * np.hypot(alpha, tail)
        safe_beta = np.where(reflect, beta, 1)
        tau[:, j] = np.where(reflect, (beta - alpha) / safe_beta, 0)
        scale = np.where(reflect, 1 / np.where(reflect, alpha - beta, 1), 0)
        a[:, j + 1 :, j] *= scale[:, None]
        a[:, j, j] = np.where(reflect, beta, alpha)
        v = np.concatenate([np.ones((len(a), 1), a.dtype), a[:, j + 1 :, j]], -1)  # (B, m-j)
        block = a[:, j:, j + 1 :]
        block -= tau[:, j, None, None] * v[:, :, None] * (v[:, None, :] @ block)
    shape = A.shape
    return rt.geqrf(constant(a.reshape(shape)), constant(tau.reshape(shape[:-2] + (k,))))

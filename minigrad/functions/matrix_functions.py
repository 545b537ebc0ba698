"""Functions of a whole matrix: the pseudoinverse and the matrix exponential.

- ``Pinv``: P = A^+ (``(*, n, m)`` for A ``(*, m, n)``). For A of constant rank
  (Golub and Pereyra), dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P.
  Reading off <G, dP> term by term (``<X, Y> = sum(X * Y)``):
  ``G_A = -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)``.
- ``MatrixExp``: exp(A) = sum A^k / k!, computed by scaling and squaring with the
  degree-13 Pade approximant (Higham, 2005): A / 2^s has a 1-norm below 5.37, its
  exponential is r(A / 2^s) = V^-1 U-style rational function, squared s times. The
  derivative is the Frechet derivative L(A, E) = d/dt exp(A + t E) at t = 0, and
  exp of the block matrix [[A, E], [0, A]] is [[exp A, L(A, E)], [0, exp A]].
  <G, L(A, dA)> = <L(A^T, G), dA>, so ``G_A`` is the top-right block of
  ``exp([[A^T, G], [0, A^T]])`` (one matrix exponential of twice the size, itself
  differentiable).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.constant import constant
from minigrad.functions.linalg import as_stack
from minigrad.functions.shape import Cat


class Pinv(Function):
    """P = pinv(A) from a precomputed ``p`` (cut-offs are chosen by the caller)."""

    @staticmethod
    def forward(ctx, a, p):
        ctx.save_for_backward(a, p)
        return p

    @staticmethod
    def backward(ctx, g):
        a, p = ctx.saved_tensors
        m, n = a.shape[-2:]
        residual_left = np.eye(m, dtype=a.dtype) - a @ p  # I - A P, (*, m, m)
        residual_right = np.eye(n, dtype=a.dtype) - p @ a  # I - P A, (*, n, n)
        ga = -(p.mT @ g @ p.mT)
        ga = ga + residual_left @ g.mT @ (p @ p.mT)
        ga = ga + (p.mT @ p) @ g.mT @ residual_right
        return ga, None


# -------------------------------------------------------------------- matrix exponential
#: The coefficients b_0 ... b_13 of the degree-13 Pade approximant of exp.
PADE13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
    40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)  # fmt: skip
#: The largest 1-norm for which the degree-13 approximant is accurate to double precision.
THETA13 = 5.371920351148152


def expm_arrays(a: np.ndarray) -> np.ndarray:
    """exp(A) of each matrix of ``a`` (``(*, n, n)``), in float64, returned in a's dtype."""
    n = a.shape[-1]
    x = as_stack(a.astype(np.float64))
    norm1 = np.abs(x).sum(-2).max(-1, initial=0.0)  # (B,): the 1-norm of each matrix
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.ceil(np.log2(norm1 / THETA13))
    s = np.where(np.isfinite(s) & (s > 0), s, 0).astype(np.int64)  # squarings per matrix
    x = x / (2.0**s)[:, None, None]
    b, eye = PADE13, np.eye(n)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2
             + b[1] * eye)  # fmt: skip
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)  # the Pade approximant of exp(x)
    for i in range(int(s.max(initial=0))):  # undo the scaling: r <- r^2, s times each
        squared = s > i
        r[squared] = r[squared] @ r[squared]
    return r.reshape(a.shape).astype(a.dtype, copy=False)


class MatrixExp(Function):
    """Y = exp(A); see the module docstring for the backward."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return expm_arrays(a._data)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        n, last = a.shape[-1], a.ndim - 1
        at = a.mT
        zeros = constant(np.zeros(at.shape, dtype=at.dtype))
        top = Cat.apply(last, at, g)  # [A^T, G]
        bottom = Cat.apply(last, zeros, at)  # [0, A^T]
        block = MatrixExp.apply(Cat.apply(last - 1, top, bottom))  # (*, 2n, 2n)
        return block[..., :n, n:]

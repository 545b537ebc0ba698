"""``mg.special``: the functions of ``torch.special`` that minigrad computes.

Most are entries of the elementwise table (``functions/elementwise.py``: ``erf``,
``erfinv``, ``digamma``, ``ndtr``, ``log_ndtr``, ``ndtri``,
``entr``, ``xlog1py``, the Bessel functions, the
incomplete gamma functions, ``zeta``, the orthogonal polynomials ...), under
``torch.special``'s names (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``psi``
is ``digamma``, ``gammainc`` is ``igamma``).
The rest are short compositions of them, differentiable through their parts:

- ``multigammaln(x, p) = p (p - 1) / 4 log(pi) + sum_{j<p} lgamma(x - j / 2)``;
- ``polygamma(n, x)``: digamma for ``n = 0``, trigamma for ``n = 1``, and
  ``(-1)^(n+1) n! zeta(n + 1, x)`` beyond.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.surface.elementwise import call, special_functions
from minigrad.tensor import Tensor, as_tensor

# erf, expit, digamma, the Bessel functions, the orthogonal polynomials ...: the entries of
# the elementwise table under their torch.special names (the table's ``special`` field).
globals().update(special_functions())


def multigammaln(input, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension ``p``."""
    x = as_tensor(input)
    if x.dtype == np.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if x.dtype.kind != "f":
        x = x.float()
    if p < 1:
        raise RuntimeError(f"mvlgamma: p has to be greater than or equal to 1, got {p}")
    out = x * 0 + p * (p - 1) / 4 * math.log(math.pi)
    for j in range(p):
        out = out + call("lgamma", x - j / 2)
    return out


def polygamma(n: int, input) -> Tensor:
    """The n-th derivative of digamma: digamma itself for n = 0, trigamma for n = 1, and
    (-1)^(n+1) n! zeta(n + 1, x) (Hurwitz's zeta) for n >= 2."""
    if not isinstance(n, int) or n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n, got {n}")
    if n == 0:
        return call("digamma", input)
    if n == 1:
        return call("trigamma", input)
    x = as_tensor(input)
    # the order n + 1 as a float tensor (an integer or bool x computes in float32)
    order = x.new_full(x.shape, n + 1.0, dtype=x.dtype if x.dtype.kind == "f" else np.float32)
    return call("zeta", order, x) * ((-1) ** (n + 1) * math.factorial(n))


def logsumexp(input, dim, keepdim: bool = False) -> Tensor:
    return as_tensor(input).logsumexp(dim, keepdim)


def softmax(input, dim: int, dtype=None) -> Tensor:
    x = as_tensor(input) if dtype is None else as_tensor(input).to(dtype)
    return x.softmax(dim)


def log_softmax(input, dim: int, dtype=None) -> Tensor:
    x = as_tensor(input) if dtype is None else as_tensor(input).to(dtype)
    return x.log_softmax(dim)


__all__ = [
    *special_functions(),
    "log_softmax", "logsumexp", "multigammaln", "polygamma", "softmax",
]  # fmt: skip

from minigrad.unsupported import module_getattr  # noqa: E402

# unsupported PyTorch names say why (unsupported.json)
__getattr__ = module_getattr("minigrad.special")

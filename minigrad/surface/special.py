"""``mg.special``: the functions of ``torch.special`` that minigrad computes.

Most are entries of the elementwise table (``functions/elementwise.py``: ``erf``,
``erfinv``, ``digamma``, ``ndtr``, ``entr``, ``xlog1py``, the Bessel functions, the
incomplete gamma functions, ``zeta``, the orthogonal polynomials ...), under
``torch.special``'s names (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``psi``
is ``digamma``, ``gammainc`` is ``igamma``).
The rest are short compositions of them, differentiable through their parts:

- ``ndtri(p) = sqrt(2) erfinv(2p - 1)``, the inverse of ``ndtr``;
- ``log_ndtr(x) = log(ndtr(x))`` (``-inf`` once ``ndtr`` underflows, near x = -38);
- ``multigammaln(x, p) = p (p - 1) / 4 log(pi) + sum_{j<p} lgamma(x - j / 2)``;
- ``polygamma(n, x)`` for ``n = 0`` (digamma) and ``n = 1`` (trigamma, whose own
  derivative minigrad does not provide).
"""

from __future__ import annotations

import math

from minigrad.surface.elementwise import call
from minigrad.tensor import Tensor, as_tensor


def _table(name: str, doc: str):
    def fn(input, *args, **kwargs):  # noqa: A002  (PyTorch's argument name)
        return call(name, input, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _polynomial(name: str, doc: str):
    """A polynomial family p_n(x) of the table, called as PyTorch's ``f(input, n)``."""

    def fn(input, n):  # noqa: A002  (PyTorch's argument names)
        return call(name, input, n)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + " ``n`` is truncated to an integer; n < 0 gives 0."
    return fn


erf = _table("erf", "erf(x) = 2/sqrt(pi) int_0^x exp(-t^2) dt.")
erfc = _table("erfc", "erfc(x) = 1 - erf(x).")
erfinv = _table("erfinv", "The inverse of erf on (-1, 1).")
expit = _table("sigmoid", "expit(x) = 1 / (1 + exp(-x)) (the logistic sigmoid).")
logit = _table("logit", "logit(p) = log(p / (1 - p)); ``eps`` clamps p to [eps, 1 - eps].")
exp2 = _table("exp2", "2 ** x.")
expm1 = _table("expm1", "exp(x) - 1, accurate near 0.")
log1p = _table("log1p", "log(1 + x), accurate near 0.")
sinc = _table("sinc", "sin(pi x) / (pi x), 1 at 0.")
round = _table("round", "Round half to even (``decimals`` places).")  # noqa: A001
digamma = _table("digamma", "psi(x) = d/dx log Gamma(x).")
psi = _table("digamma", "psi(x) = d/dx log Gamma(x) (digamma).")
gammaln = _table("lgamma", "log |Gamma(x)|.")
ndtr = _table("ndtr", "The standard normal CDF: (1 + erf(x / sqrt 2)) / 2.")
entr = _table("entr", "-x log x (0 at 0, -inf below 0).")
xlogy = _table("xlogy", "x log y, 0 where x = 0.")
xlog1py = _table("xlog1py", "x log(1 + y), 0 where x = 0.")
erfcx = _table("erfcx", "erfcx(x) = exp(x^2) erfc(x), without overflow for large x.")
i0 = _table("i0", "I_0(x) = sum_k (x/2)^(2k) / (k!)^2, the modified Bessel function of order 0.")
i0e = _table("i0e", "e^-|x| I_0(x).")
i1 = _table("i1", "I_1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!).")
i1e = _table("i1e", "e^-|x| I_1(x).")
modified_bessel_i0 = _table("modified_bessel_i0", "I_0(x) (no derivative, as PyTorch).")
modified_bessel_i1 = _table("modified_bessel_i1", "I_1(x) (no derivative, as PyTorch).")
modified_bessel_k0 = _table("modified_bessel_k0", "K_0(x), x > 0, the modified Bessel function.")
modified_bessel_k1 = _table("modified_bessel_k1", "K_1(x), x > 0, the modified Bessel function.")
scaled_modified_bessel_k0 = _table("scaled_modified_bessel_k0", "e^x K_0(x), x > 0.")
scaled_modified_bessel_k1 = _table("scaled_modified_bessel_k1", "e^x K_1(x), x > 0.")
bessel_j0 = _table("bessel_j0", "J_0(x), the Bessel function of the first kind of order 0.")
bessel_j1 = _table("bessel_j1", "J_1(x), the Bessel function of the first kind of order 1.")
bessel_y0 = _table("bessel_y0", "Y_0(x), x > 0, the Bessel function of the second kind.")
bessel_y1 = _table("bessel_y1", "Y_1(x), x > 0, the Bessel function of the second kind.")
airy_ai = _table("airy_ai", "Ai(x), the Airy function: y'' = x y, decaying as x -> inf.")
spherical_bessel_j0 = _table("spherical_bessel_j0", "j_0(x) = sin(x) / x.")
gammainc = _table("igamma", "P(a, x) = 1/Gamma(a) int_0^x t^(a-1) e^-t dt.")
gammaincc = _table("igammac", "Q(a, x) = 1 - P(a, x).")
zeta = _table("zeta", "zeta(x, q) = sum_(k >= 0) (q + k)^-x, Hurwitz's zeta function.")
chebyshev_polynomial_t = _polynomial(
    "chebyshev_polynomial_t", "T_n(x), Chebyshev of the first kind."
)
chebyshev_polynomial_u = _polynomial(
    "chebyshev_polynomial_u", "U_n(x), Chebyshev of the second kind."
)
chebyshev_polynomial_v = _polynomial(
    "chebyshev_polynomial_v", "V_n(x), Chebyshev of the third kind."
)
chebyshev_polynomial_w = _polynomial(
    "chebyshev_polynomial_w", "W_n(x), Chebyshev of the fourth kind."
)
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t", "T_n(2x - 1).")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u", "U_n(2x - 1).")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v", "V_n(2x - 1).")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w", "W_n(2x - 1).")
hermite_polynomial_h = _polynomial(
    "hermite_polynomial_h", "H_n(x), the physicists' Hermite polynomial."
)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", "He_n(x), the probabilists' Hermite.")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", "L_n(x), the Laguerre polynomial.")
legendre_polynomial_p = _polynomial("legendre_polynomial_p", "P_n(x), the Legendre polynomial.")


def ndtri(input) -> Tensor:  # noqa: A002
    """The inverse of ``ndtr``: sqrt(2) erfinv(2p - 1)."""
    return call("erfinv", as_tensor(input) * 2 - 1) * math.sqrt(2.0)


def log_ndtr(input) -> Tensor:  # noqa: A002
    """log(ndtr(x))."""
    return call("log", call("ndtr", input))


def multigammaln(input, p: int) -> Tensor:  # noqa: A002
    """The multivariate log-gamma function of dimension ``p``."""
    x = as_tensor(input)
    if x.dtype.kind != "f":
        x = x.float()
    if p < 1:
        raise RuntimeError(f"mvlgamma: p has to be greater than or equal to 1, got {p}")
    out = x * 0 + p * (p - 1) / 4 * math.log(math.pi)
    for j in range(p):
        out = out + call("lgamma", x - j / 2)
    return out


def polygamma(n: int, input) -> Tensor:  # noqa: A002
    """The n-th derivative of digamma, for n = 0 and n = 1."""
    if n == 0:
        return call("digamma", input)
    if n == 1:
        return call("trigamma", input)
    raise NotImplementedError(
        f"special.polygamma: minigrad computes n = 0 (digamma) and n = 1 (trigamma), got {n}"
    )


def logsumexp(input, dim, keepdim: bool = False) -> Tensor:  # noqa: A002
    return as_tensor(input).logsumexp(dim, keepdim)


def softmax(input, dim: int, dtype=None) -> Tensor:  # noqa: A002
    x = as_tensor(input) if dtype is None else as_tensor(input).to(dtype)
    return x.softmax(dim)


def log_softmax(input, dim: int, dtype=None) -> Tensor:  # noqa: A002
    x = as_tensor(input) if dtype is None else as_tensor(input).to(dtype)
    return x.log_softmax(dim)


__all__ = [
    "digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln",
    "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr",
    "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy",
    "erfcx", "i0", "i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1",
    "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
    "spherical_bessel_j0", "gammainc", "gammaincc", "zeta", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p", "airy_ai",
]  # fmt: skip

from minigrad.unsupported import module_getattr  # noqa: E402

# unsupported PyTorch names say why (unsupported.json)
__getattr__ = module_getattr("minigrad.special")

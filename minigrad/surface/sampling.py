"""Random samples from the common distributions, as PyTorch draws them: the functions
``bernoulli``, ``binomial``, ``poisson`` and ``normal`` (all four of its overloads),
the in-place fills ``bernoulli_``, ``random_``, ``cauchy_``, ``exponential_``,
``geometric_`` and ``log_normal_``, and the default generator's ``seed``,
``initial_seed`` and ``default_generator``.

Every draw comes from minigrad's default generator, or from ``generator=`` (an
``mg.Generator``); the streams are NumPy's, so a seed gives other numbers than the
same seed in PyTorch. ``normal(mean, std)`` with tensor arguments is
``mean + std * eps`` with ``eps ~ N(0, 1)``: differentiable in ``mean`` and ``std``
(the reparametrization PyTorch uses). The other samples carry no gradient.
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad import random as _random
from minigrad.autograd.function import Function
from minigrad.creation import multinomial
from minigrad.functions.errors import floating_only, no_kernel
from minigrad.random import DEFAULT_GENERATOR as default_generator
from minigrad.random import initial_seed, seed
from minigrad.tensor import Tensor, _size_args, as_tensor

__all__ = ["default_generator", "initial_seed", "seed"]


def _const(array) -> Tensor:
    return Tensor._make(np.asarray(array), False, None)


def _floats(t: Tensor, kernel: str) -> Tensor:
    if t.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{t.dtype}'")
    return t


def _probabilities(p, name: str) -> np.ndarray:
    data = np.asarray(p._data if isinstance(p, Tensor) else p, dtype=np.float64)
    if np.any(~((data >= 0) & (data <= 1))):
        raise RuntimeError(f"{name}: Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return data


class Sampled(Function):
    """A sample drawn with the parameters ``x`` (probabilities, rates): a step function
    of them, so its derivative is 0 where PyTorch defines one (``bernoulli(p)``,
    ``poisson``); where PyTorch has none (``bernoulli(x, p)``, ``binomial``) the result
    still requires grad and the backward raises, as in PyTorch."""

    @staticmethod
    def forward(ctx, x, sample, name):
        ctx.shape, ctx.name = x._data.shape, name
        return sample

    @staticmethod
    def backward(ctx, g):
        if ctx.name is not None:
            raise RuntimeError(f"derivative for aten::{ctx.name} is not implemented")
        return Tensor._make(np.zeros(ctx.shape, g.dtype), False, None), None, None


# ------------------------------------------------------------------------ functions
def bernoulli(input, p=None, *, generator=None) -> Tensor:
    """1 with probability ``input`` (each element), else 0, in the input's dtype; with
    ``p`` (a number), 1 with probability ``p`` in the input's shape."""
    x = as_tensor(input)
    if p is None:
        _floats(x, "bernoulli_tensor_cpu_p_")
    probs = _probabilities(x if p is None else p, "bernoulli")
    u = _random.resolve(generator).random(x.shape)
    return Sampled.apply(x, (u < probs).astype(x.dtype), None if p is None else "bernoulli")


def binomial(count, prob, generator=None) -> Tensor:
    """The number of successes in ``count`` trials of probability ``prob`` (elementwise),
    in ``count``'s floating-point dtype."""
    n, p = as_tensor(count), as_tensor(prob)
    _floats(n, "binomial_cpu")
    if p.dtype != n.dtype:
        raise RuntimeError(f"binomial: found dtype {p.dtype} for prob but expected {n.dtype}")
    probs = _probabilities(p, "binomial")
    if np.any(n._data < 0):
        raise RuntimeError("binomial: count must be non-negative")
    draws = _random.resolve(generator).binomial(n._data.astype(np.int64), probs)
    draws = np.asarray(draws).astype(n.dtype)
    return Sampled.apply(p if p.requires_grad else n, draws, "binomial")


def poisson(input, generator=None) -> Tensor:
    """A Poisson sample with rate ``input`` (elementwise), in the input's dtype."""
    rates = _floats(as_tensor(input), "poisson_cpu")
    if np.any(rates._data < 0) or np.any(np.isnan(rates._data)):
        raise RuntimeError("poisson: invalid Poisson rate, expected rate to be non-negative")
    draws = _random.resolve(generator).poisson(rates._data.astype(np.float64))
    return Sampled.apply(rates, np.asarray(draws).astype(rates.dtype), None)


def normal(
    mean=0.0,
    std=1.0,
    size=None,
    *,
    generator=None,
    dtype=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Normal samples with mean ``mean`` and standard deviation ``std``:

    - ``normal(mean_tensor, std_tensor)``, ``normal(mean_tensor, std=1.0)``,
      ``normal(mean, std_tensor)``: one sample per element of the broadcast arguments,
      ``mean + std * eps``, differentiable in the tensors;
    - ``normal(mean, std, size)`` with numbers: a new tensor of ``size`` (float32
      unless ``dtype`` says otherwise).
    """
    from minigrad.creation import _finish

    gen = _random.resolve(generator)
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError(
                "normal() received an invalid combination of arguments: with a number mean "
                "and std, give the size of the result: normal(mean, std, size)"
            )
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        shape = _size_args(tuple(size) if isinstance(size, (tuple, list)) else (size,))
        dtype = dtypes.or_default_float(dtype)
        floating_only("normal", dtype)
        data = gen.normal(mean, std, shape).astype(dtype)
        return _finish(data, requires_grad, device, "normal")
    if size is not None:
        raise TypeError("normal(): size is only accepted with a number mean and std")
    std_data = std._data if isinstance(std, Tensor) else np.asarray(std)
    if np.any(std_data < 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        try:
            shape = np.broadcast_shapes(mean.shape, std.shape)
        except ValueError:
            raise RuntimeError(
                f"normal: the shapes of mean {list(mean.shape)} and std {list(std.shape)} "
                "cannot be broadcast together"
            ) from None
        dtype = np.result_type(mean.dtype, std.dtype)
    else:
        t = mean if isinstance(mean, Tensor) else std
        shape, dtype = t.shape, t.dtype
    if dtype.kind != "f":
        raise NotImplementedError(f"normal: \"normal_kernel_cpu\" not implemented for '{dtype}'")
    eps = _const(gen.standard_normal(shape).astype(dtype))
    return std * eps + mean


# ----------------------------------------------------------------- in-place fills
def _fill(t: Tensor, what: str, values) -> Tensor:
    return t._inplace(what, np.asarray(values), cast=True)


def _bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill with 1 (probability ``p``: a number, or a tensor broadcast to this one) or 0."""
    probs = _probabilities(p, "bernoulli_")
    u = _random.resolve(generator).random(self.shape)
    return _fill(self, "bernoulli_", u < probs)


def _random_(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    """Fill with integers drawn uniformly from ``[from, to)``: ``random_(from, to)``,
    ``random_(to)``, or ``random_()`` (``[0, 2**mantissa]`` for a float dtype, the
    dtype's non-negative values for an integer one)."""
    low = kwargs.pop("from", None)
    high = kwargs.pop("to", None)
    if kwargs:
        raise TypeError(f"random_() got unexpected keyword arguments {sorted(kwargs)}")
    if len(args) == 1 and low is None and high is None:
        high = args[0]  # random_(to)
    elif args:
        low, high = (list(args) + [None])[:2]
    low = 0 if low is None else int(low)
    dtype = self.dtype
    if high is None:
        if dtype.kind == "f":
            high = 2 ** (np.finfo(dtype).nmant + 1) + 1
        elif dtype.kind == "b":
            high = 2
        else:
            high = int(np.iinfo(dtype).max) + 1
    high = int(high)
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    draws = _random.resolve(generator).integers(low, high, self.shape, dtype=np.int64)
    return _fill(self, "random_", draws)


def _continuous(t: Tensor, name: str) -> None:
    if t.dtype.kind != "f":
        raise RuntimeError(
            f"{name} distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {t.dtype}"
        )


def _cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None):
    """Fill with Cauchy samples: ``median + sigma * tan(pi (u - 1/2))``."""
    _continuous(self, "Cauchy")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    draws = median + sigma * _random.resolve(generator).standard_cauchy(self.shape)
    return _fill(self, "cauchy_", draws)


def _exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fill with exponential samples of rate ``lambd`` (density ``lambd e^(-lambd x)``)."""
    _continuous(self, "Exponential")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    draws = _random.resolve(generator).exponential(1.0 / lambd, self.shape)
    return _fill(self, "exponential_", draws)


def _geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    """Fill with the number of Bernoulli(``p``) trials up to the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    if self.dtype == np.bool_:
        raise no_kernel("geometric", self.dtype)
    return _fill(self, "geometric_", _random.resolve(generator).geometric(p, self.shape))


def _log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None):
    """Fill with ``exp(N(mean, std^2))`` samples."""
    _floats(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    draws = _random.resolve(generator).lognormal(mean, std, self.shape)
    return _fill(self, "log_normal_", draws)


#: Tensor methods with no function of that name here (``mg.multinomial`` is creation's).
TENSOR_METHODS = {
    "multinomial": multinomial,
    "bernoulli_": _bernoulli_,
    "random_": _random_,
    "cauchy_": _cauchy_,
    "exponential_": _exponential_,
    "geometric_": _geometric_,
    "log_normal_": _log_normal_,
}
METHODS = ["bernoulli"]
FUNCTIONS = METHODS + ["binomial", "poisson", "normal", "seed", "initial_seed", "default_generator"]

"""The knobs of a gradient check: the options, the checked tensors, the default step."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from minigrad.autograd.api import grad as autograd_grad

#: Default step for float64 inputs: the contract's ``eps=1e-6``.
FLOAT64_STEP = 1e-6


class _DefaultStep(float):
    """The default ``eps`` (1e-6). A float that remembers the caller did not choose it,
    so that the step can follow each input's dtype instead."""

    def __repr__(self) -> str:
        return "1e-06"


DEFAULT_EPS = _DefaultStep(FLOAT64_STEP)


@dataclass
class Target:
    """A tensor whose derivatives are checked, and how the report names it."""

    tensor: object
    name: str
    position: int


@dataclass
class Options:
    eps: float
    atol: float
    rtol: float
    nondet_tol: float
    fast_mode: bool
    num_directions: int
    seed: int
    cost: dict = field(default_factory=lambda: {"function_calls": 0, "backward_passes": 0})

    def backward(self, *args, **kwargs):
        """``autograd.grad``, counted."""
        self.cost["backward_passes"] += 1
        return autograd_grad(*args, **kwargs)


def make_options(eps, atol, rtol, nondet_tol, fast_mode, num_directions, seed) -> Options:
    """Validated ``Options`` (errors name the argument and the value)."""
    for name, value in (("atol", atol), ("rtol", rtol), ("nondet_tol", nondet_tol)):
        if not value >= 0:
            raise ValueError(f"gradcheck: {name} must be >= 0, got {value!r}")
    if eps is not None and not eps > 0:
        raise ValueError(f"gradcheck: eps must be > 0, got {eps!r}")
    if int(num_directions) < 1:
        raise ValueError(f"gradcheck: num_directions must be >= 1, got {num_directions!r}")
    return Options(
        eps,
        float(atol),
        float(rtol),
        float(nondet_tol),
        bool(fast_mode),
        int(num_directions),
        int(seed),
    )


def machine_eps(dtype: np.dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def default_step(dtype: np.dtype) -> float:
    """The step used when the caller did not choose ``eps``, per input dtype.

    float64 keeps the contract's 1e-6. Lower precisions use the power of two nearest to
    ``eps_dtype ** (1/3)``, the step that balances rounding noise (``eps / h``) against
    the truncation error of a central difference (``h^2``): 2^-8 = 3.9e-3 for float32,
    2^-3 for float16. With 1e-6 a float32 difference quotient would be pure rounding.
    """
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return FLOAT64_STEP
    return float(2.0 ** np.round(np.log2(machine_eps(dtype) ** (1.0 / 3.0))))


def step_for(tensor, eps) -> float:
    """The finite-difference step for a tensor: the caller's ``eps``, or, when left at
    its default, the step for the tensor's dtype (``default_step``)."""
    if eps is None or eps is DEFAULT_EPS:
        return default_step(tensor.dtype)
    return float(eps)


def as_tuple(x) -> tuple:
    """``x`` as a tuple: a tuple or list as it is, anything else as a 1-tuple."""
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)

"""The knobs of a gradient check: the options, the checked tensors, the default step.

Kept apart (and light) so that ``import minigrad`` does not pay for the checker
itself, which is imported on first use.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minigrad.autograd.api import grad as autograd_grad


class _DefaultStep(float):
    """The default ``eps`` (1e-6). A float that remembers the caller did not choose it,
    so that the step can follow each input's dtype instead."""

    def __repr__(self) -> str:
        return "1e-06"


DEFAULT_EPS = _DefaultStep(1e-6)


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


def step_for(tensor, eps) -> float:
    """The finite-difference step for a tensor: the caller's ``eps``, or, when left at
    its default, the step for the tensor's dtype (``default_step``)."""
    if eps is None or eps is DEFAULT_EPS:
        from minigrad.autograd.gradcheck_numeric import default_step

        return default_step(tensor.dtype)
    return float(eps)


def as_tuple(x) -> tuple:
    """``x`` as a tuple: a tuple or list as it is, anything else as a 1-tuple."""
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)

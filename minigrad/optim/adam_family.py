"""What Adam, AdamW, Adamax, NAdam and RAdam share, written once.

Each of them keeps, per parameter ``p`` with gradient ``g``, a step count ``t`` and a
first moment ``m`` (a running mean of the gradient), and at every step:

    p = p (1 - lr lambda)          (decoupled weight decay: AdamW, NAdamW, RAdam's option)
    g = g + lambda p               (otherwise: an L2 penalty added to the gradient)
    m = m + (1 - beta1) (g - m)    (the first moment, in PyTorch's lerp form)

Adam, NAdam and RAdam also keep the second moment ``v = beta2 v + (1 - beta2) g^2``;
Adamax keeps an infinity norm instead. What differs, the step itself, is each
optimizer's ``update`` (``adam.py``, ``adamax.py``, ``nadam.py``, ``radam.py``).
"""

from __future__ import annotations

import numpy as np

from minigrad.optim.hyperparameters import check_non_negative
from minigrad.optim.optimizer import Optimizer

__all__ = ["AdamFamily", "check_betas", "decay_weight", "update_first_moment", "update_moments"]


def check_betas(betas) -> tuple[float, float]:
    """``betas`` as a tuple, each in ``[0, 1)`` (PyTorch's ``ValueError`` otherwise)."""
    betas = tuple(betas)
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    return betas


def decay_weight(p: np.ndarray, g: np.ndarray, lr: float, weight_decay: float, decoupled: bool):
    """Apply weight decay; return the gradient to use. Decoupled: ``p`` shrinks in place
    by ``1 - lr * weight_decay`` and ``g`` is unchanged; otherwise ``g + weight_decay * p``."""
    if weight_decay == 0:
        return g
    if decoupled:
        p *= 1 - lr * weight_decay
        return g
    return g + weight_decay * p


def update_first_moment(m: np.ndarray, g: np.ndarray, beta1: float) -> None:
    """``m = m + (1 - beta1) (g - m)``, in place."""
    m += (1 - beta1) * (g - m)


def update_moments(m: np.ndarray, v: np.ndarray, g: np.ndarray, beta1: float, beta2: float):
    """Both moments in place: ``m`` as above, ``v = beta2 v + (1 - beta2) g^2``."""
    update_first_moment(m, g, beta1)
    v *= beta2
    v += (1 - beta2) * g * g


class AdamFamily(Optimizer):
    """The base of the Adam family: checks ``lr``, ``eps``, ``weight_decay`` and
    ``betas``, creates each parameter's state on its first step; a subclass sets
    ``state_arrays`` (the names of its zero-initialised arrays, in PyTorch's order) and
    implements ``update``, which counts the step first.
    """

    #: the per-parameter arrays, created as zeros shaped like the parameter
    state_arrays: tuple[str, ...] = ("exp_avg", "exp_avg_sq")

    def __init__(self, params, defaults: dict) -> None:
        check_non_negative(
            lr=defaults["lr"], eps=defaults["eps"], weight_decay=defaults["weight_decay"]
        )
        defaults["betas"] = check_betas(defaults["betas"])
        super().__init__(params, defaults)

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        """A parameter's state before its first step."""
        return {"step": 0, **{name: np.zeros_like(p) for name in self.state_arrays}}

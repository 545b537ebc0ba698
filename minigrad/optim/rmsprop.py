"""``RMSprop``: divide the gradient by a running root mean square of its recent values.

For each parameter ``p`` with gradient ``g`` (lr, smoothing alpha, momentum mu), as in
PyTorch's documentation:

    g  = g + lambda p                          (weight_decay != 0)
    v  = alpha v + (1 - alpha) g^2             (square_avg)
    a  = alpha a + (1 - alpha) g               (grad_avg; centered only)
    d  = sqrt(v - a^2) + eps   if centered   else   sqrt(v) + eps
    b  = mu b + g / d;  p = p - lr b           (momentum > 0)
    p  = p - lr g / d                          (otherwise)
"""

from __future__ import annotations

import numpy as np

from minigrad.optim.hyperparameters import check_non_negative, defaults_from
from minigrad.optim.optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (Hinton), with PyTorch's update rule (see the module docstring).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-2).
        alpha: smoothing constant of the squared-gradient average (0.99).
        eps: added to the denominator (1e-8).
        weight_decay: L2 penalty added to the gradient (0).
        momentum: momentum factor (0).
        centered: normalize by an estimate of the gradient's variance (False).
        maximize: ascend instead of descend.

    Example::

        >>> opt = optim.RMSprop(model.parameters(), lr=1e-3, momentum=0.9)
    """

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_non_negative(
            lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha
        )
        super().__init__(params, defaults_from(locals()))

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        state = {"step": 0, "square_avg": np.zeros_like(p)}
        if group["momentum"] > 0:
            state["momentum_buffer"] = np.zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = np.zeros_like(p)
        return state

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        lr, alpha, eps, mu = group["lr"], group["alpha"], group["eps"], group["momentum"]
        state["step"] += 1
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p
        v = state["square_avg"]
        v *= alpha
        v += (1 - alpha) * g * g
        if group["centered"]:
            a = state["grad_avg"]
            a *= alpha
            a += (1 - alpha) * g
            denom = np.sqrt(v - a * a) + eps
        else:
            denom = np.sqrt(v) + eps
        if mu > 0:
            buf = state["momentum_buffer"]
            buf *= mu
            buf += g / denom
            p -= lr * buf
        else:
            p -= lr * g / denom

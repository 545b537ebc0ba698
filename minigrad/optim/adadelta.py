"""``Adadelta``: step sizes from running averages of squared gradients and squared updates.

For each parameter ``p`` with gradient ``g`` (lr, decay rho), as in PyTorch's
documentation:

    g  = g + lambda p                               (weight_decay != 0)
    v  = rho v + (1 - rho) g^2                      (square_avg)
    dx = sqrt(u + eps) / sqrt(v + eps) * g          (the update)
    u  = rho u + (1 - rho) dx^2                     (acc_delta)
    p  = p - lr dx
"""

from __future__ import annotations

import numpy as np

from minigrad.optim.hyperparameters import check_non_negative, defaults_from
from minigrad.optim.optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler), with PyTorch's update rule (see the module docstring).

    Args:
        params: parameters or parameter groups.
        lr: scale applied to the update (default 1.0).
        rho: decay of the running averages (0.9).
        eps: added inside the square roots (1e-6).
        weight_decay: L2 penalty added to the gradient (0).
        maximize: ascend instead of descend.

    Example::

        >>> opt = optim.Adadelta(model.parameters())
    """

    def __init__(
        self,
        params,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
    ) -> None:
        check_non_negative(lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        super().__init__(params, defaults_from(locals()))

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        return {"step": 0, "square_avg": np.zeros_like(p), "acc_delta": np.zeros_like(p)}

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        rho, eps = group["rho"], group["eps"]
        state["step"] += 1
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p
        v, u = state["square_avg"], state["acc_delta"]
        v *= rho
        v += (1 - rho) * g * g
        delta = np.sqrt(u + eps) / np.sqrt(v + eps) * g
        u *= rho
        u += (1 - rho) * delta * delta
        p -= group["lr"] * delta

"""``ASGD``: averaged stochastic gradient descent (Polyak-Ruppert averaging).

For each parameter ``p`` with gradient ``g`` at step ``t`` (from 1), as PyTorch does it:

    g   = g + lambda_wd p                        (weight_decay != 0)
    p   = p (1 - lambd eta) - eta g              (eta starts at lr)
    ax  = p              if mu == 1   else   ax + mu (p - ax)     (the average, 'ax')
    eta = lr / (1 + lambd lr t)^alpha
    mu  = 1 / max(1, t - t0)

The averaged parameters are in ``optimizer.state[p]["ax"]``.
"""

from __future__ import annotations

import numpy as np

from minigrad.optim.hyperparameters import check_non_negative, defaults_from
from minigrad.optim.optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky), with PyTorch's update rule (see the module
    docstring).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-2).
        lambd: decay term (1e-4).
        alpha: power for the eta update (0.75).
        t0: the step at which averaging starts (1e6).
        weight_decay: L2 penalty added to the gradient (0).
        maximize: ascend instead of descend.

    Example::

        >>> opt = optim.ASGD(model.parameters(), lr=0.01, t0=100)
    """

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_non_negative(lr=lr, weight_decay=weight_decay)
        super().__init__(params, defaults_from(locals()))

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        return {"step": 0, "eta": group["lr"], "mu": 1.0, "ax": np.zeros_like(p)}

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        state["step"] += 1
        t = state["step"]
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p
        eta = state["eta"]
        p *= 1 - lambd * eta
        p -= eta * g
        if state["mu"] != 1:
            state["ax"] += (p - state["ax"]) * state["mu"]
        else:
            state["ax"][...] = p
        state["eta"] = lr / (1 + lambd * lr * t) ** alpha
        state["mu"] = 1 / max(1, t - t0)

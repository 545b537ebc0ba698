"""``SGD``: stochastic gradient descent with momentum, dampening, weight decay and Nesterov."""

from __future__ import annotations

import numpy as np

from minigrad.optim.hyperparameters import check_non_negative, defaults_from
from minigrad.optim.optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, with PyTorch's update rule, step for step.

    For each parameter ``p`` with gradient ``g`` (lr, momentum mu, dampening tau,
    weight decay lambda):

        g = g + lambda p                     (weight_decay != 0)
        b = g                                (first step, momentum != 0)
        b = mu b + (1 - tau) g               (later steps)
        g = g + mu b   if nesterov   else   g = b
        p = p - lr g

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-3).
        momentum: momentum factor (default 0).
        dampening: dampening for momentum (default 0).
        weight_decay: L2 penalty added to the gradient (default 0).
        nesterov: Nesterov momentum (needs momentum > 0 and dampening 0).
        maximize: ascend instead of descend.

    Example::

        >>> opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        >>> opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()
    """

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        check_non_negative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults_from(locals()))

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        mu, tau = group["momentum"], group["dampening"]
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p
        if mu != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = np.array(g, dtype=p.dtype, copy=True)
            else:
                buf *= mu
                buf += (1 - tau) * g
            g = g + mu * buf if group["nesterov"] else buf
        p -= group["lr"] * g

"""``Adamax``: Adam with the infinity norm in place of the second moment.

For each parameter ``p`` with gradient ``g`` at step ``t`` (from 1), as in PyTorch's
documentation:

    g = g + lambda p                            (weight_decay != 0)
    m = beta1 m + (1 - beta1) g                 (exp_avg)
    u = max(beta2 u, |g| + eps)                 (exp_inf)
    p = p - lr / (1 - beta1^t) * m / u
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from minigrad.optim.optimizer import Optimizer, _check_non_negative

__all__ = ["Adamax"]


def check_betas(betas) -> tuple[float, float]:
    betas = tuple(betas)
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    return betas


class Adamax(Optimizer):
    """Adamax (Kingma & Ba), with PyTorch's update rule (see the module docstring).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 2e-3).
        betas: decay rates of the first moment and of the infinity norm (0.9, 0.999).
        eps: added to the norm (1e-8).
        weight_decay: L2 penalty added to the gradient (0).
        maximize: ascend instead of descend.

    Example::

        >>> opt = optim.Adamax(model.parameters())
    """

    def __init__(
        self,
        params,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_non_negative("learning rate", lr)
        _check_non_negative("epsilon value", eps)
        _check_non_negative("weight_decay value", weight_decay)
        defaults = dict(
            lr=lr, betas=check_betas(betas), eps=eps, weight_decay=weight_decay, maximize=maximize
        )
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd = group["weight_decay"]
            for p, g in self._grads(group):
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {
                        "step": 0,
                        "exp_avg": np.zeros_like(p._data),
                        "exp_inf": np.zeros_like(p._data),
                    }
                state["step"] += 1
                if wd != 0:
                    g = g + wd * p._data
                m, u = state["exp_avg"], state["exp_inf"]
                m *= beta1
                m += (1 - beta1) * g
                np.maximum(beta2 * u, np.abs(g) + eps, out=u)
                p._data -= lr / (1 - beta1 ** state["step"]) * m / u
        return loss

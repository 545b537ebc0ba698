"""``Adamax``: Adam with the infinity norm in place of the second moment.

For each parameter ``p`` with gradient ``g`` at step ``t`` (from 1), as in PyTorch's
documentation:

    g = g + lambda p                            (weight_decay != 0)
    m = beta1 m + (1 - beta1) g                 (exp_avg)
    u = max(beta2 u, |g| + eps)                 (exp_inf)
    p = p - lr / (1 - beta1^t) * m / u
"""

from __future__ import annotations

import numpy as np

from minigrad.optim.adam_family import AdamFamily, decay_weight, update_first_moment
from minigrad.optim.hyperparameters import defaults_from

__all__ = ["Adamax"]


class Adamax(AdamFamily):
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

    state_arrays = ("exp_avg", "exp_inf")

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
    ) -> None:
        super().__init__(params, defaults_from(locals()))

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        state["step"] += 1
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        g = decay_weight(p, g, lr, group["weight_decay"], decoupled=False)
        m, u = state["exp_avg"], state["exp_inf"]
        update_first_moment(m, g, beta1)
        np.maximum(beta2 * u, np.abs(g) + eps, out=u)
        p -= lr / (1 - beta1 ** state["step"]) * m / u

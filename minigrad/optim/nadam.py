"""``NAdam``: Adam with Nesterov momentum and a momentum schedule.

For each parameter ``p`` with gradient ``g`` at step ``t`` (from 1), with
``psi = momentum_decay``, as in PyTorch's documentation:

    p    = p (1 - lr lambda)        (decoupled_weight_decay)   or   g = g + lambda p
    mu_t = beta1 (1 - 0.5 * 0.96^(t psi))        mu_{t+1} likewise with t + 1
    P    = P mu_t                                (mu_product, from 1)
    m    = beta1 m + (1 - beta1) g
    v    = beta2 v + (1 - beta2) g^2
    d    = sqrt(v / (1 - beta2^t)) + eps
    p    = p - lr (1 - mu_t) / (1 - P) g / d - lr mu_{t+1} / (1 - P mu_{t+1}) m / d
"""

from __future__ import annotations

import numpy as np

from minigrad.optim.adam_family import AdamFamily, decay_weight, update_moments
from minigrad.optim.hyperparameters import check_non_negative, defaults_from

__all__ = ["NAdam"]


class NAdam(AdamFamily):
    """NAdam (Dozat), with PyTorch's update rule (see the module docstring).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 2e-3).
        betas: decay rates of the moment estimates (0.9, 0.999).
        eps: added to the denominator (1e-8).
        weight_decay: weight decay (0): an L2 penalty, or decoupled as in AdamW.
        momentum_decay: ``psi`` of the momentum schedule (4e-3).
        decoupled_weight_decay: decay the weights directly (NAdamW) (False).
        maximize: ascend instead of descend.

    Example::

        >>> opt = optim.NAdam(model.parameters(), lr=1e-3)
    """

    def __init__(
        self,
        params,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        check_non_negative(momentum_decay=momentum_decay)
        super().__init__(params, defaults_from(locals()))

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        return {"step": 0, "mu_product": 1.0, **super().new_state(p, group)}

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        state["step"] += 1
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        psi, t = group["momentum_decay"], state["step"]
        g = decay_weight(p, g, lr, group["weight_decay"], group["decoupled_weight_decay"])
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
        state["mu_product"] *= mu
        product = state["mu_product"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        update_moments(m, v, g, beta1, beta2)
        denom = np.sqrt(v / (1 - beta2**t)) + eps
        p -= lr * (1 - mu) / (1 - product) * g / denom
        p -= lr * mu_next / (1 - product * mu_next) * m / denom

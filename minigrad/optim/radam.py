"""``RAdam``: Adam whose adaptive step is switched on, and rectified, once the variance of
the second-moment estimate is tractable.

For each parameter ``p`` with gradient ``g`` at step ``t`` (from 1), as in PyTorch's
documentation:

    p     = p (1 - lr lambda)     (decoupled_weight_decay)   or   g = g + lambda p
    m     = beta1 m + (1 - beta1) g;   v = beta2 v + (1 - beta2) g^2
    m^    = m / (1 - beta1^t)
    rho_inf = 2 / (1 - beta2) - 1;   rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
    if rho_t > 5:
        r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
        p = p - lr m^ r sqrt(1 - beta2^t) / (sqrt(v) + eps)
    else:
        p = p - lr m^
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.optim.adam_family import AdamFamily, decay_weight, update_moments
from minigrad.optim.hyperparameters import defaults_from

__all__ = ["RAdam"]


class RAdam(AdamFamily):
    """RAdam (Liu et al.), with PyTorch's update rule (see the module docstring).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-3).
        betas: decay rates of the moment estimates (0.9, 0.999).
        eps: added to the denominator (1e-8).
        weight_decay: weight decay (0): an L2 penalty, or decoupled as in AdamW.
        decoupled_weight_decay: decay the weights directly (False).
        maximize: ascend instead of descend.

    Example::

        >>> opt = optim.RAdam(model.parameters(), lr=1e-3)
    """

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        decoupled_weight_decay: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(params, defaults_from(locals()))

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        state["step"] += 1
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        t = state["step"]
        g = decay_weight(p, g, lr, group["weight_decay"], group["decoupled_weight_decay"])
        m, v = state["exp_avg"], state["exp_avg_sq"]
        update_moments(m, v, g, beta1, beta2)
        bias_correction1 = 1 - beta1**t
        bias_correction2 = 1 - beta2**t
        m_hat = m / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * t * beta2**t / bias_correction2
        if rho_t > 5.0:
            rect = math.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
            adaptive = math.sqrt(bias_correction2) / (np.sqrt(v) + eps)
            p -= lr * m_hat * rect * adaptive
        else:
            p -= lr * m_hat

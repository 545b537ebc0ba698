"""``Adam`` and ``AdamW``: adaptive moment estimation, with PyTorch's arithmetic.

For each parameter ``p`` with gradient ``g``, at step ``t`` (counted from 1):

    g   = g + lambda p                          (Adam's weight_decay: an L2 penalty)
    p   = p (1 - lr lambda)                     (AdamW's decoupled weight decay instead)
    m   = m + (1 - beta1) (g - m)               (first moment, lerp form)
    v   = beta2 v + (1 - beta2) g^2             (second moment)
    v^  = max(v^, v)                            (amsgrad only; used in place of v below)
    p   = p - (lr / (1 - beta1^t)) m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

The bias corrections are applied in that order (step size for the first moment,
inside the denominator for the second), as PyTorch does, so that results agree to
rounding.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from minigrad.optim.optimizer import Optimizer, _check_non_negative

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (Kingma & Ba), with ``weight_decay`` as an L2 penalty added to the gradient.

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-3).
        betas: decay rates of the first and second moment estimates (0.9, 0.999).
        eps: added to the denominator for stability (1e-8).
        weight_decay: L2 penalty (default 0).
        amsgrad: use the running maximum of the second moment (default False).
        maximize: ascend instead of descend.

    Example::

        >>> opt = optim.Adam(model.parameters(), lr=3e-4)
    """

    _decoupled = False

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        _check_non_negative("learning rate", lr)
        _check_non_negative("epsilon value", eps)
        _check_non_negative("weight_decay value", weight_decay)
        betas = tuple(betas)
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd, amsgrad = group["weight_decay"], group["amsgrad"]
            for p, g in self._grads(group):
                state = self.state.get(p)
                if not state:
                    state = self.state[p] = {
                        "step": 0,
                        "exp_avg": np.zeros_like(p._data),
                        "exp_avg_sq": np.zeros_like(p._data),
                    }
                    if amsgrad:
                        state["max_exp_avg_sq"] = np.zeros_like(p._data)
                state["step"] += 1
                t = state["step"]
                if wd != 0:
                    if self._decoupled:
                        p._data *= 1 - lr * wd
                    else:
                        g = g + wd * p._data
                m, v = state["exp_avg"], state["exp_avg_sq"]
                m += (1 - beta1) * (g - m)
                v *= beta2
                v += (1 - beta2) * g * g
                bias_correction1 = 1 - beta1**t
                bias_correction2_sqrt = math.sqrt(1 - beta2**t)
                step_size = lr / bias_correction1
                if amsgrad:
                    v_max = state.get("max_exp_avg_sq")
                    if v_max is None:  # amsgrad switched on after the first step
                        v_max = state["max_exp_avg_sq"] = np.zeros_like(p._data)
                    np.maximum(v_max, v, out=v_max)
                    v = v_max
                denom = np.sqrt(v)
                denom /= bias_correction2_sqrt
                denom += eps
                update = -step_size * m
                update /= denom
                p._data += update
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): each step first shrinks the
    parameter, ``p = p (1 - lr * weight_decay)``, then applies the Adam update to the
    raw gradient. Same arguments as ``Adam``; ``weight_decay`` defaults to 1e-2.

    Example::

        >>> opt = optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    """

    _decoupled = True

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)

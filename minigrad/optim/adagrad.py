"""``Adagrad``: per-coordinate learning rates from the sum of all past squared gradients.

For each parameter ``p`` with gradient ``g`` at step ``t`` (from 1), as in PyTorch's
documentation:

    g   = g + lambda p                          (weight_decay != 0)
    clr = lr / (1 + (t - 1) lr_decay)
    s   = s + g^2                               (sum; starts at initial_accumulator_value)
    p   = p - clr g / (sqrt(s) + eps)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from minigrad.optim.optimizer import Optimizer, _check_non_negative

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.), with PyTorch's update rule (see the module docstring).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-2).
        lr_decay: learning-rate decay per step (0).
        weight_decay: L2 penalty added to the gradient (0).
        initial_accumulator_value: the starting value of the squared-gradient sum (0).
        eps: added to the denominator (1e-10).
        maximize: ascend instead of descend.

    As in PyTorch, the state (``step`` 0 and ``sum``) exists from construction.

    Example::

        >>> opt = optim.Adagrad(model.parameters(), lr=0.1)
    """

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        lr_decay: float = 0.0,
        weight_decay: float = 0.0,
        initial_accumulator_value: float = 0.0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        for name, value in (
            ("learning rate", lr),
            ("lr_decay value", lr_decay),
            ("weight_decay value", weight_decay),
            ("epsilon value", eps),
            ("initial_accumulator_value", initial_accumulator_value),
        ):
            _check_non_negative(name, value)
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
            maximize=maximize,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                start = group["initial_accumulator_value"]
                self.state[p] = {"step": 0, "sum": np.full_like(p._data, start)}

    def step(self, closure: Callable | None = None):
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            lr, lr_decay, wd, eps = (
                group["lr"],
                group["lr_decay"],
                group["weight_decay"],
                group["eps"],
            )
            for p, g in self._grads(group):
                state = self.state[p]
                state["step"] += 1
                if wd != 0:
                    g = g + wd * p._data
                clr = lr / (1 + (state["step"] - 1) * lr_decay)
                s = state["sum"]
                s += g * g
                p._data -= clr * g / (np.sqrt(s) + eps)
        return loss

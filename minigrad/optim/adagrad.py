"""``Adagrad``: per-coordinate learning rates from the sum of all past squared gradients.

For each parameter ``p`` with gradient ``g`` at step ``t`` (from 1), as in PyTorch's
documentation:

    g   = g + lambda p                          (weight_decay != 0)
    clr = lr / (1 + (t - 1) lr_decay)
    s   = s + g^2                               (sum; starts at initial_accumulator_value)
    p   = p - clr g / (sqrt(s) + eps)
"""

from __future__ import annotations

import numpy as np

from minigrad.optim.hyperparameters import check_non_negative, defaults_from
from minigrad.optim.optimizer import Optimizer

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
    ) -> None:
        check_non_negative(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            eps=eps,
            initial_accumulator_value=initial_accumulator_value,
        )
        super().__init__(params, defaults_from(locals()))
        for group in self.param_groups:  # as PyTorch, the state exists before any step
            for p in group["params"]:
                self.state[p] = self.new_state(p._data, group)

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        return {"step": 0, "sum": np.full_like(p, group["initial_accumulator_value"])}

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        state["step"] += 1
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p
        clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        s = state["sum"]
        s += g * g
        p -= clr * g / (np.sqrt(s) + group["eps"])

"""``Rprop``: resilient backpropagation, which uses only the sign of the gradient.

For each parameter ``p`` with gradient ``g`` (and the previous step's ``g'``), as in
PyTorch's documentation, each coordinate's step size ``s`` (starting at lr) changes:

    s = min(s eta+, s_max)   where g g' > 0     (same direction: grow)
    s = max(s eta-, s_min)   where g g' < 0     (overshot: shrink, and skip: g = 0)
    p = p - sign(g) s
    g' = g
"""

from __future__ import annotations

import numpy as np

from minigrad.optim.hyperparameters import check_non_negative, defaults_from
from minigrad.optim.optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop (Riedmiller & Braun), with PyTorch's update rule (see the module docstring).

    Args:
        params: parameters or parameter groups.
        lr: the initial step size (default 1e-2).
        etas: ``(eta-, eta+)``, the factors that shrink and grow a step (0.5, 1.2).
        step_sizes: ``(s_min, s_max)`` (1e-6, 50).
        maximize: ascend instead of descend.

    Example::

        >>> opt = optim.Rprop(model.parameters())
    """

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        maximize: bool = False,
    ) -> None:
        check_non_negative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        etas, step_sizes = tuple(etas), tuple(step_sizes)
        super().__init__(params, defaults_from(locals()))

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        return {"step": 0, "prev": np.zeros_like(p), "step_size": np.full_like(p, group["lr"])}

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        (eta_minus, eta_plus), (s_min, s_max) = group["etas"], group["step_sizes"]
        state["step"] += 1
        direction = np.sign(g * state["prev"])
        factor = np.where(direction > 0, eta_plus, np.where(direction < 0, eta_minus, 1))
        s = state["step_size"]
        s *= factor
        np.clip(s, s_min, s_max, out=s)
        g = np.where(direction < 0, 0, g).astype(p.dtype)
        p -= np.sign(g) * s
        state["prev"] = g

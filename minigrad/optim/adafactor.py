"""``Adafactor``: Adam-like steps whose second-moment estimate of a matrix is stored
factored, as a row vector and a column vector (memory ``O(n + m)`` instead of ``O(nm)``),
with PyTorch's update (Shazeer & Stern, 2018, as ``torch.optim.Adafactor`` computes it).

For a parameter ``p`` with gradient ``g`` at step ``t`` (from 1), ``tau = beta2_decay``:

    rho   = min(lr, 1 / sqrt(t));   alpha = max(eps2, RMS(p)) rho
    p     = p (1 - lr lambda)                               (weight_decay)
    matrix g (n x m, over its last two dims):
        R = R + t^tau (mean_j g_ij^2 - R)                   (row_var, n x 1)
        C = C + t^tau (mean_i g_ij^2 - C)                   (col_var, 1 x m)
        V = R C / max(mean(R), eps1)
    vector g:
        V = V + t^tau (g^2 - V)                             (variance)
    u = g / sqrt(max(V, eps1^2));   p = p - alpha u / max(1, RMS(u) / d)
"""

from __future__ import annotations

import numpy as np

from minigrad.optim.hyperparameters import defaults_from
from minigrad.optim.optimizer import Optimizer

__all__ = ["Adafactor"]


def _rms(a: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(a, dtype=np.float64)))) if a.size else 0.0


class Adafactor(Optimizer):
    """Adafactor (see the module docstring).

    Args:
        params: parameters or parameter groups.
        lr: the largest relative step (default 1e-2).
        beta2_decay: ``tau``; the second-moment decay is ``1 - t^tau`` (-0.8).
        eps: ``(eps1, eps2)``: the floor of the variance estimate (None: the dtype's
            machine epsilon) and of the parameter's RMS ((None, 1e-3)).
        d: clipping threshold of the update's RMS (1.0).
        weight_decay: decoupled weight decay, times lr (0).
        maximize: ascend instead of descend.

    Example::

        >>> opt = optim.Adafactor(model.parameters(), lr=1e-2)
    """

    _factored_state = ("row_var", "col_var")  # shaped like a row / a column, not like p

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        maximize: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        eps = tuple(eps)
        super().__init__(params, defaults_from(locals()))

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        if p.ndim > 1:  # the second moment, factored into its row and column means
            row = np.zeros(p.shape[:-1] + (1,), dtype=p.dtype)
            col = np.zeros(p.shape[:-2] + (1, p.shape[-1]), dtype=p.dtype)
            return {"step": 0, "row_var": row, "col_var": col}
        return {"step": 0, "variance": np.zeros_like(p)}

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        lr, tau, (eps1, eps2) = group["lr"], group["beta2_decay"], group["eps"]
        floor = np.finfo(p.dtype).eps if eps1 is None else eps1
        state["step"] += 1
        t = state["step"]
        weight = t**tau  # 1 - beta2_t
        rho = min(lr, 1 / t**0.5)
        alpha = max(eps2, _rms(p)) * rho
        if group["weight_decay"] != 0:
            p *= 1 - lr * group["weight_decay"]
        if g.ndim > 1:
            row, col = state["row_var"], state["col_var"]
            row += weight * (np.mean(g * g, axis=-1, keepdims=True) - row)
            col += weight * (np.mean(g * g, axis=-2, keepdims=True) - col)
            variance = row @ col / np.maximum(row.mean(axis=-2, keepdims=True), floor)
        else:
            v = state["variance"]
            v += weight * (g * g - v)
            variance = v
        update = g / np.sqrt(np.maximum(variance, floor * floor))
        p -= alpha / max(1.0, _rms(update) / group["d"]) * update

"""``Muon``: momentum SGD whose update for a matrix is orthogonalized by a few
Newton-Schulz iterations (Keller Jordan's optimizer, as ``torch.optim.Muon`` documents it).

For a 2-D parameter ``p`` with gradient ``g`` (momentum mu, lr gamma, weight decay lambda):

    B  = mu B + (1 - mu) g                      (the momentum buffer, an average)
    B~ = (1 - mu) g + mu B   (nesterov)   or   B
    O  = NS(B~)                                  (about U V^T for B~ = U S V^T)
    p  = p (1 - gamma lambda)
    p  = p - gamma' O,   gamma' = gamma sqrt(max(1, rows / cols))   ('original')
                         gamma' = 0.2 gamma sqrt(max(rows, cols))  ('match_rms_adamw')

(The documented ``B = mu B + g`` scales the buffer by ``1 / (1 - mu)``, which the
normalization below removes; the buffer is kept as PyTorch keeps it, so a state_dict
carries over in either direction.)

``NS``: ``X = B~ / (|B~|_F + eps)`` (transposed to be wide), then ``ns_steps`` times
``A = X X^T``, ``X = a X + (b A + c A A) X``. PyTorch runs these iterations in bfloat16;
minigrad runs them in the parameter's dtype (NumPy has no bfloat16), so the two differ by
bfloat16 rounding of the update.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.optim.hyperparameters import defaults_from
from minigrad.optim.optimizer import Optimizer

__all__ = ["Muon"]


def newton_schulz(g: np.ndarray, coefficients: tuple, steps: int, eps: float) -> np.ndarray:
    """The orthogonalized ``g`` (see the module docstring)."""
    a, b, c = coefficients
    tall = g.shape[0] > g.shape[1]
    x = g.T if tall else g
    x = x / (np.linalg.norm(x) + eps)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if tall else x


class Muon(Optimizer):
    """Muon, for 2-D parameters (hidden-layer weight matrices; keep embeddings, heads and
    biases on AdamW). See the module docstring.

    Args:
        params: 2-D parameters or parameter groups.
        lr: learning rate (default 1e-3).
        weight_decay: decoupled weight decay (0.1).
        momentum: momentum factor (0.95).
        nesterov: use the Nesterov form (True).
        ns_coefficients: ``(a, b, c)`` of the iteration ((3.4445, -4.775, 2.0315)).
        eps: added to the norm (1e-7).
        ns_steps: iterations (5).
        adjust_lr_fn: ``None`` / ``'original'`` or ``'match_rms_adamw'``.
    """

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (3.4445, -4.775, 2.0315),
        eps: float = 1e-7,
        ns_steps: int = 5,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if not lr >= 0:  # NaN too
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not momentum >= 0:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not weight_decay >= 0:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in (None, "original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        if ns_steps >= 100:
            raise ValueError("Number of steps must be less than 100 for computational efficiency")
        ns_coefficients = tuple(ns_coefficients)
        super().__init__(params, defaults_from(locals()))
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {tuple(p.shape)}"
                    )

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        return {"momentum_buffer": np.zeros_like(p)}

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        lr, mu = group["lr"], group["momentum"]
        buf = state["momentum_buffer"]
        buf += (1 - mu) * (g - buf)
        direction = g + mu * (buf - g) if group["nesterov"] else buf
        update = newton_schulz(direction, group["ns_coefficients"], group["ns_steps"], group["eps"])
        p *= 1 - lr * group["weight_decay"]
        rows, cols = p.shape
        if group["adjust_lr_fn"] == "match_rms_adamw":
            scale = 0.2 * math.sqrt(max(rows, cols))
        else:
            scale = math.sqrt(max(1.0, rows / cols))
        p -= (lr * scale) * update.astype(p.dtype, copy=False)

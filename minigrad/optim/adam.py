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

import numpy as np

from minigrad.optim.adam_family import AdamFamily, update_moments
from minigrad.optim.hyperparameters import defaults_from

__all__ = ["Adam", "AdamW"]


class Adam(AdamFamily):
    """Adam (Kingma & Ba), with ``weight_decay`` as an L2 penalty added to the gradient.

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-3).
        betas: decay rates of the first and second moment estimates (0.9, 0.999).
        eps: added to the denominator for stability (1e-8).
        weight_decay: L2 penalty (default 0).
        amsgrad: use the running maximum of the second moment (default False).
        maximize: ascend instead of descend.
        decoupled_weight_decay: decay the weights directly, as ``AdamW`` (default False).
        foreach, fused, capturable, differentiable: PyTorch's implementation options,
            taken by the base class (``minigrad/optim/optimizer.py``).

    Example::

        >>> opt = optim.Adam(model.parameters(), lr=3e-4)
    """

    _decoupled = False  # the default of decoupled_weight_decay (a group without the key)

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
        decoupled_weight_decay: bool = False,
    ) -> None:
        super().__init__(params, defaults_from(locals()))

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        state = super().new_state(p, group)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = np.zeros_like(p)
        return state

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        state["step"] += 1
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        wd, t = group["weight_decay"], state["step"]
        bias_correction1 = 1 - beta1**t
        bias_correction2_sqrt = math.sqrt(1 - beta2**t)
        step_size = lr / bias_correction1
        m, v = state["exp_avg"], state["exp_avg_sq"]
        v_max = None
        if group["amsgrad"]:
            v_max = state.get("max_exp_avg_sq")
            if v_max is None:  # amsgrad switched on after the first step
                v_max = state["max_exp_avg_sq"] = np.zeros_like(p)
        decoupled = group.get("decoupled_weight_decay", self._decoupled)
        decay = 1 - lr * wd if decoupled else 1.0
        l2 = 0.0 if decoupled else wd
        if _fits_kernel(p, g, m, v, v_max):
            empty = np.empty(0, dtype=m.dtype)
            vm = empty if v_max is None else v_max.reshape(-1)
            flat = [a.reshape(-1) for a in (p, g, m, v)]
            args = (decay, l2, 1 - beta1, beta2, step_size, bias_correction2_sqrt, eps, 1 - beta2)
            _kernel()(*flat, vm, *args)
        else:
            args = (decay, l2, beta1, beta2, step_size, bias_correction2_sqrt, eps)
            _update_numpy(p, g, m, v, v_max, *args)


def _kernel():
    from minigrad.kernels.adam import adam_update  # lazy: numba

    return adam_update


def _fits_kernel(*arrays) -> bool:
    """The fused kernel takes writeable C-contiguous float32 / float64 arrays of one dtype
    and shape."""
    dtype, shape = arrays[0].dtype, arrays[0].shape
    if dtype not in (np.float32, np.float64):
        return False
    return all(
        a is None
        or (a.dtype == dtype and a.shape == shape and a.flags.c_contiguous and a.flags.writeable)
        for a in arrays
    )


def _update_numpy(p, g, m, v, v_max, decay, l2, beta1, beta2, step_size, bc2, eps):
    """The kernel's arithmetic in NumPy (other dtypes, non-contiguous arrays)."""
    if decay != 1:
        p *= decay
    if l2 != 0:
        g = g + l2 * p
    update_moments(m, v, g, beta1, beta2)
    if v_max is not None:
        np.maximum(v_max, v, out=v_max)
        v = v_max
    denom = np.sqrt(v)
    denom /= bc2
    denom += eps
    p -= step_size * (m / denom)


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
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
            decoupled_weight_decay=True,
        )  # fmt: skip

"""Gradient clipping: ``clip_grad_norm_`` (rescale all gradients so that their joint norm
is at most ``max_norm``) and ``clip_grad_value_`` (clamp each element).

The total norm treats every gradient as one long vector:
``total = (sum_p ||g_p||^q)^(1/q)`` for ``norm_type = q`` (``max_p max |g_p|`` for
``inf``). If it exceeds ``max_norm``, every gradient is multiplied in place by
``max_norm / (total + 1e-6)``, as in PyTorch.

A non-finite total norm (a NaN or an infinity in some gradient) is reported, never
silently applied: with ``error_if_nonfinite=True`` it raises; otherwise it warns and
**leaves the gradients unscaled** (PyTorch would multiply them by nan or 0, which only
hides where the problem came from). The returned norm is the non-finite value, so a
training loop can skip the step.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable

import numpy as np

from minigrad.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _as_list(tensors) -> list:
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def _grads(parameters) -> list[Tensor]:
    return [p._grad for p in _as_list(parameters) if p._grad is not None]


def _norm(a: np.ndarray, norm_type: float) -> float:
    """The q-norm of one array, accumulated in float64."""
    flat = a.reshape(-1).astype(np.float64, copy=False)
    if flat.size == 0:
        return 0.0
    if norm_type == 2.0:
        return math.sqrt(float(np.dot(flat, flat)))
    if math.isinf(norm_type):
        return float(np.max(np.abs(flat))) if norm_type > 0 else float(np.min(np.abs(flat)))
    if norm_type == 1.0:
        return float(np.sum(np.abs(flat)))
    return float(np.sum(np.abs(flat) ** norm_type) ** (1.0 / norm_type))


def get_total_norm(
    tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False
) -> Tensor:
    """The norm of the concatenation of ``tensors`` (a 0-d Tensor in their dtype)."""
    arrays = [t._data for t in _as_list(tensors)]
    norm_type = float(norm_type)
    if not arrays:
        return Tensor._make(np.asarray(0.0, dtype=np.float32), False, None)
    per = np.array([_norm(a, norm_type) for a in arrays])
    total = _norm(per, norm_type)
    dtype = np.result_type(*[a.dtype for a in arrays])
    if not math.isfinite(total) and error_if_nonfinite:
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. With `error_if_nonfinite=False` a "
            "non-finite norm gives a warning and leaves the gradients unscaled"
        )
    return Tensor._make(np.asarray(total, dtype=dtype), False, None)


def clip_grads_with_norm_(parameters, max_norm: float, total_norm) -> None:
    """Scale the gradients in place by ``min(1, max_norm / (total_norm + 1e-6))``."""
    total = float(total_norm.item() if isinstance(total_norm, Tensor) else total_norm)
    coef = max_norm / (total + 1e-6)
    if coef >= 1.0:
        return  # multiplying by 1 would change nothing
    for p in _as_list(parameters):
        g = p._grad
        if g is None:
            continue
        if g.grad_fn is None and g._data.flags.writeable:
            g._data *= np.asarray(coef, dtype=g._data.dtype)
        else:
            p._grad = Tensor._make(g._data * np.asarray(coef, dtype=g._data.dtype), False, None)


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach=None,
) -> Tensor:
    """Rescale gradients in place so that their total norm is at most ``max_norm``.

    Args:
        parameters: a tensor or an iterable of tensors (``model.parameters()``);
            those without a gradient are skipped.
        max_norm: the largest allowed total norm.
        norm_type: q of the q-norm (``2.0``, ``1.0``, ``float('inf')``, ...).
        error_if_nonfinite: raise if the total norm is NaN or infinite; otherwise a
            warning is given and the gradients are left unscaled (see the module docstring).
        foreach: accepted for PyTorch compatibility and ignored.

    Returns:
        The total norm of the gradients before clipping, as a 0-d Tensor.

    Example::

        >>> loss.backward()
        >>> norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        >>> optimizer.step()
    """
    parameters = _as_list(parameters)
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if not math.isfinite(float(total.item())):
        warnings.warn(
            f"clip_grad_norm_: the total gradient norm is {float(total.item())}; the gradients "
            "were left unscaled (some gradient holds nan or inf)",
            RuntimeWarning,
            stacklevel=2,
        )
        return total
    clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach=None
) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        g = p._grad
        if g is None:
            continue
        if g.grad_fn is None and g._data.flags.writeable:
            np.clip(g._data, -clip_value, clip_value, out=g._data)
        else:
            p._grad = Tensor._make(np.clip(g._data, -clip_value, clip_value), False, None)

"""``instance_norm``: normalize each channel of each example over its own positions.

For an input ``(N, C, *)``, each ``(n, c)`` slice is normalized by its own mean and
biased variance over the positions ``*``:

    y = (x - mean_nc) / sqrt(var_nc + eps) * weight_c + bias_c

With running statistics and ``use_input_stats`` (training), they are updated by
``momentum`` from the batch's statistics averaged over the N examples (the running
variance takes the unbiased variance, as in batch norm); without ``use_input_stats``
(eval with tracked statistics) the running statistics normalize instead. Written with
Tensor operations, so autograd differentiates it.
"""

from __future__ import annotations

import numpy as np

from minigrad.tensor import Tensor, as_tensor

__all__ = ["instance_norm"]


def _per_channel(v: Tensor, ndim: int) -> Tensor:
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Instance normalization (see the module docstring). Shape: ``(N, C, *)`` -> same."""
    x = as_tensor(input)
    if x.ndim < 3:
        raise ValueError(
            f"instance_norm: expected an input (N, C, *) of 3 or more dims, got {x.ndim}"
        )
    axes = tuple(range(2, x.ndim))
    if use_input_stats:
        mean = x.mean(axes, keepdim=True)
        var = ((x - mean) ** 2).mean(axes, keepdim=True)
        if running_mean is not None and running_var is not None:
            n = int(np.prod(x.shape[2:]))
            batch_mean = mean.detach().numpy().reshape(x.shape[:2]).mean(0)
            batch_var = var.detach().numpy().reshape(x.shape[:2]).mean(0) * n / max(n - 1, 1)
            running_mean._data[...] = (1 - momentum) * running_mean._data + momentum * batch_mean
            running_var._data[...] = (1 - momentum) * running_var._data + momentum * batch_var
    else:
        mean = _per_channel(as_tensor(running_mean), x.ndim)
        var = _per_channel(as_tensor(running_var), x.ndim)
    y = (x - mean) / (var + eps).sqrt()
    if weight is not None:
        y = y * _per_channel(as_tensor(weight), x.ndim)
    if bias is not None:
        y = y + _per_channel(as_tensor(bias), x.ndim)
    return y

"""Channel dropout (``dropout1d``, ``dropout2d``, ``dropout3d``: whole channels zeroed
together) and alpha dropout (``alpha_dropout``, ``feature_alpha_dropout``: for SELU
networks, dropped values set to SELU's negative saturation and the result rescaled to
keep the mean and variance).

Alpha dropout, with ``a' = -scale * alpha`` (SELU's constants) and keep mask ``m``:

    y = A (x m + a' (1 - m)) + B,   A = ((1 - p)(1 + p a'^2))^(-1/2),   B = -A a' p

Masks are drawn from minigrad's generator (``mg.manual_seed`` reproduces them).
"""

from __future__ import annotations

import warnings

import numpy as np

from minigrad import random as _random
from minigrad.nn.functional.activation_composite import SELU_ALPHA, SELU_SCALE
from minigrad.nn.functional.dropout import check_probability, without_mask
from minigrad.tensor import Tensor, as_tensor

__all__ = [
    "alpha_dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
    "feature_dropout",
]


def _keep(shape, p: float) -> np.ndarray:
    """1 with probability 1 - p, else 0."""
    return (_random.default_generator().random(shape) >= p).astype(np.float64)


def _channel_shape(x: Tensor, batched_ndim: int) -> tuple:
    """The mask shape that covers whole channels: ``(N, C, 1, ...)`` (or ``(C, 1, ...)``
    for an unbatched input)."""
    lead = 2 if x.ndim == batched_ndim else 1
    return tuple(x.shape[:lead]) + (1,) * (x.ndim - lead)


def _channel_dropout(name: str, input, p, training, spatial: int) -> Tensor:
    p = check_probability(p, name)
    x = as_tensor(input)
    if x.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"{name}: Expected {spatial + 1}D or {spatial + 2}D input, but received a "
            f"{x.ndim}D input"
        )
    out = without_mask(x, p, training)
    if out is not None:
        return out
    mask = _keep(_channel_shape(x, spatial + 2), p) / (1.0 - p)
    return x * mask.astype(x.dtype)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` with probability ``p`` and scale
    the rest by ``1 / (1 - p)``."""
    return _channel_dropout("dropout1d", input, p, training, 1)


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` or ``(C, H, W)``, as :func:`dropout1d`."""
    x = as_tensor(input)
    if x.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input; it is taken as (C, H, W), one unbatched image",
            UserWarning,
            stacklevel=2,
        )
    return _channel_dropout("dropout2d", x, p, training, 2)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)``, as :func:`dropout1d`."""
    return _channel_dropout("dropout3d", input, p, training, 3)


def _alpha(name: str, input, p, training, mask_shape) -> Tensor:
    p = check_probability(p, name)
    x = as_tensor(input)
    out = without_mask(x, p, training)
    if out is not None:
        return out
    saturation = -SELU_SCALE * SELU_ALPHA
    a = ((1 - p) * (1 + p * saturation**2)) ** -0.5
    b = -a * saturation * p
    keep = _keep(mask_shape(x), p)
    return x * (a * keep).astype(x.dtype) + (a * saturation * (1 - keep) + b).astype(x.dtype)


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of each element (see the module docstring)."""
    return _alpha("alpha_dropout", input, p, training, lambda x: x.shape)


def feature_alpha_dropout(
    input,
    p: float = 0.5,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Alpha dropout of whole channels (dim 1) of a batched input."""

    def channels(x):
        return tuple(x.shape[:2]) + (1,) * (x.ndim - 2)

    return _alpha("feature_alpha_dropout", input, p, training, channels)


def feature_dropout(input, p: float, train: bool) -> Tensor:
    """``torch.feature_dropout``: whole channels (dim 1) of any ``(N, C, *)`` input zeroed
    with probability ``p``, the rest scaled by ``1 / (1 - p)``."""
    p = check_probability(p, "feature_dropout")
    x = as_tensor(input)
    if not train or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    mask = _keep(tuple(x.shape[:2]) + (1,) * (x.ndim - 2), p) / (1.0 - p)
    return x * mask.astype(x.dtype)

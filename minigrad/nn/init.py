"""Weight initialisation, in place, with PyTorch's names and conventions.

Every function fills ``tensor._data`` in place (no graph is recorded), draws from
minigrad's seeded generator (``mg.manual_seed``) unless a ``generator`` is given, and
returns the tensor.

Fans: for a weight of shape ``(out, in, *kernel)``, ``fan_in = in * prod(kernel)`` and
``fan_out = out * prod(kernel)`` (a Linear weight is ``(out_features, in_features)``).

- Xavier / Glorot: ``std = gain * sqrt(2 / (fan_in + fan_out))``; the uniform version
  draws from ``U(-a, a)`` with ``a = sqrt(3) * std``.
- Kaiming / He: ``std = gain / sqrt(fan)``, with ``fan`` = fan_in (``mode='fan_in'``,
  preserves the forward variance) or fan_out; the uniform bound is ``sqrt(3) * std``.
  ``gain`` comes from ``calculate_gain(nonlinearity, a)``: sqrt(2) for ReLU,
  ``sqrt(2 / (1 + a^2))`` for leaky ReLU with slope ``a``.

``nn.Linear``'s default, ``kaiming_uniform_(w, a=sqrt(5))``, works out to
``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad import random as _random
from minigrad.tensor import Tensor
from minigrad.unsupported import module_getattr

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "zeros_",
    "ones_",
    "eye_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
]

_LINEAR_GAIN_1 = ("linear", "identity", "sigmoid") + tuple(
    f"conv{k}" for k in ("1d", "2d", "3d", "_transpose1d", "_transpose2d", "_transpose3d")
)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (as in PyTorch).

    linear / conv / sigmoid: 1; tanh: 5/3; relu: sqrt(2);
    leaky_relu: sqrt(2 / (1 + slope^2)) with slope ``param`` (default 0.01); selu: 3/4.
    """
    if nonlinearity in _LINEAR_GAIN_1:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"calculate_gain: negative_slope {param!r} is not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    shape = tensor._data.shape
    if len(shape) < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions "
            f"(got shape {list(shape)})"
        )
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode {mode!r} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor: Tensor, values: np.ndarray) -> Tensor:
    """Write ``values`` into the tensor's array in place (no graph, whatever the mode)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"init: expected a Tensor, got {type(tensor).__name__}")
    np.copyto(tensor._data, values, casting="unsafe")
    tensor._bump_version()
    return tensor


def _gen(generator):
    return generator if generator is not None else _random.default_generator()


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with draws from ``U(a, b)``."""
    return _fill(tensor, _gen(generator).uniform(a, b, tensor._data.shape))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with draws from ``N(mean, std^2)``."""
    return _fill(tensor, _gen(generator).normal(mean, std, tensor._data.shape))


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator=None,
) -> Tensor:
    """Fill with ``N(mean, std^2)`` draws restricted to ``[a, b]`` (redrawing the rest)."""
    gen = _gen(generator)
    out = gen.normal(mean, std, tensor._data.shape)
    bad = (out < a) | (out > b)
    for _ in range(100):
        if not bad.any():
            break
        out[bad] = gen.normal(mean, std, int(bad.sum()))
        bad = (out < a) | (out > b)
    return _fill(tensor, np.clip(out, a, b))


def constant_(tensor: Tensor, val: float) -> Tensor:
    return _fill(tensor, val)


def zeros_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 0)


def ones_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 1)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix."""
    if tensor._data.ndim != 2:
        raise ValueError(f"eye_: only tensors with 2 dimensions are supported, got {tensor.ndim}")
    return _fill(tensor, np.eye(*tensor._data.shape))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """``U(-a, a)`` with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """``N(0, std^2)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """``U(-bound, bound)`` with ``bound = gain * sqrt(3 / fan)`` (He et al.)."""
    fan = _fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    bound = math.sqrt(3.0) * gain / math.sqrt(fan) if fan > 0 else 0.0
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """``N(0, std^2)`` with ``std = gain / sqrt(fan)``."""
    fan = _fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan) if fan > 0 else 0.0
    return normal_(tensor, 0.0, std, generator)


__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)

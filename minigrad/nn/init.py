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
import warnings

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
    "orthogonal_",
    "dirac_",
    "sparse_",
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
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


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain`` (Saxe et al.): the Q factor of
    the QR decomposition of a standard normal ``(rows, numel / rows)`` matrix, its
    columns' signs fixed by R's diagonal so that the draw is uniform. Dimensions after
    the first are flattened."""
    if tensor._data.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor._data.size == 0:
        return tensor
    rows = tensor._data.shape[0]
    cols = tensor._data.size // rows
    flat = _gen(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, (gain * q).reshape(tensor._data.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight ``(out, in, *kernel)`` with the Dirac delta:
    each of the first ``min(out / groups, in)`` output channels of a group passes its
    input channel through unchanged (1 at the kernel's centre, 0 elsewhere)."""
    shape = tensor._data.shape
    if len(shape) not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = shape[0] // groups
    values = np.zeros(shape)
    centre = tuple(k // 2 for k in shape[2:])
    for g in range(groups):
        for d in range(min(per_group, shape[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Fill a 2-D tensor with ``N(0, std^2)`` draws, then zero ``ceil(sparsity * rows)``
    randomly chosen entries of every column (Martens, 2010)."""
    if tensor._data.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor._data.shape
    gen = _gen(generator)
    values = gen.normal(0.0, std, (rows, cols))
    num_zeros = int(math.ceil(sparsity * rows))
    for col in range(cols):
        values[gen.permutation(rows)[:num_zeros], col] = 0
    return _fill(tensor, values)


def _deprecated(fn):
    """PyTorch's old names without the trailing underscore: they warn, then do the same."""
    old = fn.__name__[:-1]

    def deprecated(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old}` is now deprecated in favor of `nn.init.{fn.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return fn(*args, **kwargs)

    deprecated.__name__ = old
    deprecated.__doc__ = f"Deprecated: use :func:`{fn.__name__}`."
    return deprecated


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)

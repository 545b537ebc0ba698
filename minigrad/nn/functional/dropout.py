"""``dropout``: inverted dropout.

In training, each element is zeroed with probability ``p`` and the survivors are
scaled by ``1 / (1 - p)``, so the expected value of every element is unchanged and
evaluation needs no rescaling: ``y = x * m / (1 - p)`` with ``m ~ Bernoulli(1 - p)``.
The backward applies the same mask: ``dx = dy * m / (1 - p)``.
The mask is drawn from minigrad's seeded generator (``mg.manual_seed``).
"""

from __future__ import annotations

import math

import numpy as np

from minigrad import random as _random
from minigrad.autograd.function import Function
from minigrad.functions.errors import DtypeError
from minigrad.printing import torch_dtype_name
from minigrad.tensor import Tensor, as_tensor

__all__ = ["dropout"]


def dropout_mask(shape, dtype, p: float) -> np.ndarray:
    """Kept / (1 - p): 0 with probability p, else 1 / (1 - p), from minigrad's generator.

    One 63-bit seed is drawn from minigrad's generator (``mg.manual_seed`` reproduces the
    mask); element i keeps when the top 16 bits of SplitMix64's i-th output from that seed
    are >= round(p * 65536) (``minigrad/kernels/dropout.py``: one vectorized pass, shared
    among threads as ``runtime.parallel`` decides). p is thereby rounded to a multiple of
    1/65536 (an error below 8e-6).
    """
    if p >= 1:
        return np.zeros(shape, dtype=dtype)
    from minigrad.kernels.dropout import dropout_mask_fill  # lazy: numba

    seed = np.uint64(_random.default_generator().integers(0, 2**63))
    threshold = np.uint64(min(round(p * 65536), 65535))
    value = 1.0 / (1.0 - p)
    work = np.dtype(dtype) if np.dtype(dtype) in (np.float32, np.float64) else np.float32
    out = np.empty(math.prod(shape), dtype=work)
    dropout_mask_fill.for_size(out.size)(seed, threshold, value, out)
    return out.reshape(shape).astype(dtype, copy=False)


class Dropout(Function):
    @staticmethod
    def forward(ctx, x, p):
        mask = dropout_mask(x._data.shape, x._data.dtype, p)  # 0 or 1/(1-p)
        ctx.save_for_backward(Tensor._make(mask, False, None))
        return x._data * mask

    @staticmethod
    def backward(ctx, g):
        (mask,) = ctx.saved_tensors
        return g * mask, None


def check_probability(p, name: str = "dropout") -> float:
    """``p`` as a float, or a ``ValueError`` if it is not a probability."""
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: p must be a number, got {type(p).__name__}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name} probability has to be between 0 and 1, but got {p}")
    return float(p)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Args:
        input: any shape.
        p: probability of an element being zeroed, in [0, 1].
        training: apply dropout (True) or return the input unchanged (False).
        inplace: accepted for PyTorch compatibility; minigrad never overwrites an input.

    Example::

        >>> y = F.dropout(mg.ones(1000), p=0.2)   # about 200 zeros, the rest 1.25
    """
    p = check_probability(p)
    x = as_tensor(input)
    out = without_mask(x, p, training)
    return Dropout.apply(x, p) if out is None else out


def without_mask(x: Tensor, p: float, training: bool) -> Tensor | None:
    """What every dropout does without drawing a mask: ``x`` itself in evaluation or
    with ``p = 0``, zeros with ``p = 1``; None when a mask is needed. In training an
    integer or bool input is refused, as PyTorch refuses it (the mask scales by a float,
    which PyTorch writes into the input's dtype)."""
    if not training or p == 0.0:
        return x
    if x.dtype.kind != "f":
        raise DtypeError(
            "result type Float can't be cast to the desired output type "
            f"{torch_dtype_name(x.dtype)}"
        )
    return x * 0.0 if p == 1.0 else None

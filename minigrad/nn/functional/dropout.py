"""``dropout``: inverted dropout.

In training, each element is zeroed with probability ``p`` and the survivors are
scaled by ``1 / (1 - p)``, so the expected value of every element is unchanged and
evaluation needs no rescaling: ``y = x * m / (1 - p)`` with ``m ~ Bernoulli(1 - p)``.
The backward applies the same mask: ``dx = dy * m / (1 - p)``.
The mask is drawn from minigrad's seeded generator (``mg.manual_seed``).
"""

from __future__ import annotations

import numpy as np

from minigrad import random as _random
from minigrad.autograd.function import Function
from minigrad.tensor import Tensor, as_tensor

__all__ = ["dropout"]


class Dropout(Function):
    @staticmethod
    def forward(ctx, x, p):
        keep = _random.default_generator().random(x.data.shape, dtype=np.float32) >= p
        scale = np.asarray(1.0 / (1.0 - p), dtype=x.data.dtype)
        mask = np.multiply(keep, scale, dtype=x.data.dtype)  # 0 or 1/(1-p)
        ctx.save_for_backward(Tensor._make(mask, False, None))
        return x.data * mask

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


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
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
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    return Dropout.apply(x, p)

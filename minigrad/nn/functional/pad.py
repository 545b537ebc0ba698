"""``F.pad``: grow (or, with negative amounts, crop) the last dimensions of a tensor.

``pad`` lists amounts from the last dimension backwards, two per dimension, as in
PyTorch: ``(left, right)`` pads the last dim, ``(left, right, top, bottom)`` the last
two. Modes:

- ``"constant"``: new places hold ``value`` (0 by default). Backward: the gradient of
  the original places is the middle slice of the output gradient.
- ``"reflect"`` (mirror without repeating the edge), ``"replicate"`` (repeat the edge),
  ``"circular"`` (wrap around): every output element is a copy of some input element,
  so the output is an integer-index gather of the input, and its backward adds each
  copy's gradient back into the element it came from. Output place ``j`` (from
  ``-before`` to ``n + after``; a negative amount starts or stops inside the input)
  reads input place ``clip(j)`` (replicate) or ``reflect(j)`` (reflect); ``circular``
  crops the negative amounts first and wraps around what is left, as PyTorch does.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.errors import no_kernel
from minigrad.printing import shape_str
from minigrad.tensor import Tensor

_MODES = ("reflect", "replicate", "circular")


def _source(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """The input place each output place of one padded dim reads (see the module)."""
    if mode == "circular":  # crop to m places from start, then wrap around them
        start = max(-before, 0)
        m = n - start - max(-after, 0)
        return start + np.arange(-max(before, 0), m + max(after, 0)) % m
    j = np.arange(-before, n + after)
    if mode == "replicate":
        return np.clip(j, 0, n - 1)
    j = np.abs(j)  # reflect: mirror at 0, then at n - 1
    return np.where(j > n - 1, 2 * (n - 1) - j, j)


class ConstantPad(Function):
    """Pad with a constant; ``widths`` is NumPy's ``[(before, after), ...]`` (non-negative)."""

    @staticmethod
    def forward(ctx, x, widths, value):
        ctx.inner = tuple(slice(b, b + n) for (b, _), n in zip(widths, x._data.shape))
        return np.pad(x._data, widths, mode="constant", constant_values=value)

    @staticmethod
    def backward(ctx, g):
        return g[ctx.inner], None, None


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """Pad ``input``'s last ``len(pad) // 2`` dims by ``pad`` (see the module docstring).

    Example::

        >>> F.pad(mg.ones(2, 3), (1, 1)).shape       # last dim 3 -> 5
        (2, 5)
        >>> F.pad(mg.ones(1, 2, 2), (1, 0, 0, 1), mode="replicate").shape
        (1, 3, 3)
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"pad: input must be a Tensor, got {type(input).__name__}")
    pad = tuple(pad)
    if len(pad) % 2 or not all(isinstance(p, (int, np.integer)) for p in pad):
        raise ValueError(f"pad: pad must be an even-length sequence of ints, got {pad}")
    k = len(pad) // 2
    if k > input.ndim:
        raise ValueError(
            f"pad: padding of length {len(pad)} covers {k} dims but the input of shape "
            f"{shape_str(input.shape)} has only {input.ndim}"
        )
    lead = input.ndim - k
    amounts = [(0, 0)] * lead + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(k))]
    if mode == "constant":
        return _constant(input, amounts, 0 if value is None else value)
    if mode not in _MODES:
        raise ValueError(
            f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}"
        )
    if value is not None and value != 0:
        raise ValueError(f"pad: value is only used with mode='constant', got mode={mode!r}")
    if mode in ("reflect", "replicate") and input.dtype == np.bool_:
        kind = "reflection" if mode == "reflect" else "replication"
        raise no_kernel(f"{kind}_pad{k}d", input.dtype)
    index = []
    for d, ((before, after), n) in enumerate(zip(amounts, input.shape)):
        if d < lead:
            continue
        if mode == "reflect" and (before >= n or after >= n):
            raise ValueError(
                f"pad: reflect padding ({before}, {after}) must be smaller than the size of "
                f"dim {d} ({n})"
            )
        if mode == "circular" and (before > n or after > n):
            raise ValueError(
                f"pad: circular padding ({before}, {after}) must be at most the size of dim "
                f"{d} ({n})"
            )
        if (
            n == 0
            or n + before + after < 0
            or (mode == "circular" and n + min(before, 0) + min(after, 0) <= 0)
        ):
            raise ValueError(f"pad: cannot {mode}-pad dim {d} of size {n} by ({before}, {after})")
        index.append(_source(n, before, after, mode))
    grids = np.ix_(*index)
    return input[(Ellipsis,) + grids] if lead else input[grids]


def _constant(input: Tensor, amounts, value) -> Tensor:
    crop = tuple(slice(max(-b, 0), n - max(-a, 0)) for (b, a), n in zip(amounts, input.shape))
    if any(b < 0 or a < 0 for b, a in amounts):
        if any(s.stop < s.start for s in crop):
            raise ValueError(
                f"pad: negative padding {amounts} removes more than the input of shape "
                f"{shape_str(input.shape)} holds"
            )
        input = input[crop]
    widths = tuple((max(b, 0), max(a, 0)) for b, a in amounts)
    value = np.asarray(value).astype(input.dtype)[()]
    return ConstantPad.apply(input, widths, value)

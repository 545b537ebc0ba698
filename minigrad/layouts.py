"""Layouts and memory formats: PyTorch's names, answered for dense strided NumPy arrays.

A minigrad tensor is a dense NumPy array with strides, which is PyTorch's ``strided``
layout, so ``t.layout`` is ``mg.strided`` (the sparse layouts are not there: see
``unsupported.json``). A memory format says in which order a tensor's elements lie in
memory; NumPy arrays carry any strides, so each format PyTorch has for dense tensors is
real here:

- ``contiguous_format``: row-major (C order), what ``t.contiguous()`` gives;
- ``channels_last``: for a 4-d ``(N, C, H, W)`` tensor, the elements in ``(N, H, W, C)``
  order (strides ``(HWC, 1, WC, C)``); ``channels_last_3d`` the same for 5-d
  ``(N, C, D, H, W)``;
- ``preserve_format``: keep the input's order, PyTorch's default for ``clone`` and ``to``.
  minigrad's ``clone`` always copies into row-major order, so a clone of a transposed
  tensor has other strides than PyTorch's (the same values); a channels-last tensor is
  cloned by asking for ``memory_format=channels_last``.

``t.contiguous(memory_format=mg.channels_last)`` returns a tensor with those strides (a
recorded copy, or ``t`` itself when it is already laid out so),
``t.is_contiguous(memory_format=...)`` answers from the strides, and ``t.stride()``
shows them, as in PyTorch::

    >>> x = mg.zeros(2, 3, 4, 5).contiguous(memory_format=mg.channels_last)
    >>> x.stride(), x.is_contiguous(memory_format=mg.channels_last)
    ((60, 1, 15, 3), True)
"""

from __future__ import annotations

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "layout",
    "legacy_contiguous_format",
    "memory_format",
    "preserve_format",
    "strided",
]


class _Named:
    """A constant known by its name: prints as ``minigrad.<name>`` and pickles as a
    reference to that module attribute (``mg.save`` of a config holding one works)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"minigrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name


class layout(_Named):
    """How a tensor's elements are stored; minigrad has one layout, ``strided``."""


class memory_format(_Named):
    """In which order a dense tensor's elements lie in memory (see the module docstring)."""


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
#: PyTorch's internal alias of ``contiguous_format`` that some programs spell out.
legacy_contiguous_format = contiguous_format

#: The number of dims each channels-last format needs.
_CHANNELS_LAST_RANK = {"channels_last": 4, "channels_last_3d": 5}


def check(fmt, where: str) -> memory_format:
    """``fmt`` if it is one of the formats above (``None`` means ``preserve_format``),
    else PyTorch's ``TypeError``."""
    if fmt is None:
        return preserve_format
    if not isinstance(fmt, memory_format):
        raise TypeError(
            f"{where}(): argument 'memory_format' must be torch.memory_format, "
            f"not {type(fmt).__name__}"
        )
    return fmt


def channels_last_order(fmt: memory_format, ndim: int, where: str) -> tuple[int, ...]:
    """The dims of a tensor in the order its elements lie in memory under ``fmt``, a
    channels-last format: ``(0, 2, 3, 1)`` for a 4-d tensor (N, H, W, C). A tensor of
    another rank raises PyTorch's ``RuntimeError``."""
    rank = _CHANNELS_LAST_RANK[fmt.name]
    if ndim != rank:
        raise RuntimeError(
            f"{where}: required rank {rank} tensor to use {fmt.name} format, got {ndim} dims"
        )
    return (0, *range(2, ndim), 1)


def is_channels_last(fmt: memory_format) -> bool:
    return fmt.name in _CHANNELS_LAST_RANK


def contiguous(t, fmt, where: str = "contiguous"):
    """``t`` laid out in ``fmt`` (a recorded copy, or ``t`` itself when it already is):
    ``t.contiguous(memory_format=fmt)``. As in PyTorch, ``preserve_format`` gives a
    row-major ``t`` back and is refused for any other (it names no order to copy into)."""
    fmt = check(fmt, where)
    if fmt is preserve_format:
        if t.is_contiguous():
            return t
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if fmt is contiguous_format:
        return t.contiguous()
    channels_last_order(fmt, t.ndim, where)  # the rank check, even when nothing is copied
    return t if t.is_contiguous(memory_format=fmt) else clone(t, fmt, where)


def clone(t, fmt, where: str = "clone"):
    """A recorded copy of ``t`` laid out in ``fmt``: ``t.clone(memory_format=fmt)``.
    ``preserve_format`` and ``contiguous_format`` give a row-major copy (minigrad's
    ``clone`` always copies into row-major order)."""
    fmt = check(fmt, where)
    if not is_channels_last(fmt):
        return t.clone()
    order = channels_last_order(fmt, t.ndim, where)
    back = [order.index(d) for d in range(len(order))]
    # a row-major copy in (N, H, W, C) order, viewed back as (N, C, H, W)
    return t.permute(*order).clone().permute(*back)

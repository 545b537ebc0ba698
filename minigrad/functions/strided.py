"""``as_strided``: a view given by raw geometry (sizes, strides, storage offset).

A tensor's elements live in a *storage*, the block of memory that the NumPy array
owning it allocated; element ``(i0, i1, ...)`` of a view lies at position
``offset + i0 * stride0 + i1 * stride1 + ...`` of it. ``as_strided`` makes a view with
any such geometry, so its elements may repeat (a stride of 0) or skip.

Backward, as PyTorch defines it: both the input and the output are sets of storage
positions. The output's gradient is summed into the positions it came from (a position
read twice gets both), and the input reads its gradient back from its own positions
(divided by how many of its elements share one position, when the input itself
overlaps, like an expanded tensor).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function, _wrap


def storage_of(array: np.ndarray) -> np.ndarray:
    """The array that owns ``array``'s memory (through NumPy's ``.base`` chain, also
    across the helper object ``numpy.lib.stride_tricks.as_strided`` puts in it)."""
    while True:
        base = array.base
        if isinstance(base, np.ndarray):
            array = base
        elif base is not None and isinstance(getattr(base, "base", None), np.ndarray):
            array = base.base
        else:
            return array


def address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def storage_extent(array: np.ndarray) -> tuple[int, int]:
    """``(lowest address, number of bytes)`` of the memory that the array ``array``
    spans (an owner of memory spans all of its storage)."""
    low = address(array)
    span = array.itemsize
    for n, s in zip(array.shape, array.strides):
        if n == 0:
            return low, 0
        if s < 0:
            low += (n - 1) * s
        span += (n - 1) * abs(s)
    return low, span


def offset_in_storage(array: np.ndarray) -> int:
    """Where ``array``'s first element lies in its storage, in elements."""
    return (address(array) - storage_extent(storage_of(array))[0]) // array.itemsize


def positions(shape: tuple, strides: tuple, offset: int) -> np.ndarray:
    """The storage position (in elements) of every element of a view, shaped ``shape``."""
    pos = np.full(shape, offset, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(shape, strides)):
        step = np.arange(n, dtype=np.int64) * s
        pos += step.reshape((n,) + (1,) * (len(shape) - axis - 1))
    return pos


def strided_view(array: np.ndarray, size: tuple, stride: tuple, offset: int) -> np.ndarray:
    """A NumPy view of ``array``'s storage with the given geometry (in elements)."""
    owner = storage_of(array)
    low, nbytes = storage_extent(owner)
    storage_size = nbytes // array.itemsize
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment")
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > storage_size or offset < 0:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{offset}, and itemsize {array.itemsize} requiring a storage size of "
            f"{needed * array.itemsize} are out of bounds for storage of size "
            f"{storage_size * array.itemsize}"
        )
    view = np.asarray(_View(owner, array.dtype, size, stride, low + offset * array.itemsize))
    if not array.flags.writeable:
        view.flags.writeable = False
    return view


class _View:
    """The description NumPy builds a strided view from (its array interface); its
    ``base`` keeps the owner of the memory alive."""

    def __init__(self, owner: np.ndarray, dtype, size: tuple, stride: tuple, start: int):
        self.base = owner
        self.__array_interface__ = {
            "shape": tuple(size),
            "typestr": dtype.str,
            "descr": dtype.descr,
            "data": (start, False),
            "strides": tuple(s * dtype.itemsize for s in stride),
            "version": 3,
        }


class AsStrided(Function):
    """``x.as_strided(size, stride, storage_offset)``: a view of x's storage."""

    is_view = True

    @staticmethod
    def forward(ctx, x, size, stride, offset):
        data = x._data
        out = strided_view(data, size, stride, offset)
        own_stride = tuple(s // data.itemsize for s in data.strides)
        ctx.storage_size = storage_extent(storage_of(data))[1] // data.itemsize
        ctx.out_pos = positions(size, stride, offset)
        ctx.in_pos = positions(data.shape, own_stride, offset_in_storage(data))
        ctx.in_count = np.bincount(ctx.in_pos.reshape(-1), minlength=ctx.storage_size)
        return out

    @staticmethod
    def backward(ctx, g):
        where = _wrap(ctx.out_pos.reshape(-1))
        storage = _wrap(np.zeros(ctx.storage_size, g.dtype)).index_add(0, where, g.reshape(-1))
        grad = storage[_wrap(ctx.in_pos)]
        if ctx.in_count.max(initial=1) > 1:
            grad = grad / _wrap(ctx.in_count[ctx.in_pos].astype(g.dtype))
        return grad, None, None, None

    @staticmethod
    def backward_array(ctx, g):
        storage = np.bincount(
            ctx.out_pos.reshape(-1), weights=g.reshape(-1), minlength=ctx.storage_size
        )
        grad = storage[ctx.in_pos]
        if ctx.in_count.max(initial=1) > 1:
            grad = grad / ctx.in_count[ctx.in_pos]
        return grad.astype(g.dtype, copy=False), None, None, None

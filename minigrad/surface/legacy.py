"""More creation functions: ``logspace``, ``scalar_tensor``, ``asarray``, ``zeros``-style
helpers PyTorch also has, and PyTorch's legacy typed constructors.

``mg.FloatTensor(2, 3)`` is an uninitialized (here: zero) 2 x 3 float32 tensor and
``mg.FloatTensor([1, 2])`` a float32 copy of the data, as ``torch.FloatTensor``;
likewise ``DoubleTensor``, ``HalfTensor``, ``LongTensor``, ``IntTensor``,
``ShortTensor``, ``CharTensor``, ``ByteTensor`` and ``BoolTensor``.
``isinstance(t, mg.FloatTensor)`` is True for a float32 tensor, as in PyTorch.
"""

from __future__ import annotations

import warnings

import numpy as np

from minigrad import dtypes
from minigrad.creation import _finish, evenly_spaced, tensor
from minigrad.tensor import Tensor, as_tensor


def logspace(
    start, end, steps: int, base: float = 10.0, dtype=None, device=None, requires_grad=False
) -> Tensor:
    """``steps`` values ``base ** t`` for t evenly spaced from ``start`` to ``end`` (as
    ``linspace`` spaces them: 0-d tensors accepted, truncated to integers for an integer
    ``dtype``)."""
    dtype = dtypes.or_default_float(dtype)
    exponents = evenly_spaced(start, end, steps, dtype, "logspace")
    return _finish((float(base) ** exponents).astype(dtype), requires_grad, device, "logspace")


def scalar_tensor(s, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding ``s`` (float32 unless ``dtype`` says otherwise)."""
    data = np.asarray(s, dtype=dtypes.or_default_float(dtype))
    return _finish(data, requires_grad, device, "scalar_tensor")


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad: bool = False) -> Tensor:
    """A tensor for ``obj``, sharing memory with a tensor or array unless ``copy=True``."""
    if copy:
        return tensor(obj, dtype=dtype, requires_grad=requires_grad)
    t = as_tensor(obj, dtype=dtype)
    if requires_grad:
        t.requires_grad_()
    return t


def range(start, end, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``start, start + step, ...`` up to and including ``end`` (deprecated in PyTorch,
    which warns: ``arange`` excludes the end). Float32 unless ``dtype`` says otherwise."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    count = int(np.floor((end - start) / step)) + 1
    data = (start + step * np.arange(count, dtype=np.float64)).astype(
        dtypes.or_default_float(dtype)
    )
    return _finish(data, requires_grad, device, "range")


def empty_strided(
    size, stride, *, dtype=None, device=None, requires_grad: bool = False, pin_memory=False
) -> Tensor:
    """An uninitialized (here: zero) tensor of ``size`` whose elements sit ``stride``
    elements apart in its memory."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {size} and {stride}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"empty_strided: strides must be non-negative, got {list(stride)}")
    dtype = dtypes.or_default_float(dtype)
    extent = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    buffer = np.zeros(extent, dtype)
    byte_strides = tuple(s * buffer.itemsize for s in stride)
    data = np.lib.stride_tricks.as_strided(buffer, size, byte_strides, writeable=True)
    return _finish(data, requires_grad, device, "empty_strided")


def empty_permuted(
    size, physical_layout, *, dtype=None, device=None, requires_grad=False, pin_memory=False
) -> Tensor:
    """An uninitialized (here: zero) tensor of ``size`` laid out in memory in the dim
    order ``physical_layout`` (outermost first): ``empty_permuted((2, 3, 4), (0, 2, 1))``
    is a ``(2, 4, 3)`` block seen as ``(2, 3, 4)``."""
    size, order = tuple(int(s) for s in size), tuple(int(d) for d in physical_layout)
    if sorted(order) != list(np.arange(len(size))):
        raise RuntimeError(
            f"Number of dimensions in size does not match the length of the physical_layout; "
            f"or physical_layout {list(order)} is not a permutation"
        )
    block = np.zeros(tuple(size[d] for d in order), dtypes.or_default_float(dtype))
    return _finish(block.transpose(np.argsort(order)), requires_grad, device, "empty_permuted")


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad=False) -> Tensor:
    """A 1-D tensor sharing memory with ``buffer`` (an object of the buffer protocol:
    ``bytearray``, ``array.array``, ``memoryview``...), read as ``dtype`` from byte
    ``offset``, ``count`` elements (all by default)."""
    dtype = dtypes.as_dtype(dtype)
    try:
        data = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset)
    except ValueError as e:
        raise ValueError(f"frombuffer: {e}") from None
    if not data.flags.writeable:
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors. This means you can write to the underlying (supposedly non-writable) "
            "buffer using the tensor.",
            UserWarning,
            stacklevel=2,
        )
    return _finish(data, requires_grad, None, "frombuffer")


class _TypedMeta(type):
    """Makes ``isinstance(t, mg.FloatTensor)`` ask the tensor's dtype."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype


def _typed(name: str, dtype: np.dtype):
    def __new__(cls, *args):
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            return tensor(args[0], dtype=dtype)  # FloatTensor(data)
        shape = tuple(int(a) for a in args)  # FloatTensor(2, 3)
        return Tensor._make(np.zeros(shape, dtype), False, None)

    doc = f"``torch.{name}``: a {dtype} tensor from data, or of a shape (zero-filled)."
    return _TypedMeta(name, (), {"__new__": __new__, "dtype": dtype, "__doc__": doc})


FloatTensor = _typed("FloatTensor", dtypes.float32)
DoubleTensor = _typed("DoubleTensor", dtypes.float64)
HalfTensor = _typed("HalfTensor", dtypes.float16)
LongTensor = _typed("LongTensor", dtypes.int64)
IntTensor = _typed("IntTensor", dtypes.int32)
ShortTensor = _typed("ShortTensor", dtypes.int16)
CharTensor = _typed("CharTensor", dtypes.int8)
ByteTensor = _typed("ByteTensor", dtypes.uint8)
BoolTensor = _typed("BoolTensor", dtypes.bool_)

METHODS: list = []
FUNCTIONS = [
    "logspace",
    "scalar_tensor",
    "asarray",
    "range",
    "empty_strided",
    "empty_permuted",
    "frombuffer",
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "LongTensor",
    "IntTensor",
    "ShortTensor",
    "CharTensor",
    "ByteTensor",
    "BoolTensor",
]

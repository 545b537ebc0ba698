"""More creation functions: ``logspace``, ``scalar_tensor``, ``asarray``, ``zeros``-style
helpers PyTorch also has, and PyTorch's legacy typed constructors.

``mg.FloatTensor(2, 3)`` is an uninitialized (here: zero) 2 x 3 float32 tensor and
``mg.FloatTensor([1, 2])`` a float32 copy of the data, as ``torch.FloatTensor``;
likewise ``DoubleTensor``, ``HalfTensor``, ``LongTensor``, ``IntTensor``,
``ShortTensor``, ``CharTensor``, ``ByteTensor`` and ``BoolTensor``.
``isinstance(t, mg.FloatTensor)`` is True for a float32 tensor, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.creation import _finish, _float_dtype, tensor
from minigrad.tensor import Tensor, as_tensor


def logspace(
    start, end, steps: int, base: float = 10.0, dtype=None, device=None, requires_grad=False
) -> Tensor:
    """``steps`` values ``base ** t`` for t evenly spaced from ``start`` to ``end``."""
    data = np.logspace(start, end, steps, base=base).astype(_float_dtype(dtype))
    return _finish(data, requires_grad, device, "logspace")


def scalar_tensor(s, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding ``s`` (float32 unless ``dtype`` says otherwise)."""
    data = np.asarray(s, dtype=_float_dtype(dtype))
    return _finish(data, requires_grad, device, "scalar_tensor")


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad: bool = False) -> Tensor:
    """A tensor for ``obj``, sharing memory with a tensor or array unless ``copy=True``."""
    if copy:
        return tensor(obj, dtype=dtype, requires_grad=requires_grad)
    t = as_tensor(obj, dtype=dtype)
    if requires_grad:
        t.requires_grad_()
    return t


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

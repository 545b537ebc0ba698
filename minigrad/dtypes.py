"""dtypes: minigrad uses NumPy's dtype objects directly.

``mg.float32`` *is* ``numpy.dtype('float32')``, so a NumPy dtype (or anything
``numpy.dtype`` accepts, such as ``"float64"`` or ``np.float32``) works wherever
minigrad asks for a dtype.
"""

from __future__ import annotations

import builtins

import numpy as np

uint8 = np.dtype(np.uint8)
uint16 = np.dtype(np.uint16)
uint32 = np.dtype(np.uint32)
uint64 = np.dtype(np.uint64)
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
bool_ = np.dtype(np.bool_)

half = float16
short = int16
float = float32
double = float64
long = int64

#: Python floats (and lists of them) become this dtype, as in PyTorch.
default_float = float32


class _NoStorageDtype:
    """A dtype name that PyTorch code mentions but NumPy cannot store: ``bfloat16``.

    NumPy has no bfloat16 type, and emulating one for every tensor (rounding float32 to 8
    mantissa bits after every operation) would be slow. So ``mg.bfloat16`` exists,
    compares, prints and can be passed to ``autocast`` (whose products compute in
    bfloat16 by rounding float32 values, see ``minigrad.amp``), but making a tensor of it
    raises a ``TypeError`` that says so.
    """

    is_floating_point = True

    def __init__(self, name: str, itemsize: int):
        self.name = name
        self.itemsize = itemsize

    def __repr__(self) -> str:
        return f"minigrad.{self.name}"

    def __reduce__(self):
        return self.name


bfloat16 = _NoStorageDtype("bfloat16", 2)


def as_dtype(dtype) -> np.dtype | None:
    """Normalize anything NumPy understands as a dtype; ``None`` stays ``None``."""
    if dtype is None:
        return None
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(dtype, _NoStorageDtype) or dtype == "bfloat16":
        raise TypeError(
            "dtype: bfloat16 has no NumPy type, so minigrad cannot store bfloat16 tensors; "
            "use float32 (or float16 for half precision). mg.bfloat16 is accepted only as "
            "a name (for example by mg.autocast, which rounds its products to bfloat16 "
            "values held in float32 tensors)"
        )
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype: expected a NumPy-compatible dtype, got {dtype!r}") from None


def or_default_float(dtype) -> np.dtype:
    """``dtype`` as a NumPy dtype, the default float dtype when it is ``None``: what a
    factory function (``mg.zeros``) or a layer (``nn.Linear``) makes with ``dtype=None``."""
    return as_dtype(dtype) or default_float


def is_floating(dtype: np.dtype) -> bool:
    """True for float16/32/64: the dtypes that can carry a gradient."""
    return dtype.kind == "f"


# ---------------------------------------------------------------------- type promotion
# PyTorch's rules, all here: what dtype an operation on tensors (and Python numbers)
# gives. ``functions/arithmetic.promote`` and ``tensor._with_scalar`` cast by them.

#: PyTorch's dtype categories: a higher category wins whatever the sizes.
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}


def result_type(a: np.dtype, a_ndim: int, b: np.dtype, b_ndim: int) -> np.dtype:
    """The dtype of a binary operation on tensors of dtypes ``a`` and ``b``.

    A higher category (bool < integer < float) wins whatever its size (int64 + float32
    -> float32, where NumPy would give float64; bool + int64 0-d tensor -> int64), and
    within a category a 0-dim tensor does not widen a dimensioned tensor
    (float32 tensor * float64 0-dim tensor -> float32).
    """
    if a == b:
        return a
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:
        return a if ca > cb else b
    if a_ndim == 0 and b_ndim > 0:
        return b
    if b_ndim == 0 and a_ndim > 0:
        return a
    return np.promote_types(a, b)


def common_dtype(dtypes) -> np.dtype:
    """The dtype PyTorch gives several dimensioned tensors combined (``cat``).

    A float beats an integer or bool whatever its size (int64 with float32 -> float32,
    where NumPy would give float64); within one kind, NumPy's promotion.
    """
    floats = [d for d in dtypes if d.kind == "f"]
    return np.result_type(*(floats or dtypes))


def scalar_result_type(dtype: np.dtype, scalar, true_divide: bool = False) -> np.dtype:
    """The dtype of ``tensor (op) Python number`` for a tensor of ``dtype``.

    The number never widens the tensor (float32 * 2.0 stays float32, as a Python float
    does in torch); an integer or bool tensor meeting a float, or divided, becomes the
    default float; a bool tensor meeting an int becomes int64.
    """
    kind = dtype.kind
    if kind in "iub" and (true_divide or isinstance(scalar, builtins.float)):
        return default_float
    if kind == "b" and not isinstance(scalar, builtins.bool):
        return int64
    return dtype


def wrapped_int(value: int, dtype: np.dtype) -> int:
    """A Python int as an integer tensor of ``dtype`` meets it in PyTorch: converted to
    the tensor's type, which wraps around (``uint8 + (-1)`` adds 255, ``int8 < 200``
    compares with -56), where NumPy refuses a number out of the dtype's range. A number
    beyond both int64 and uint64 is an ``OverflowError``, as in PyTorch."""
    info = np.iinfo(dtype)
    if info.min <= value <= info.max:
        return value
    if not -(2**63) <= value < 2**64:
        raise OverflowError(f"value cannot be converted to type {dtype} without overflow")
    size = 1 << (8 * dtype.itemsize)
    value %= size
    return value - size if value > info.max else value


def true_divide_type(dtype: np.dtype) -> np.dtype:
    """The dtype of ``a / b`` for tensors promoted to ``dtype``: integers divide to floats."""
    return dtype if dtype.kind == "f" else default_float

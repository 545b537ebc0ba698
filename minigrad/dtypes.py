"""dtypes: minigrad uses NumPy's dtype objects directly.

``mg.float32`` *is* ``numpy.dtype('float32')``, so a NumPy dtype (or anything
``numpy.dtype`` accepts, such as ``"float64"`` or ``np.float32``) works wherever
minigrad asks for a dtype.
"""

from __future__ import annotations

import numpy as np

uint8 = np.dtype(np.uint8)
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
float = float32  # noqa: A001  (torch.float is float32)
double = float64
long = int64

#: Python floats (and lists of them) become this dtype, as in PyTorch.
default_float = float32


class _NoStorageDtype:
    """A dtype name that PyTorch code mentions but NumPy cannot store: ``bfloat16``.

    NumPy has no bfloat16 type, and emulating one (rounding float32 to 8 mantissa bits
    after every operation) would be slow and would still not be PyTorch's bf16
    arithmetic. So ``mg.bfloat16`` exists, compares, prints and can be passed to
    ``autocast`` (which computes in float32 anyway, see ``minigrad.amp``), but making a
    tensor of it raises a ``TypeError`` that says so.
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
            "a name (for example by mg.amp.autocast, which computes in float32)"
        )
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype: expected a NumPy-compatible dtype, got {dtype!r}") from None


def is_floating(dtype: np.dtype) -> bool:
    """True for float16/32/64: the dtypes that can carry a gradient."""
    return dtype.kind == "f"

"""dtypes: minigrad uses NumPy's dtype objects directly.

``mg.float32`` *is* ``numpy.dtype('float32')``, so a NumPy dtype (or anything
``numpy.dtype`` accepts, such as ``"float64"`` or ``np.float32``) works wherever
minigrad asks for a dtype.
"""

from __future__ import annotations

import numpy as np

float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
bool_ = np.dtype(np.bool_)

half = float16
float = float32  # noqa: A001  (torch.float is float32)
double = float64
long = int64

#: Python floats (and lists of them) become this dtype, as in PyTorch.
default_float = float32


def as_dtype(dtype) -> np.dtype | None:
    """Normalize anything NumPy understands as a dtype; ``None`` stays ``None``."""
    if dtype is None:
        return None
    if isinstance(dtype, np.dtype):
        return dtype
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype: expected a NumPy-compatible dtype, got {dtype!r}") from None


def is_floating(dtype: np.dtype) -> bool:
    """True for float16/32/64: the dtypes that can carry a gradient."""
    return dtype.kind == "f"

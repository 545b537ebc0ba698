"""``torch.types``: the type aliases PyTorch's annotations use (``Number``, ``Device``,
``FileLike`` ...), for programs that import them in their own type hints."""

from __future__ import annotations

import os
from typing import IO

import numpy as np

from minigrad.tensor import Tensor

__all__ = [
    "Device",
    "FileLike",
    "FloatLikeType",
    "IntLikeType",
    "BoolLikeType",
    "Number",
    "Size",
    "Tensor",
]

Number = int | float | bool
Device = str | int | None  # minigrad's devices are named: "cpu"
FileLike = str | os.PathLike | IO[bytes]
IntLikeType = int | np.integer
FloatLikeType = float | np.floating
BoolLikeType = bool | np.bool_
Size = tuple  # torch.Size is a tuple subclass; minigrad's shapes are tuples
_TensorOrTensors = Tensor | tuple
_size = tuple
_dtype = np.dtype
_device = str

"""How minigrad writes values in messages: one helper, shared by every error and report."""

from __future__ import annotations


def shape_str(shape) -> str:
    """``(2, 3)`` -> ``"[2, 3]"``: a shape written as PyTorch writes it in messages."""
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


_TORCH_DTYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                      "uint8": "Byte", "bool": "Bool", "float16": "Half", "float32": "Float",
                      "float64": "Double"}  # fmt: skip


def torch_dtype_name(dtype) -> str:
    """``float32`` -> ``"Float"``: a dtype named as PyTorch names it in messages."""
    return _TORCH_DTYPE_NAMES.get(str(dtype), str(dtype))

"""How minigrad writes values in messages: one helper, shared by every error and report."""

from __future__ import annotations


def shape_str(shape) -> str:
    """``(2, 3)`` -> ``"[2, 3]"``: a shape written as PyTorch writes it in messages."""
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"

"""``skip_init``: build a module without spending time on its initialisation. minigrad
builds it normally (PyTorch leaves the values unspecified; these are the usual ones)."""

from __future__ import annotations

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)``; its values are meant to be overwritten."""
    kwargs.pop("device", None)
    return module_cls(*args, **kwargs)

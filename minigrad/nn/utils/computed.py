"""A module attribute computed from others each time it is read.

PyTorch's ``weight_norm`` and ``prune`` recompute ``module.weight`` in a forward
pre-hook; minigrad makes ``weight`` a property instead, on a subclass made for that
one module instance (other instances of the class are untouched). The value is the
same: a pure function of the module's parameters and buffers.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["remove_computed", "set_computed"]


def set_computed(module, name: str, compute: Callable) -> None:
    """Make ``module.<name>`` read as ``compute(module)``."""
    cls = type(module)
    if not cls.__dict__.get("_computed_attributes_class", False):
        cls = type(cls.__name__, (cls,), {"_computed_attributes_class": True})
        cls.__qualname__ = cls.__bases__[0].__qualname__
        cls.__module__ = cls.__bases__[0].__module__
        module.__class__ = cls
    setattr(cls, name, property(compute))


def remove_computed(module, name: str) -> None:
    """Undo ``set_computed`` for ``name`` (the module gets its own class back when
    nothing is computed any more)."""
    cls = type(module)
    delattr(cls, name)
    if not any(isinstance(v, property) for k, v in vars(cls).items() if k != "__dict__"):
        module.__class__ = cls.__bases__[0]

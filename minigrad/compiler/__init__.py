"""``mg.compiler``: the compiler questions eager code asks, answered for a library that
never compiles: ``is_compiling()``, ``is_dynamo_compiling()`` and ``is_exporting()`` are
False, ``disable`` / ``allow_in_graph`` / ``assume_constant_result`` leave the function as
it is, ``compile`` is ``mg.compile`` (which returns its argument), ``list_backends()`` is
empty and ``reset()`` has nothing to forget. The rest (caches, guards, stances) is
unsupported (``unsupported.json``).
"""

from __future__ import annotations

from minigrad.surface.compat import compile  # torch.compiler.compile
from minigrad.unsupported import module_getattr

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "compile",
    "disable",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "list_backends",
    "reset",
]


def is_compiling() -> bool:
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def disable(fn=None, recursive: bool = True, *, reason=None):
    """``@torch.compiler.disable`` (with or without arguments): the function itself."""
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """The compiler backends available: none."""
    return []


def reset() -> None:
    """Nothing to reset: nothing was compiled."""


__getattr__ = module_getattr(__name__)  # caches, guards, stances: unsupported.json

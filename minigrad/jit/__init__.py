"""``mg.jit``: the TorchScript questions and markers that eager code can answer.

minigrad runs eagerly and never scripts or traces, so ``is_scripting()`` and
``is_tracing()`` are False, ``annotate(type, value)`` is ``value``, and the markers
(``ignore``, ``unused``, ``export``, ``Final``) leave the code as it is: library code
written to be scriptable runs unchanged. ``script``, ``trace``, ``save``, ``load`` and
the ScriptModule classes are unsupported (``unsupported.json``: to script or export a
model, load minigrad's state_dict into the PyTorch model).
"""

from __future__ import annotations

from typing import Final

from minigrad.unsupported import module_getattr

__all__ = ["Final", "annotate", "export", "ignore", "is_scripting", "is_tracing", "unused"]


def is_scripting() -> bool:
    """False: minigrad code always runs in Python."""
    return False


def is_tracing() -> bool:
    """False: nothing is ever traced."""
    return False


def annotate(the_type, the_value):
    """``the_value``: the type is a hint for the TorchScript compiler only."""
    return the_value


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` or ``@torch.jit.ignore(drop=True)``: the function itself."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    """``@torch.jit.unused``: the function itself."""
    return fn


def export(fn):
    """``@torch.jit.export``: the method itself."""
    return fn


__getattr__ = module_getattr(__name__)  # script, trace, save ...: unsupported.json

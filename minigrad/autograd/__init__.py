"""Reverse-mode automatic differentiation: Function, the engine, grad modes.

The gradient checker lives in ``minigrad.gradcheck``, above this package; its public
names are also reachable from here, PyTorch's spelling
(``from minigrad.autograd import gradcheck``), loaded on first access.
"""

import importlib

from minigrad.autograd.api import (
    backward,
    grad,
    is_multithreading_enabled,
    set_multithreading_enabled,
)
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import (
    enable_grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from minigrad.autograd.recording import graph_recording

#: Names re-exported from minigrad.gradcheck on first access (not imported here: the
#: checker sits above autograd).
_GRADCHECK_NAMES = (
    "GradcheckError",
    "GradcheckResult",
    "GradcheckWarning",
    "GraphCheckResult",
    "gradcheck",
    "gradcheck_graph",
    "gradcheck_module",
    "gradgradcheck",
)


# ``torch.autograd.functional`` (jacobian, hessian, ...), ``Variable``, ``inference_mode``
# and anomaly mode are PyTorch's breadth, not the engine: they live in
# ``minigrad/surface/`` and are set on this package by ``minigrad/__init__.py``
# (``surface.attach``).


def __getattr__(name: str):
    if name in _GRADCHECK_NAMES:  # by its module name: minigrad.gradcheck is the function
        return getattr(importlib.import_module("minigrad.gradcheck"), name)
    from minigrad.unsupported import attribute

    return attribute("autograd", name)


__all__ = [
    "Function",
    "backward",
    "enable_grad",
    "grad",
    "graph_recording",
    "is_grad_enabled",
    "is_multithreading_enabled",
    "set_multithreading_enabled",
    "no_grad",
    "set_grad_enabled",
    *_GRADCHECK_NAMES,
]

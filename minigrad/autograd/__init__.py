"""Reverse-mode automatic differentiation: Function, the engine, grad modes.

The gradient checker lives in ``minigrad.gradcheck``, above this package; its public
names are also reachable from here, PyTorch's spelling
(``from minigrad.autograd import gradcheck``), loaded on first access.
"""

import importlib

from minigrad.autograd.api import backward, grad
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

#: Names re-exported from minigrad.gradcheck on first access (not imported here: the
#: checker sits above autograd).
_GRADCHECK_NAMES = (
    "GradcheckError",
    "GradcheckResult",
    "GradcheckWarning",
    "gradcheck",
    "gradcheck_module",
    "gradgradcheck",
)


def __getattr__(name: str):
    if name in _GRADCHECK_NAMES:
        # By its module name: the attribute minigrad.gradcheck is the function.
        return getattr(importlib.import_module("minigrad.gradcheck"), name)
    from minigrad.unsupported import error

    raise error("autograd", name)


__all__ = [
    "Function",
    "GradcheckError",
    "GradcheckResult",
    "GradcheckWarning",
    "gradcheck_module",
    "backward",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]

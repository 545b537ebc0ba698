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
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
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


#: Names loaded on first access: (module, attribute); these modules import minigrad.tensor,
#: which imports this package, so they cannot be imported here.
_LAZY = {
    "functional": ("minigrad.autograd.functional", None),
    "variable": ("minigrad.autograd.variable", None),
    "Variable": ("minigrad.autograd.variable", "Variable"),
    "inference_mode": ("minigrad.compat", "inference_mode"),
    "set_detect_anomaly": ("minigrad.autograd.anomaly_mode", "set_detect_anomaly"),
    "detect_anomaly": ("minigrad.autograd.anomaly_mode", "detect_anomaly"),
    # By its module name: the attribute minigrad.gradcheck is the function.
    **{name: ("minigrad.gradcheck", name) for name in _GRADCHECK_NAMES},
}


def __getattr__(name: str):
    if name in _LAZY:
        module, attribute = _LAZY[name]
        loaded = importlib.import_module(module)
        return loaded if attribute is None else getattr(loaded, attribute)
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

"""Reverse-mode automatic differentiation: Function, the engine, gradient checks."""

from minigrad.autograd.api import backward, grad
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minigrad.autograd.gradcheck import (
    GradcheckError,
    GradcheckResult,
    GradcheckWarning,
    gradcheck,
    gradcheck_module,
    gradgradcheck,
)

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

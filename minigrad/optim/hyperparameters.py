"""What the optimizers share about their hyperparameters: the check, with PyTorch's
messages, and the rule that an optimizer's ``defaults`` are its constructor's arguments."""

from __future__ import annotations

import numpy as np

from minigrad.optim.optimizer import IMPLEMENTATION_OPTIONS

__all__ = ["check_non_negative", "defaults_from"]

#: How PyTorch's messages name a hyperparameter ("Invalid learning rate: -1"); any
#: other is "<name> value" ("Invalid momentum value: -1").
_MESSAGE_NAMES = {"lr": "learning rate", "eps": "epsilon value"}


def check_non_negative(**hyperparameters: float) -> None:
    """Each value must be a real number (``TypeError``) and ``>= 0`` (``ValueError``);
    checked in the order given, with PyTorch's messages.

    Example::

        >>> check_non_negative(lr=0.1, momentum=-0.9)
        Traceback (most recent call last):
        ValueError: Invalid momentum value: -0.9
    """
    for name, value in hyperparameters.items():
        said = _MESSAGE_NAMES.get(name, f"{name} value")
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
            raise TypeError(f"{said} must be a number, got {value!r}")
        if not value >= 0.0:
            raise ValueError(f"Invalid {said}: {value}")


#: Constructor arguments that are not hyperparameters: the instance, the parameters,
#: the class cell a ``super()`` call adds to ``locals()``, and PyTorch's implementation
#: options (the base class checks those and records them itself, after the others).
_NOT_HYPERPARAMETERS = {"self", "params", "__class__", *IMPLEMENTATION_OPTIONS}


def defaults_from(arguments: dict) -> dict:
    """An optimizer's ``defaults`` from its constructor's arguments, given as
    ``locals()``: every hyperparameter is named once, in the signature, and the groups
    hold them in the signature's order. Call it before the constructor assigns any other
    local name (an argument it normalizes, ``etas = tuple(etas)``, is stored normalized).

    Example::

        def __init__(self, params, lr: float = 1e-3, momentum: float = 0.0) -> None:
            check_non_negative(lr=lr, momentum=momentum)
            super().__init__(params, defaults_from(locals()))
    """
    return {name: value for name, value in arguments.items() if name not in _NOT_HYPERPARAMETERS}

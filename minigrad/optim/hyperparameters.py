"""The check of hyperparameters that the optimizers share, with PyTorch's messages."""

from __future__ import annotations

from minigrad.optim.optimizer import _check_non_negative

__all__ = ["check_non_negative"]

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
        _check_non_negative(_MESSAGE_NAMES.get(name, f"{name} value"), value)

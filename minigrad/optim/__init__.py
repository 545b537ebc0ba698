"""Optimizers and learning-rate schedulers (``import minigrad.optim as optim``)."""

from minigrad.optim import lr_scheduler
from minigrad.optim.adam import Adam, AdamW
from minigrad.optim.optimizer import Optimizer
from minigrad.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]

"""Optimizers and learning-rate schedulers (``import minigrad.optim as optim``)."""

from minigrad.optim import lr_scheduler
from minigrad.optim.adam import Adam, AdamW
from minigrad.optim.optimizer import Optimizer
from minigrad.optim.sgd import SGD
from minigrad.unsupported import module_getattr

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)

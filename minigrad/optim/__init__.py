"""Optimizers and learning-rate schedulers (``import minigrad.optim as optim``)."""

from minigrad.optim import lr_scheduler, swa_utils
from minigrad.optim.adadelta import Adadelta
from minigrad.optim.adafactor import Adafactor
from minigrad.optim.adagrad import Adagrad
from minigrad.optim.adam import Adam, AdamW
from minigrad.optim.adamax import Adamax
from minigrad.optim.asgd import ASGD
from minigrad.optim.lbfgs import LBFGS
from minigrad.optim.muon import Muon
from minigrad.optim.nadam import NAdam
from minigrad.optim.optimizer import Optimizer
from minigrad.optim.radam import RAdam
from minigrad.optim.rmsprop import RMSprop
from minigrad.optim.rprop import Rprop
from minigrad.optim.sgd import SGD
from minigrad.unsupported import module_getattr

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "ASGD",
    "LBFGS",
    "Muon",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adamax",
    "NAdam",
    "RAdam",
    "RMSprop",
    "Rprop",
    "lr_scheduler",
    "swa_utils",
]

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)

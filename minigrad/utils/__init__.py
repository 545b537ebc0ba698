"""``mg.utils``: ``mg.utils.data`` (datasets and the DataLoader) and, imported on demand,
``mg.utils.tensorboard`` (``SummaryWriter``, through the ``tensorboard`` package)."""

from minigrad.unsupported import module_getattr
from minigrad.utils import data

__all__ = ["data"]

__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why

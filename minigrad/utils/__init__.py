"""``mg.utils``: ``mg.utils.data`` (datasets and the DataLoader) and, imported on demand,
``mg.utils.tensorboard`` (``SummaryWriter``, through the ``tensorboard`` package)."""

from minigrad.utils import data

__all__ = ["data"]

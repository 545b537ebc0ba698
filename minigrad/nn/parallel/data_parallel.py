"""``torch.nn.parallel.data_parallel``'s path: ``DataParallel`` for one process."""

from minigrad.nn.parallel import DataParallel

__all__ = ["DataParallel"]

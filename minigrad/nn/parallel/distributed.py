"""``torch.nn.parallel.distributed``'s path: ``DistributedDataParallel`` for one process."""

from minigrad.nn.parallel import DistributedDataParallel

__all__ = ["DistributedDataParallel"]

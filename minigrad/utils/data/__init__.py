"""``mg.utils.data``: datasets, samplers and the ``DataLoader``, as ``torch.utils.data``,
with PyTorch's module paths:

- ``mg.utils.data.dataset``: ``Dataset``, ``IterableDataset``, ``TensorDataset``,
  ``StackDataset``, ``ConcatDataset``, ``ChainDataset``, ``Subset``, ``random_split``;
- ``mg.utils.data.sampler``: ``Sampler``, ``SequentialSampler``, ``RandomSampler``,
  ``SubsetRandomSampler``, ``WeightedRandomSampler``, ``BatchSampler``;
- ``mg.utils.data.dataloader``: ``DataLoader``, ``default_collate``,
  ``default_convert``, ``get_worker_info``;
- ``mg.utils.data.distributed``: ``DistributedSampler``.

``default_collate`` (in ``collate.py``, with the batching and type-promotion rules) is
PyTorch's: ``[1, 2.5]`` batches to float32 ``[1.0, 2.5]``, ``[True, 2]`` to int64.
Loading happens in the calling process (``num_workers > 0`` loads there too, with a
warning). PyTorch's deprecated DataPipes (``IterDataPipe``, ``MapDataPipe``,
``functional_datapipe`` ...) are not provided.
"""

from minigrad.utils.data.collate import default_collate, default_convert
from minigrad.utils.data.dataloader import DataLoader, get_worker_info
from minigrad.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from minigrad.utils.data.distributed import DistributedSampler
from minigrad.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]

from minigrad.unsupported import module_getattr

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)

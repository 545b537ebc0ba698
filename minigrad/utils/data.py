"""``mg.utils.data``: datasets and the ``DataLoader``, as ``torch.utils.data``.

A ``Dataset`` is anything with ``__getitem__(i)`` and ``__len__()``; an
``IterableDataset`` is iterated instead. ``DataLoader(dataset, batch_size, shuffle)``
draws indices (in order, or shuffled by ``generator``), fetches the samples and joins
each batch with ``collate_fn`` (``default_collate`` unless given):

- tensors and NumPy arrays are stacked into one tensor (a new first dim);
- Python ints become an int64 tensor, floats a float64 tensor, bools a bool tensor
  (PyTorch's types);
- a dict gives a dict of collated fields; a tuple or a list a list of collated fields
  (a named tuple stays a named tuple); strings are left as they come.

Loading happens in the calling process. ``num_workers > 0`` is accepted with a warning
and loads in the calling process too: the batches are the same, only not prefetched.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from minigrad import random as _random
from minigrad.tensor import Tensor

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "TensorDataset",
    "default_collate",
    "random_split",
]


# ------------------------------------------------------------------------ datasets
class Dataset:
    """Base class of map-style datasets: subclasses define ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Base class of datasets that are iterated (``__iter__``) rather than indexed."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class TensorDataset(Dataset):
    """Samples ``(t[i] for t in tensors)``: tensors that share their first dim."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset: expected at least one tensor")
        n = tensors[0].shape[0] if tensors[0].ndim else None
        for i, t in enumerate(tensors):
            if not t.ndim or t.shape[0] != n:
                raise ValueError(
                    f"TensorDataset: size mismatch between tensors: tensor 0 has {n} rows, "
                    f"tensor {i} has shape {list(t.shape)}"
                )
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after the other."""

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        self.cumulative_sizes = np.cumsum([len(d) for d in self.datasets]).tolist()

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int):
        if idx < 0:
            if -idx > len(self):
                raise IndexError("ConcatDataset: index out of range")
            idx += len(self)
        which = int(np.searchsorted(self.cumulative_sizes, idx, side="right"))
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


def random_split(dataset, lengths: Sequence, generator=None) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random subsets of the given ``lengths``.

    ``lengths`` are counts that add up to ``len(dataset)``, or fractions that add up to
    1: each gets ``floor(fraction * n)`` samples and the remainder is handed out one by
    one from the first subset on, as in PyTorch.
    """
    n = len(dataset)
    lengths = list(lengths)
    if (
        math.isclose(sum(lengths), 1)
        and sum(lengths) <= 1
        and not all(isinstance(x, int) for x in lengths)
    ):
        for i, frac in enumerate(lengths):
            if not 0 <= frac <= 1:
                raise ValueError(f"random_split: fraction at index {i} is not in [0, 1]: {frac}")
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(
            f"random_split: sum of input lengths ({sum(lengths)}) does not equal the length of "
            f"the input dataset ({n})"
        )
    perm = _random.resolve(generator).permutation(n).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[start : start + length]))
        start += length
    return out


# ------------------------------------------------------------------------ samplers
class Sampler:
    """Base class: an iterable of dataset indices."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, drawn from ``generator`` (or minigrad's
    default generator) each time it is iterated; ``replacement=True`` draws with
    replacement instead."""

    def __init__(
        self, data_source, replacement: bool = False, num_samples=None, generator=None
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        # Drawn lazily, a chunk at a time: minGPT and makemore build "infinite" loaders
        # with RandomSampler(ds, replacement=True, num_samples=int(1e10)).
        n = len(self.data_source)
        gen = _random.resolve(self.generator)
        left = self.num_samples
        while left > 0 and n > 0:
            if self.replacement:
                chunk = gen.integers(0, n, size=min(left, 32768))
            else:
                chunk = gen.permutation(n)[:left]
            left -= len(chunk)
            yield from chunk.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


# ------------------------------------------------------------------------ collation
def default_collate(batch):
    """Join a list of samples into a batch (see the module docstring for the rules)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        _check_same_shape([b.shape for b in batch])
        from minigrad.ops import stack

        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind not in "biuf":
            raise TypeError(f"default_collate: cannot batch arrays of dtype {elem.dtype}")
        _check_same_shape([b.shape for b in batch])
        return Tensor._make(np.stack(batch), False, None)
    if isinstance(elem, np.generic):
        return Tensor._make(np.array(batch), False, None)
    if isinstance(elem, bool):
        return Tensor._make(np.array(batch, dtype=np.bool_), False, None)
    if isinstance(elem, int):
        return Tensor._make(np.array(batch, dtype=np.int64), False, None)
    if isinstance(elem, float):
        return Tensor._make(np.array(batch, dtype=np.float64), False, None)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        return {k: default_collate([b[k] for b in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a named tuple
        return type(elem)(*(default_collate(f) for f in zip(*batch)))
    if isinstance(elem, Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(f) for f in zip(*batch)]
    raise TypeError(
        "default_collate: batch must contain tensors, NumPy arrays, numbers, dicts or "
        f"lists; found {type(elem).__name__}"
    )


def _check_same_shape(shapes) -> None:
    for i, s in enumerate(shapes):
        if s != shapes[0]:
            raise RuntimeError(
                f"default_collate: stack expects each tensor to be equal size, but got "
                f"{list(shapes[0])} at entry 0 and {list(s)} at entry {i}"
            )


# ------------------------------------------------------------------------ the loader
class DataLoader:
    """Iterate over ``dataset`` in batches.

    Args:
        dataset: a ``Dataset`` (indexed) or ``IterableDataset`` (iterated).
        batch_size: samples per batch (``None`` yields single samples, uncollated).
        shuffle: draw a new random order every epoch (from ``generator``).
        sampler, batch_sampler: PyTorch's; exclusive with ``shuffle`` / ``batch_size``.
        num_workers: 0; more is accepted with a warning and loads in this process.
        collate_fn: joins a list of samples (``default_collate``).
        pin_memory, timeout, worker_init_fn, prefetch_factor, persistent_workers:
            accepted; they have no effect without worker processes or a GPU.
        drop_last: drop the last incomplete batch.
        generator: the ``mg.Generator`` that shuffles.

    Example::

        >>> ds = TensorDataset(mg.randn(10, 3), mg.arange(10))
        >>> for x, y in DataLoader(ds, batch_size=4, shuffle=True):
        ...     pass      # x (4, 3), y (4,); the last batch has 2
    """

    def __init__(
        self,
        dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler=None,
        batch_sampler=None,
        num_workers: int = 0,
        collate_fn=None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if num_workers > 0:
            warnings.warn(
                f"DataLoader: num_workers={num_workers} loads in the calling process "
                "(minigrad has no worker processes); the batches are the same",
                UserWarning,
                stacklevel=2,
            )
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable and (shuffle or sampler is not None or batch_sampler is not None):
            raise ValueError(
                "DataLoader with IterableDataset: expected unspecified shuffle, sampler and "
                "batch_sampler options"
            )
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive "
                "with drop_last"
            )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if not self._iterable and sampler is None:
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self._auto_collation = batch_sampler is not None or (
            self._iterable and batch_size is not None
        )
        self.collate_fn = collate_fn or (default_collate if self._auto_collation else _convert)

    def __iter__(self):
        if self._iterable:
            yield from self._iter_iterable()
            return
        if self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])

    def _iter_iterable(self):
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)  # raises TypeError for a dataset without __len__
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)


def _convert(sample):
    """Without batching: NumPy arrays become tensors, everything else is kept."""
    if isinstance(sample, np.ndarray) and sample.dtype.kind in "biuf":
        return Tensor._make(sample, False, None)
    if isinstance(sample, Mapping):
        return {k: _convert(v) for k, v in sample.items()}
    if isinstance(sample, tuple) and not hasattr(sample, "_fields"):
        return tuple(_convert(v) for v in sample)
    if isinstance(sample, list):
        return [_convert(v) for v in sample]
    return sample

"""``mg.utils.data.dataloader``: the ``DataLoader``, as ``torch.utils.data.dataloader``.

``DataLoader(dataset, batch_size, shuffle)`` draws indices (in order, or shuffled by
``generator``), fetches the samples and joins each batch with ``collate_fn``
(``default_collate`` unless given; ``default_convert`` without batching).

Loading happens in the calling process. ``num_workers > 0`` is accepted with a warning
and loads in the calling process too: the batches are the same, only not prefetched;
``worker_init_fn`` is not called (there is no worker) and ``get_worker_info()`` is
``None``, as in PyTorch's main process. The worker options are checked as PyTorch checks
them (``prefetch_factor``, ``persistent_workers`` and ``multiprocessing_context`` need
``num_workers > 0``).
"""

from __future__ import annotations

import warnings

from minigrad.utils.data.collate import default_collate, default_convert
from minigrad.utils.data.dataset import IterableDataset
from minigrad.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    SequentialSampler,
    check_bool,
    check_positive_int,
)

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

_START_METHODS = ("fork", "spawn", "forkserver")


def get_worker_info():
    """``None``: minigrad loads in the calling process, which is not a worker (PyTorch
    returns ``None`` in its main process too)."""
    return None


def _check_worker_options(
    num_workers, timeout, prefetch_factor, persistent_workers, multiprocessing_context
) -> None:
    if isinstance(num_workers, bool) or not isinstance(num_workers, int):
        raise TypeError(f"num_workers should be an int, but got num_workers={num_workers!r}")
    if num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to disable "
            "multiprocessing."
        )
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout should be a number of seconds, but got timeout={timeout!r}")
    if not timeout >= 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing. Let "
            "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if prefetch_factor is not None and not prefetch_factor >= 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if num_workers == 0 and persistent_workers:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None:
        if num_workers == 0:
            raise ValueError(
                "multiprocessing_context can only be used with multi-process loading "
                f"(num_workers > 0), but got num_workers={num_workers}"
            )
        if isinstance(multiprocessing_context, str) and (
            multiprocessing_context not in _START_METHODS
        ):
            raise ValueError(
                "multiprocessing_context option should specify a valid start method in "
                f"{list(_START_METHODS)}, but got "
                f"multiprocessing_context={multiprocessing_context!r}"
            )


class DataLoader:
    """Iterate over ``dataset`` in batches.

    Args:
        dataset: a ``Dataset`` (indexed) or ``IterableDataset`` (iterated).
        batch_size: samples per batch, a positive int (``None`` yields single samples,
            not collated but converted with ``default_convert``).
        shuffle: draw a new random order every epoch (from ``generator``).
        sampler, batch_sampler: PyTorch's; exclusive with ``shuffle`` / ``batch_size``.
        num_workers: 0; more is accepted with a warning and loads in this process.
        collate_fn: joins a list of samples (``default_collate``); must be callable.
        pin_memory, worker_init_fn, in_order, pin_memory_device: accepted; they have
            no effect without worker processes or a GPU.
        drop_last: drop the last incomplete batch (a bool).
        timeout: non-negative seconds (no effect without workers).
        prefetch_factor, persistent_workers, multiprocessing_context: need
            ``num_workers > 0``, as in PyTorch; then accepted without effect.
        generator: the ``mg.Generator`` that shuffles.

    Raises:
        ValueError: a ``batch_size`` that is not a positive int, a ``drop_last`` that is
            not a bool, a negative ``num_workers`` / ``timeout``, options that exclude
            each other, worker options without workers (PyTorch's messages).
        TypeError: ``num_workers`` or ``timeout`` that is not a number, a
            ``collate_fn`` that cannot be called.

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
        _check_worker_options(
            num_workers, timeout, prefetch_factor, persistent_workers, multiprocessing_context
        )
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"collate_fn should be callable, but got a {type(collate_fn).__name__}")
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
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler)):
                if value not in (None, False):
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {name} "
                        f"option, but got {name}={value!r}"
                    )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler!r}"
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
        if batch_size is not None:
            check_positive_int("batch_size", batch_size)
        check_bool("drop_last", drop_last)
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
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

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

"""``mg.utils.data.sampler``: the orders in which a ``DataLoader`` visits a dataset, as
``torch.utils.data.sampler``.

A sampler is an iterable of dataset indices (``BatchSampler``: of lists of indices).
Random samplers draw from ``generator`` (an ``mg.Generator``) or from minigrad's default
generator, afresh each time they are iterated. The arguments are checked as PyTorch
checks them, with its exception classes: a count must be a positive ``int``
(``ValueError``), a flag a ``bool`` (``replacement``: ``TypeError`` in
``RandomSampler`` and ``ValueError`` in ``WeightedRandomSampler``, as in PyTorch;
``drop_last``: ``ValueError``), so ``replacement="no"`` is refused, not read as true.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from minigrad import random as _random

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]


def _is_positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def check_positive_int(name: str, value) -> None:
    """``ValueError`` unless ``value`` is an ``int`` (not a ``bool``) above 0."""
    if not _is_positive_int(value):
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value!r}")


def check_bool(name: str, value, error: type[Exception] = ValueError) -> None:
    """``error`` unless ``value`` is ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise error(f"{name} should be a boolean value, but got {name}={value!r}")


class Sampler:
    """Base class: an iterable of dataset indices."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """The indices ``0, 1, ..., len(data_source) - 1`` in order."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices each time it is iterated; with
    ``replacement=True``, ``num_samples`` independent uniform draws instead.

    Args:
        data_source: the dataset (only its length is used).
        replacement: draw with replacement (a ``bool``).
        num_samples: how many indices to yield (a positive ``int``; default
            ``len(data_source)``). Without replacement, more than the dataset's length
            yields further permutations.
        generator: the ``mg.Generator`` to draw from.
    """

    def __init__(
        self, data_source, replacement: bool = False, num_samples=None, generator=None
    ) -> None:
        check_bool("replacement", replacement, TypeError)
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        check_positive_int("num_samples", self.num_samples)

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


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (a new one each time it is iterated)."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _random.resolve(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability ``weights[i] / sum(weights)``.

    Args:
        weights: one non-negative, finite weight per index (a 1-d sequence or tensor;
            they need not sum to 1).
        num_samples: how many indices to draw (a positive ``int``).
        replacement: draw with replacement (a ``bool``); without it, an index is drawn
            at most once, so ``num_samples`` may not exceed the weights that are not 0.
        generator: the ``mg.Generator`` to draw from.

    Raises:
        ValueError: for a count or flag of the wrong type or value, or weights that are
            not 1-d numbers. ``RuntimeError`` when iterated with weights that are
            negative, NaN or infinite, that sum to 0, or (without replacement) with fewer
            non-zero weights than ``num_samples``: PyTorch's multinomial errors.
    """

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None):
        check_positive_int("num_samples", num_samples)
        check_bool("replacement", replacement)
        data = weights.numpy() if hasattr(weights, "numpy") else weights
        try:
            weights = np.asarray(data, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"WeightedRandomSampler: weights should be a 1d sequence of numbers, got {data!r}"
            ) from None
        if weights.ndim != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {weights.shape}"
            )
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def _probabilities(self) -> np.ndarray:
        w = self.weights
        if np.isinf(w).any():
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry = infinity)"
            )
        if np.isnan(w).any() or (w < 0).any():
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry < 0 or NaN)"
            )
        total = w.sum()
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not self.replacement and np.count_nonzero(w) < self.num_samples:
            raise RuntimeError(
                f"WeightedRandomSampler: cannot draw {self.num_samples} samples without "
                f"replacement from {np.count_nonzero(w)} non-zero weights"
            )
        return w / total

    def __iter__(self):
        p = self._probabilities()
        gen = _random.resolve(self.generator)
        draws = gen.choice(len(p), size=self.num_samples, replace=self.replacement, p=p)
        yield from draws.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size`` (a positive ``int``);
    ``drop_last`` (a ``bool``) drops a last, shorter list."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        check_positive_int("batch_size", batch_size)
        check_bool("drop_last", drop_last)
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

"""``mg.utils.data.distributed``: ``DistributedSampler``, as
``torch.utils.data.distributed``.

minigrad trains in one process (``mg.distributed``), so the sampler is useful as
PyTorch code writes it: ``DistributedSampler(ds)`` after ``init_process_group`` (a group
of one: every index), or with an explicit ``num_replicas`` and ``rank`` to take one
replica's share of a dataset.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.utils.data.sampler import Sampler, check_bool

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Replica ``rank``'s share of the indices: every ``num_replicas``-th index of a
    (shuffled) order, padded by repeating its start so that every replica gets
    ``ceil(len(dataset) / num_replicas)`` indices, or cut so that each gets
    ``floor(...)`` with ``drop_last=True``.

    Args:
        dataset: the dataset (only its length is used).
        num_replicas: how many replicas share the dataset (default: the process
            group's world size, which needs ``mg.distributed.init_process_group``).
        rank: this replica's index in ``[0, num_replicas)`` (default: the group's rank).
        shuffle: a new order each epoch, from ``seed + epoch`` (call ``set_epoch``).
        seed: the shuffle's seed, the same in every replica.
        drop_last: cut the tail instead of padding.

    The shuffled order comes from NumPy's generator, so it is not PyTorch's order for
    the same seed; each replica still sees a disjoint share of one permutation.
    """

    def __init__(
        self,
        dataset,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        from minigrad import distributed

        if num_replicas is None:
            num_replicas = distributed.get_world_size()
        if rank is None:
            rank = distributed.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        check_bool("drop_last", drop_last)
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.shuffle = shuffle
        self.seed = seed
        self.drop_last = drop_last
        self.epoch = 0
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            indices = np.random.default_rng(self.seed + self.epoch).permutation(n).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:
            while len(indices) < self.total_size:  # pad with the order's start
                indices += indices[: self.total_size - len(indices)]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use ``epoch`` for the next shuffle (the same in every replica)."""
        self.epoch = epoch

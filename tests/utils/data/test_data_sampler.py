"""Samplers and the DataLoader's arguments (minigrad/utils/data/sampler.py,
dataloader.py, distributed.py): every constructor argument is checked as PyTorch checks
it (exception class and message), and the samplers draw what they promise."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.utils.data import (
    BatchSampler,
    DataLoader,
    DistributedSampler,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
)

DS = list(range(5))
NOT_POSITIVE_INTS = [-3, 0, 2.5, True, "3", None, float("nan"), [2]]
NOT_BOOLS = ["no", 1, 0, None, 1.0]


def _stream(lib):
    """A three-sample iterable dataset built on ``lib``'s IterableDataset."""

    class Stream(lib.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    return Stream()


def _case(code: str, build, error, match):
    return pytest.param(build, error, match, id=code)


# Each bad argument: the call, the exception class and the message's substance. The same
# calls run in torch 2.13 (test_bad_arguments_raise_as_in_torch re-runs them).
BAD = (
    [
        _case(
            f"RandomSampler(num_samples={v!r})",
            lambda lib, v=v: lib.RandomSampler(DS, num_samples=v),
            ValueError,
            "num_samples should be a positive integer value",
        )
        for v in NOT_POSITIVE_INTS
        if v is not True and v is not None  # torch: True is 1, None is len(DS)
    ]
    + [
        _case(
            f"RandomSampler(replacement={v!r})",
            lambda lib, v=v: lib.RandomSampler(DS, replacement=v),
            TypeError,
            "replacement should be a boolean value",
        )
        for v in NOT_BOOLS
    ]
    + [_case("RandomSampler([])", lambda lib: lib.RandomSampler([]), ValueError, "=0")]
    + [
        _case(
            f"WeightedRandomSampler(num_samples={v!r})",
            lambda lib, v=v: lib.WeightedRandomSampler([1.0, 2.0], v),
            ValueError,
            "num_samples should be a positive integer value",
        )
        for v in NOT_POSITIVE_INTS
    ]
    + [
        _case(
            f"WeightedRandomSampler(replacement={v!r})",
            lambda lib, v=v: lib.WeightedRandomSampler([1.0, 2.0], 2, replacement=v),
            ValueError,
            "replacement should be a boolean value",
        )
        for v in NOT_BOOLS
    ]
    + [
        _case(
            f"WeightedRandomSampler({w!r})",
            lambda lib, w=w: lib.WeightedRandomSampler(w, 2),
            ValueError,
            match,
        )
        for w, match in [
            ([[1.0, 2.0]], r"shape \(1, 2\)"),
            (1.0, r"shape \(\)"),
            (["a"], "1d sequence"),
        ]
    ]
    + [
        _case(
            f"list(WeightedRandomSampler({w!r}, {n}, replacement={r}))",
            lambda lib, w=w, n=n, r=r: list(lib.WeightedRandomSampler(w, n, replacement=r)),
            RuntimeError,
            match,
        )
        for w, n, r, match in [
            ([1.0, -2.0], 2, True, "entry < 0"),
            ([float("nan"), 1.0], 2, True, "NaN"),
            ([float("inf"), 1.0], 2, True, "infinity"),
            ([0.0, 0.0], 2, True, "sum of probabilities <= 0"),
            ([], 2, True, "sum of probabilities <= 0"),
            ([1.0, 1.0], 3, False, "3"),
        ]
    ]
    + [
        _case(
            f"BatchSampler(batch_size={v!r})",
            lambda lib, v=v: lib.BatchSampler(DS, v, False),
            ValueError,
            "batch_size should be a positive integer value",
        )
        for v in NOT_POSITIVE_INTS
    ]
    + [
        _case(
            f"BatchSampler(drop_last={v!r})",
            lambda lib, v=v: lib.BatchSampler(DS, 2, v),
            ValueError,
            "drop_last should be a boolean value",
        )
        for v in NOT_BOOLS
    ]
    + [
        _case(
            f"DataLoader(batch_size={v!r})",
            lambda lib, v=v: lib.DataLoader(DS, batch_size=v),
            ValueError,
            "batch_size should be a positive integer value",
        )
        for v in NOT_POSITIVE_INTS
        if v is not None  # batch_size=None: no batching
    ]
    + [
        _case(
            f"DataLoader(drop_last={v!r})",
            lambda lib, v=v: lib.DataLoader(DS, batch_size=2, drop_last=v),
            ValueError,
            "drop_last should be a boolean value",
        )
        for v in ["no", 1, 0, None]
    ]
    + [
        _case(f"DataLoader({kw})", lambda lib, kw=kw: lib.DataLoader(DS, **kw), error, match)
        for kw, error, match in [
            ({"num_workers": -1}, ValueError, "num_workers option should be non-negative"),
            ({"num_workers": "2"}, TypeError, "num_workers"),
            ({"num_workers": None}, TypeError, "num_workers"),
            ({"timeout": -1}, ValueError, "timeout option should be non-negative"),
            ({"timeout": "1"}, TypeError, "timeout"),
            ({"timeout": None}, TypeError, "timeout"),
            ({"prefetch_factor": 2}, ValueError, "prefetch_factor option could only"),
            ({"persistent_workers": True}, ValueError, "persistent_workers option needs"),
            ({"multiprocessing_context": "fork"}, ValueError, "multi-process loading"),
            ({"sampler": range(5), "shuffle": True}, ValueError, "mutually exclusive"),
            ({"batch_sampler": [[0]], "batch_size": 2}, ValueError, "mutually exclusive"),
            ({"batch_sampler": [[0]], "drop_last": True}, ValueError, "mutually exclusive"),
            ({"batch_size": None, "drop_last": True}, ValueError, "mutually exclusive"),
            ({"collate_fn": 3}, TypeError, "callable"),
        ]
    ]
    + [
        _case(
            "DataLoader(iterable, shuffle=True)",
            lambda lib: lib.DataLoader(_stream(lib), shuffle=True),
            ValueError,
            "expected unspecified shuffle option",
        ),
        _case(
            "DataLoader(iterable, sampler=[0])",
            lambda lib: lib.DataLoader(_stream(lib), sampler=[0]),
            ValueError,
            "expected unspecified sampler option",
        ),
    ]
    + [
        _case(
            f"DistributedSampler({kw})",
            lambda lib, kw=kw: lib.DistributedSampler(DS, **kw),
            ValueError,
            match,
        )
        for kw, match in [
            ({"num_replicas": 2, "rank": 2}, "Invalid rank 2"),
            ({"num_replicas": 2, "rank": -1}, "Invalid rank -1"),
            ({}, "process group has not been initialized"),
        ]
    ]
)


@pytest.mark.parametrize("build, error, match", BAD)
def test_bad_arguments_raise_pytorchs_class(build, error, match):
    with pytest.raises(error, match=match):
        list(build(mg.utils.data))  # list(): DataLoader's collate_fn runs when iterated


@pytest.mark.parametrize("build, error, match", BAD)
def test_bad_arguments_raise_as_in_torch(torch, build, error, match):
    """The table re-run in PyTorch: the same exception class."""
    import torch.utils.data as tud

    with pytest.raises(error):
        list(build(tud))


def test_good_arguments_build_what_they_say():
    assert len(RandomSampler(DS, num_samples=7)) == 7 and len(list(RandomSampler(DS, True, 7))) == 7
    assert sorted(RandomSampler(DS)) == DS
    assert sorted(list(RandomSampler(DS, num_samples=10))) == sorted(DS * 2)
    assert list(SequentialSampler(DS)) == DS
    assert sorted(SubsetRandomSampler([5, 7, 9])) == [5, 7, 9]
    assert list(BatchSampler(DS, 2, True)) == [[0, 1], [2, 3]]
    assert list(BatchSampler(DS, 2, False)) == [[0, 1], [2, 3], [4]]
    loader = DataLoader(DS, batch_size=2, drop_last=True, timeout=1.5)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3]]
    with pytest.warns(UserWarning, match="calling process"):
        loader = DataLoader(
            DS,
            batch_size=2,
            num_workers=2,
            prefetch_factor=2,
            persistent_workers=True,
            multiprocessing_context="spawn",
        )
    assert len(list(loader)) == 3


def test_weighted_sampler_follows_the_weights():
    gen = mg.Generator().manual_seed(0)
    draws = list(WeightedRandomSampler(mg.tensor([0.0, 1.0, 3.0]), 4000, generator=gen))
    counts = np.bincount(draws, minlength=3)
    assert counts[0] == 0 and 0.70 < counts[2] / 4000 < 0.80
    once = list(WeightedRandomSampler([1.0, 0.0, 2.0], 2, replacement=False, generator=gen))
    assert sorted(once) == [0, 2]


def test_distributed_sampler_shares_the_indices():
    shares = [list(DistributedSampler(DS, 2, r, shuffle=False)) for r in range(2)]
    assert shares == [[0, 2, 4], [1, 3, 0]]  # padded by repeating the start, as torch
    cut = [list(DistributedSampler(DS, 2, r, shuffle=False, drop_last=True)) for r in range(2)]
    assert cut == [[0, 2], [1, 3]]
    s0, s1 = (DistributedSampler(list(range(10)), 2, r, seed=3) for r in range(2))
    assert sorted(list(s0) + list(s1)) == list(range(10))
    first = list(s0)
    s0.set_epoch(1)
    assert sorted(list(s0)) != first or list(s0) != first
    mg.distributed.init_process_group()
    try:
        assert sorted(DistributedSampler(DS)) == DS
    finally:
        mg.distributed.destroy_process_group()


def test_distributed_sampler_matches_torch_without_shuffle(torch):
    import torch.utils.data as tud

    for n, k, drop in [(5, 2, False), (5, 2, True), (7, 3, False), (2, 4, False)]:
        for r in range(k):
            mine = list(DistributedSampler(range(n), k, r, shuffle=False, drop_last=drop))
            theirs = list(tud.DistributedSampler(range(n), k, r, shuffle=False, drop_last=drop))
            assert mine == theirs, (n, k, r, drop)


def test_tensor_dataset_loader_without_batching_converts_as_torch():
    ds = TensorDataset(mg.arange(3), mg.arange(3) * 2)
    first = next(iter(DataLoader(ds, batch_size=None)))
    assert type(first) is list and [t.item() for t in first] == [0, 0]

"""mg.utils.data against torch.utils.data: datasets, the DataLoader's batching, default
collation, shuffling from a generator, random_split; and the TensorBoard writer."""

import collections
import importlib
import sys

import numpy as np
import pytest

import minigrad as mg
from minigrad.utils.data import (
    DataLoader,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)


def _plain(x):
    """A batch as nested Python values with dtypes, to compare the two libraries."""
    if hasattr(x, "numpy"):
        a = x.numpy()
        return ("tensor", str(a.dtype), a.tolist())
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_plain(v) for v in x])
    return x


SAMPLES = [
    [(1, 2.0), (3, 4.0)],
    [
        {"a": 1, "b": np.array([1.0, 2.0], np.float32)},
        {"a": 2, "b": np.array([3.0, 4.0], np.float32)},
    ],
    [np.array([1, 2]), np.array([3, 4])],
    [True, False],
    [["x", 1], ["y", 2]],
    [np.float32(1.5), np.float32(2.5)],
]


@pytest.mark.parametrize("batch", SAMPLES, ids=range(len(SAMPLES)))
def test_default_collate_matches_torch(torch, batch):
    from torch.utils.data import default_collate as torch_collate

    assert _plain(default_collate(batch)) == _plain(torch_collate(batch))


def test_default_collate_tensors_and_named_tuples(torch):
    from torch.utils.data import default_collate as torch_collate

    batch = [mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0])]
    tbatch = [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])]
    assert _plain(default_collate(batch)) == _plain(torch_collate(tbatch))
    Point = collections.namedtuple("Point", "x y")
    out = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(out) is Point and out.x.tolist() == [1, 3] and out.y.dtype == mg.float64
    with pytest.raises(RuntimeError, match=r"equal size, but got \[2\] at entry 0 and \[3\]"):
        default_collate([mg.zeros(2), mg.zeros(3)])


class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {"x": np.array([i, i * i], np.float32), "i": i}


class TorchSquares:
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {"x": np.array([i, i * i], np.float32), "i": i}


@pytest.mark.parametrize("batch_size,drop_last", [(3, False), (3, True), (5, False), (1, False)])
def test_loader_batches_match_torch(torch, batch_size, drop_last):
    from torch.utils.data import DataLoader as TorchLoader

    ours = DataLoader(Squares(), batch_size=batch_size, drop_last=drop_last)
    theirs = TorchLoader(TorchSquares(), batch_size=batch_size, drop_last=drop_last)
    assert len(ours) == len(theirs)
    assert [_plain(b) for b in ours] == [_plain(b) for b in theirs]


def test_loader_without_batching_matches_torch(torch):
    from torch.utils.data import DataLoader as TorchLoader

    ours = list(DataLoader(Squares(), batch_size=None))
    theirs = list(TorchLoader(TorchSquares(), batch_size=None))
    assert [_plain(b) for b in ours] == [_plain(b) for b in theirs]


def test_shuffle_is_a_permutation_reproducible_by_generator():
    ds = TensorDataset(mg.arange(20), mg.arange(20) * 10)

    def epoch(gen):
        return np.concatenate(
            [x.numpy() for x, _ in DataLoader(ds, 6, shuffle=True, generator=gen)]
        )

    g = mg.Generator().manual_seed(0)
    a, b = epoch(g), epoch(g)
    assert sorted(a.tolist()) == list(range(20)) and a.tolist() != b.tolist()  # new order per epoch
    assert epoch(mg.Generator().manual_seed(0)).tolist() == a.tolist()
    for x, y in DataLoader(ds, 6, shuffle=True):
        np.testing.assert_array_equal(y.numpy(), x.numpy() * 10)  # pairs stay together


def test_tensor_dataset_and_subset():
    x, y = mg.randn(5, 2), mg.arange(5)
    ds = TensorDataset(x, y)
    assert len(ds) == 5 and ds[2][1].item() == 2
    sub = Subset(ds, [4, 0])
    assert len(sub) == 2 and sub[0][1].item() == 4
    with pytest.raises(ValueError, match="TensorDataset: size mismatch"):
        TensorDataset(mg.zeros(3), mg.zeros(4))


def test_random_split_counts_like_torch(torch):
    from torch.utils.data import random_split as torch_split

    for lengths in ([0.33, 0.33, 0.34], [0.5, 0.5], [3, 7], [0.7, 0.2, 0.1]):
        ours = random_split(range(10), lengths, generator=mg.Generator().manual_seed(1))
        theirs = torch_split(range(10), lengths, generator=torch.Generator().manual_seed(1))
        assert [len(s) for s in ours] == [len(s) for s in theirs]
        together = sorted(i for s in ours for i in s)
        assert together == list(range(10))
    with pytest.raises(ValueError, match=r"sum of input lengths \(9\) does not equal"):
        random_split(range(10), [4, 5])


def test_iterable_dataset_and_workers():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(7))

    batches = [b.tolist() for b in DataLoader(Stream(), batch_size=3)]
    assert batches == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.warns(UserWarning, match="num_workers=2 loads in the calling process"):
        loader = DataLoader(Squares(), batch_size=4, num_workers=2, pin_memory=True)
    assert len(list(loader)) == 3
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(Squares(), sampler=[0, 1], shuffle=True)
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        DataLoader(Squares(), batch_size=0)


def test_reachable_as_torch_utils_data():
    assert mg.utils.data.DataLoader is DataLoader


def test_tensorboard_writes_event_files(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from minigrad.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(tmp_path)) as w:
        for step in range(3):
            w.add_scalar("loss/train", mg.tensor(1.0 / (step + 1)), step)
        w.add_text("note", "hello", 0)
        w.add_histogram("weights", mg.randn(100), 0)
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    events = acc.Scalars("loss/train")
    assert [e.step for e in events] == [0, 1, 2]
    np.testing.assert_allclose([e.value for e in events], [1.0, 0.5, 1 / 3], rtol=1e-6)
    assert "weights" in acc.Tags()["histograms"]


def test_tensorboard_import_error_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard", None)  # as if it were not installed
    for name in [m for m in sys.modules if m.startswith("tensorboard.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "minigrad.utils.tensorboard", raising=False)
    with pytest.raises(
        ImportError, match="needs the `tensorboard` package.*pip install tensorboard"
    ):
        importlib.import_module("minigrad.utils.tensorboard")
    monkeypatch.delitem(sys.modules, "minigrad.utils.tensorboard", raising=False)


def test_infinite_random_sampler_is_lazy():
    # minGPT's and makemore's "infinite" loaders
    from minigrad.utils.data import RandomSampler

    ds = TensorDataset(mg.arange(10))
    sampler = RandomSampler(ds, replacement=True, num_samples=int(1e10))
    loader = DataLoader(ds, sampler=sampler, batch_size=4, pin_memory=True)
    it = iter(loader)
    batches = [next(it)[0] for _ in range(3)]
    assert all(b.shape == (4,) and 0 <= b.numpy().min() and b.numpy().max() < 10 for b in batches)
    assert len(sampler) == int(1e10)
    once = RandomSampler(ds, num_samples=25, generator=mg.Generator().manual_seed(0))
    drawn = list(once)
    assert len(drawn) == 25 and sorted(drawn[:10]) == list(range(10))

"""Creation functions of minigrad/legacy.py, against PyTorch when it is installed."""

import numpy as np
import pytest

import minigrad as mg

CASES = [
    "lib.logspace(0, 2, 3)",
    "lib.logspace(-1, 1, 5, base=2.0)",
    "lib.scalar_tensor(3)",
    "lib.asarray([1, 2, 3])",
    "lib.asarray([1.5, 2.0])",
    "lib.FloatTensor([1, 2])",
    "lib.DoubleTensor([[1, 2]])",
    "lib.LongTensor([1.0, 2.0])",
    "lib.IntTensor([3])",
    "lib.BoolTensor([1, 0])",
    "lib.ByteTensor([7])",
    "lib.HalfTensor([0.5])",
    "lib.LongTensor(2, 3) * 0",
    "lib.FloatTensor(4) * 0",
]


@pytest.mark.parametrize("expr", CASES)
def test_matches_torch(expr, torch):
    y, yt = eval(expr, {"lib": mg}), eval(expr, {"lib": torch})
    assert y.shape == tuple(yt.shape)
    assert str(y.dtype) == str(yt.dtype).replace("torch.", "")
    np.testing.assert_allclose(y.numpy().astype(float), yt.numpy().astype(float), rtol=1e-6)


def test_typed_constructors_make_the_dtype_they_name():
    assert mg.FloatTensor([1, 2]).dtype == mg.float32
    assert mg.LongTensor(2, 3).shape == (2, 3) and mg.LongTensor(2, 3).dtype == mg.int64
    assert not mg.LongTensor(2).numpy().any()


def test_isinstance_asks_the_dtype():
    assert isinstance(mg.ones(2), mg.FloatTensor)
    assert not isinstance(mg.ones(2), mg.LongTensor)
    assert isinstance(mg.tensor([1]), mg.LongTensor)


def test_logspace_and_scalar_tensor_values():
    np.testing.assert_allclose(mg.logspace(0, 2, 3).numpy(), [1.0, 10.0, 100.0])
    assert mg.scalar_tensor(3).shape == () and mg.scalar_tensor(3).item() == 3.0


def test_asarray_shares_memory_unless_copy():
    a = np.arange(3.0)
    assert np.shares_memory(mg.asarray(a).numpy(), a)
    assert not np.shares_memory(mg.asarray(a, copy=True).numpy(), a)

"""Creation functions of minigrad/surface/legacy.py, against PyTorch when it is installed."""

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


RANGE_CASES = [
    "lib.range(0, 1, 0.3)",
    "lib.range(1, 4)",
    "lib.range(3, 1, -0.5)",
    "lib.range(1, 3, dtype=lib.int64)",
    "lib.range(0.0, 1.0, 0.1, dtype=lib.float64)",
]


@pytest.mark.filterwarnings("ignore:torch.range is deprecated")
@pytest.mark.parametrize("expr", RANGE_CASES)
def test_range_includes_the_end_as_torch(expr, torch):
    y, yt = eval(expr, {"lib": mg}), eval(expr, {"lib": torch})
    assert str(y.dtype) == str(yt.dtype).replace("torch.", "")
    np.testing.assert_allclose(y.numpy(), yt.numpy(), rtol=1e-6)


def test_range_warns_and_checks():
    with pytest.warns(UserWarning, match="deprecated"):
        assert mg.range(1, 3).tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError), pytest.warns(UserWarning):
        mg.range(3, 1)
    with pytest.raises(TypeError):
        mg.range(5)  # end is required


def test_empty_strided_and_empty_permuted_layouts():
    x = mg.empty_strided((2, 3), (1, 2), dtype=mg.float64)
    assert x.shape == (2, 3) and x.dtype == mg.float64
    assert tuple(s // 8 for s in x.numpy().strides) == (1, 2)
    x[0, 1] = 5.0  # writable, and each element in its own place
    assert x.numpy().sum() == 5.0
    y = mg.empty_permuted((2, 3, 4), (0, 2, 1))
    assert y.shape == (2, 3, 4)
    assert tuple(s // 4 for s in y.numpy().strides) == (12, 1, 3)  # PyTorch's strides
    with pytest.raises(RuntimeError):
        mg.empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError):
        mg.empty_permuted((2, 3), (0, 0))


def test_frombuffer_shares_memory():
    buf = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00")
    t = mg.frombuffer(buf, dtype=mg.int32, count=2, offset=4)
    assert t.tolist() == [2, 3] and t.dtype == mg.int32
    t[0] = 7
    assert buf[4] == 7
    with pytest.warns(UserWarning, match="not writable"):
        mg.frombuffer(b"\x00\x01", dtype=mg.uint8)
    with pytest.raises(ValueError):
        mg.frombuffer(bytearray(3), dtype=mg.int32)

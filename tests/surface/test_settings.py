"""PyTorch's process-wide settings and dtype facts (minigrad/surface/settings.py)."""

import numpy as np
import pytest

import minigrad as mg


@pytest.fixture
def restore():
    """Put every setting back after the test (they are process-wide)."""
    yield
    mg.set_default_dtype(mg.float32)
    mg.set_printoptions(profile="default")
    mg.use_deterministic_algorithms(False)
    mg.set_warn_always(False)


def test_default_dtype_drives_creation_and_promotion(restore):
    assert mg.get_default_dtype() == mg.float32
    mg.set_default_dtype(mg.float64)
    assert mg.get_default_dtype() == mg.float64
    assert mg.tensor([1.5, 2.0]).dtype == mg.float64
    assert mg.zeros(2).dtype == mg.float64 and mg.randn(2).dtype == mg.float64
    assert (mg.tensor([1, 2]) * 2.5).dtype == mg.float64
    assert (mg.tensor([1, 2]) / 2).dtype == mg.float64
    assert (mg.zeros(2, dtype=mg.float32) * 2.5).dtype == mg.float32  # a float never widens
    assert mg.nn.Linear(2, 2).weight.dtype == mg.float64
    with pytest.raises(TypeError):
        mg.set_default_dtype(mg.int64)
    mg.set_default_tensor_type("torch.FloatTensor")
    assert mg.get_default_dtype() == mg.float32


def test_default_dtype_as_pytorch(torch, restore):
    for dtype in ("float64", "float32"):
        mg.set_default_dtype(getattr(mg, dtype))
        torch.set_default_dtype(getattr(torch, dtype))
        try:
            for make in (lambda lib: lib.tensor([1.5]), lambda lib: lib.tensor([1]) * 0.5,
                         lambda lib: lib.arange(3) / 2, lambda lib: lib.ones(2)):  # fmt: skip
                assert str(make(mg).dtype) == str(make(torch).dtype).replace("torch.", "")
        finally:
            torch.set_default_dtype(torch.float32)


def test_printoptions_change_repr(restore):
    x = mg.tensor([1.123456, 2.0])
    assert "1.1235" in repr(x)
    mg.set_printoptions(precision=2)
    assert "1.12," in repr(x)
    mg.set_printoptions(threshold=5, edgeitems=2)
    assert "..." in repr(mg.arange(10))
    mg.set_printoptions(profile="full")
    assert "..." not in repr(mg.arange(2000))
    mg.set_printoptions(sci_mode=True)
    assert "e+00" in repr(x)
    with pytest.raises(ValueError):
        mg.set_printoptions(profile="tiny")


def test_determinism_flags(restore):
    assert not mg.are_deterministic_algorithms_enabled()
    mg.use_deterministic_algorithms(True, warn_only=True)
    assert mg.are_deterministic_algorithms_enabled()
    assert mg.is_deterministic_algorithms_warn_only_enabled()
    assert mg.get_deterministic_debug_mode() == 1
    mg.set_deterministic_debug_mode("error")
    assert (
        mg.get_deterministic_debug_mode() == 2
        and not mg.is_deterministic_algorithms_warn_only_enabled()
    )
    mg.set_deterministic_debug_mode(0)
    assert not mg.are_deterministic_algorithms_enabled()
    with pytest.raises(RuntimeError):
        mg.set_deterministic_debug_mode("loud")


def test_other_switches(restore):
    mg.set_warn_always(True)
    assert mg.is_warn_always_enabled()
    assert not mg.is_anomaly_enabled() and not mg.is_anomaly_check_nan_enabled()
    mg.set_anomaly_enabled(False)
    with pytest.raises(mg.UnsupportedError):
        mg.set_anomaly_enabled(True)
    previous = mg.get_num_interop_threads()
    mg.set_num_interop_threads(3)
    assert mg.get_num_interop_threads() == 3
    mg.set_num_interop_threads(previous)
    with pytest.raises(RuntimeError):
        mg.set_num_interop_threads(0)
    mg.init_num_threads()
    assert mg.set_flush_denormal(True) is False
    assert issubclass(mg.FatalError, Exception)


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "bfloat16"])
def test_finfo_as_pytorch(torch, name):
    ours, theirs = mg.finfo(getattr(mg, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.dtype == theirs.dtype
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_as_pytorch(torch, name):
    ours, theirs = mg.iinfo(getattr(mg, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (
        theirs.bits,
        theirs.min,
        theirs.max,
        theirs.dtype,
    )
    assert repr(ours) == repr(theirs)


def test_finfo_iinfo_without_torch():
    f = mg.finfo()
    assert f.dtype == "float32" and f.eps == float(np.finfo(np.float32).eps) and f.bits == 32
    assert mg.iinfo(mg.int16).max == 32767 and mg.iinfo(mg.uint64).bits == 64
    with pytest.raises(TypeError):
        mg.finfo(mg.int32)
    with pytest.raises(TypeError):
        mg.iinfo(mg.float32)


def test_unsigned_dtypes_and_small_facts():
    x = mg.tensor([1, 2], dtype=mg.uint16)
    assert x.dtype == mg.uint16 and mg.uint32.itemsize == 4 and mg.uint64.itemsize == 8
    assert not mg.is_signed(x) and mg.is_signed(mg.zeros(1))
    assert mg.typename(mg.zeros(1)) == "torch.FloatTensor"
    assert mg.typename(mg.zeros(1, dtype=mg.float64)) == "torch.DoubleTensor"
    assert mg.typename(3) == "int"
    assert mg.typename(mg.nn.Linear(1, 1)).endswith(".Linear")


def test_typename_as_pytorch(torch):
    for value in (3, "a", [1]):
        assert mg.typename(value) == torch.typename(value)
    for dtype in ("float32", "float64", "int64", "bool", "uint8"):
        assert mg.typename(mg.zeros(1, dtype=getattr(mg, dtype))) == torch.typename(
            torch.zeros(1, dtype=getattr(torch, dtype))
        )

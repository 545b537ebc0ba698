"""Checkpoints keep shapes, dtypes and values exactly (minigrad/serialization/): 0-d,
empty and non-contiguous tensors of every dtype minigrad stores, plain Python values,
nested containers, optimizer and BatchNorm state_dicts; plus a property-based round trip
over random trees of tensors and plain values."""

from __future__ import annotations

import io
import math
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim
from tests.serialization_checks import assert_same

#: Every dtype a minigrad tensor can hold (mg.bfloat16 has no storage).
DTYPES = [
    np.bool_,
    np.uint8,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.float16,
    np.float32,
    np.float64,
]


def _roundtrip(obj):
    buf = io.BytesIO()
    mg.save(obj, buf)
    buf.seek(0)
    return mg.load(buf)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (1,), (2, 3)], ids=str)
def test_tensor_shape_dtype_and_values_survive(dtype, shape):
    data = (np.arange(int(np.prod(shape))) % 3).astype(dtype).reshape(shape)
    t = mg.tensor(data)
    back = _roundtrip({"t": t})["t"]
    assert back.shape == t.shape and back.dtype == t.dtype
    np.testing.assert_array_equal(back.numpy(), data)


def test_zero_dim_values_keep_their_shape():
    """The issue's case: a 0-d tensor came back as shape (1,)."""
    obj = {
        "step": mg.tensor(7),
        "loss": mg.tensor(0.25, requires_grad=True),
        "flag": mg.tensor(True),
        "half": mg.tensor(np.float16(1.5)),
    }
    back = _roundtrip(obj)
    for k, v in obj.items():
        assert back[k].shape == () and back[k].dtype == v.dtype, k
        assert back[k].item() == v.item(), k
    assert back["loss"].requires_grad


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_non_contiguous_views_round_trip(dtype):
    base = mg.tensor((np.arange(24) % 5).astype(dtype).reshape(2, 3, 4))
    views = {
        "t": base[0].t(),
        "permute": base.permute(2, 0, 1),
        "step": base[:, ::2, 1:],
        "flip": base.flip(0),
    }
    back = _roundtrip(views)
    for k, v in views.items():
        assert back[k].shape == v.shape and back[k].dtype == v.dtype, k
        np.testing.assert_array_equal(back[k].numpy(), v.numpy(), err_msg=k)


def test_plain_values_and_nested_containers():
    obj = {
        "ints": [0, -1, 2**62],
        "floats": (0.1, -0.0, math.inf, math.nan),
        "bools": [True, False],
        "str": "",
        "none": None,
        "nested": {"a": [(1, {"b": [None, mg.tensor([[1.0]])]})], 3: ()},
        "od": OrderedDict([("z", 1), ("a", mg.zeros(0, 2))]),
        "np": [np.int32(3), np.float16(0.5), np.bool_(False), np.array(2, dtype=np.uint8)],
    }
    assert_same(_roundtrip(obj), obj)


def test_optimizer_state_dict_round_trips_and_loads():
    model = nn.Linear(3, 2)
    opt = optim.Adam(model.parameters(), lr=0.01)
    model(mg.randn(4, 3)).sum().backward()
    opt.step()
    sd = opt.state_dict()
    back = _roundtrip(sd)
    assert_same(back, sd)
    fresh = optim.Adam(model.parameters(), lr=0.5)
    fresh.load_state_dict(back)
    assert_same(fresh.state_dict(), sd)


def test_batchnorm_model_loads_its_own_checkpoint_into_a_fresh_model():
    def build():
        return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU())

    model = build()
    for _ in range(3):
        model(mg.randn(8, 3))
    sd = model.state_dict()
    assert sd["1.num_batches_tracked"].shape == ()
    back = _roundtrip(sd)
    fresh = build()
    fresh.load_state_dict(back)  # raised "size mismatch for num_batches_tracked" before
    for k, v in fresh.state_dict().items():
        assert v.shape == sd[k].shape and v.dtype == sd[k].dtype, k
        np.testing.assert_array_equal(v.numpy(), sd[k].numpy(), err_msg=k)
    assert fresh.state_dict()["1.num_batches_tracked"].item() == 3
    model.eval()
    fresh.eval()
    x = mg.randn(5, 3)
    np.testing.assert_array_equal(fresh(x).numpy(), model(x).numpy())


# ------------------------------------------------------------------ property-based
_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)


@st.composite
def _arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    arr = draw(hnp.arrays(dtype, _shapes))
    if arr.ndim >= 2 and draw(st.booleans()):
        arr = arr.T  # non-contiguous
    elif arr.ndim >= 1 and arr.shape[0] > 1 and draw(st.booleans()):
        arr = arr[::-1]  # negative stride
    return arr


@st.composite
def _tensors(draw):
    arr = draw(_arrays())
    t = mg.tensor(arr.copy())
    if arr.ndim >= 2 and draw(st.booleans()):
        t = t.t() if arr.ndim == 2 else t.transpose(0, 1)
    if arr.dtype.kind == "f" and draw(st.booleans()):
        t.requires_grad = True
    return t


_plain = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
_leaves = st.one_of(_plain, _tensors(), _arrays(), _arrays().map(lambda a: a.dtype.type(0)))
_keys = st.one_of(st.text(max_size=5), st.integers(-5, 5))
_trees = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(_keys, children, max_size=4),
        st.dictionaries(_keys, children, max_size=4).map(lambda d: OrderedDict(d)),
    ),
    max_leaves=12,
)


def _check_round_trip(tree):
    assert_same(_roundtrip({"root": tree}), {"root": tree})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_trees)
def test_random_trees_round_trip_exactly(tree):
    _check_round_trip(tree)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_trees)
def test_random_trees_round_trip_exactly_long(tree):
    _check_round_trip(tree)

"""Checkpoints in the first format (an ``.npz`` of arrays ``a0``, ``a1``, ... beside a
JSON manifest) still load, with their names, types and bits.

``tests/data/checkpoint-npz-v1.npz`` was written by ``mg.save(legacy_object(), path)``
with minigrad 0.1.0, the last version that wrote that format; ``legacy_object`` below
builds the same object again (every value from ``np.arange``, nothing random), so the
test compares what the file gives back with what was saved.
"""

from __future__ import annotations

import math
import pathlib
from collections import OrderedDict

import numpy as np

import minigrad as mg

FIXTURE = pathlib.Path(__file__).parent / "data" / "checkpoint-npz-v1.npz"


def legacy_object() -> dict:
    """A model's state_dict, an optimizer's, and plain values of every kind."""
    weight = np.arange(6, dtype=np.float32).reshape(2, 3) / 8
    return {
        "model": OrderedDict(
            [
                ("0.weight", mg.tensor(weight, requires_grad=True)),
                ("0.bias", mg.tensor(np.array([0.5, -0.25], dtype=np.float32))),
                ("1.running_mean", mg.tensor(np.zeros(2, dtype=np.float32))),
                ("1.num_batches_tracked", mg.tensor(np.array(3, dtype=np.int64))),
            ]
        ),
        "optimizer": {
            "state": {0: {"step": mg.tensor(2.0), "exp_avg": mg.tensor(weight * 2)}},
            "param_groups": [{"lr": 0.01, "betas": (0.9, 0.99), "params": [0, 1]}],
        },
        "arrays": [
            np.array([True, False]),
            np.arange(4, dtype=np.int8),
            np.arange(3, dtype=np.uint8),
            np.arange(3, dtype=np.float16) / 4,
            np.arange(6, dtype=np.float64).reshape(2, 3).T,
            np.array(2.5),
            np.zeros((0, 3), dtype=np.int32),
            np.array([1 + 2j]),
            np.array(["a", "bcd"]),
        ],
        "scalars": (7, 2**70, -0.0, math.inf, math.nan, None, "héllo", np.float32(1.5)),
        "step": 12,
    }


def _assert_same(back, obj, where="obj"):
    if isinstance(obj, mg.Tensor):
        assert isinstance(back, mg.Tensor), where
        assert back.requires_grad == obj.requires_grad, where
        return _assert_same(back.numpy(), obj.numpy(), where)
    assert type(back) is type(obj), f"{where}: {type(back).__name__} != {type(obj).__name__}"
    if isinstance(obj, (np.ndarray, np.generic)):
        assert back.dtype == obj.dtype and np.shape(back) == np.shape(obj), where
        assert np.array_equal(back, obj, equal_nan=obj.dtype.kind in "fc"), where
    elif isinstance(obj, dict):
        assert list(back) == list(obj), where
        for k in obj:
            _assert_same(back[k], obj[k], f"{where}[{k!r}]")
    elif isinstance(obj, (list, tuple)):
        assert len(back) == len(obj), where
        for i, (b, o) in enumerate(zip(back, obj)):
            _assert_same(b, o, f"{where}[{i}]")
    elif isinstance(obj, float):
        assert (math.isnan(back) and math.isnan(obj)) or (
            back == obj and math.copysign(1, back) == math.copysign(1, obj)
        ), where
    else:
        assert back == obj, where


def test_a_checkpoint_of_the_first_format_loads_exactly():
    _assert_same(mg.load(FIXTURE), legacy_object())


def test_the_first_format_loads_into_a_model():
    import minigrad.nn as nn

    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    state = mg.load(FIXTURE)["model"]
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert unexpected == [] and sorted(missing) == ["1.bias", "1.running_var", "1.weight"]
    np.testing.assert_array_equal(model[0].weight.numpy(), legacy_object()["model"]["0.weight"].numpy())
    assert model[1].num_batches_tracked.item() == 3

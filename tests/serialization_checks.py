"""Checks shared by the checkpoint tests: exact equality of what was saved and what
came back, loads of randomly damaged files, and an object whose unpickling would run
code."""

from __future__ import annotations

import math

import numpy as np

import minigrad as mg
from minigrad.serialization import CheckpointError


def assert_same(back, obj, where="obj"):
    """``back`` is ``obj``: same types all the way down, same shapes, dtypes and bits."""
    assert type(back) is type(obj) or (isinstance(obj, mg.Tensor) and type(back) is mg.Tensor), (
        f"{where}: {type(back).__name__} != {type(obj).__name__}"
    )
    if isinstance(obj, mg.Tensor):
        assert_same(back.numpy(), obj.numpy(), where)
        assert back.requires_grad == obj.requires_grad, where
    elif isinstance(obj, (np.ndarray, np.generic)):
        assert back.dtype == obj.dtype and np.shape(back) == np.shape(obj), where
        assert np.array_equal(back, obj, equal_nan=obj.dtype.kind in "fc"), where
    elif isinstance(obj, dict):
        assert list(back) == list(obj), where
        for k in obj:
            assert_same(back[k], obj[k], f"{where}[{k!r}]")
    elif isinstance(obj, (list, tuple)):
        assert len(back) == len(obj), where
        for i, (b, o) in enumerate(zip(back, obj)):
            assert_same(b, o, f"{where}[{i}]")
    elif isinstance(obj, float) and math.isnan(obj):
        assert math.isnan(back), where
    elif isinstance(obj, float):
        assert back == obj and math.copysign(1, back) == math.copysign(1, obj), where
    else:
        assert back == obj, where


def load_damaged(path, data: bytes, times: int = 600) -> int:
    """Write ``times`` randomly damaged copies of the checkpoint bytes ``data`` to
    ``path`` (1 to 5 bytes changed, one copy in five also cut short) and load each;
    returns how many raised ``CheckpointError``. Any other exception propagates."""
    rng = np.random.default_rng(0)
    failures = 0
    for _ in range(times):
        damaged = bytearray(data)
        for i in rng.integers(0, len(data), size=rng.integers(1, 6)):
            damaged[i] = rng.integers(0, 256)
        if rng.random() < 0.2:
            damaged = damaged[: rng.integers(0, len(damaged))]
        path.write_bytes(bytes(damaged))
        try:
            mg.load(path)
        except CheckpointError:
            failures += 1
    return failures


class Payload:
    """Unpickling this would create ``marker``: the test fails if any code runs."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))

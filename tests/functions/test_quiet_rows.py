"""The elementwise table's ``quiet`` rows: NumPy warns for none of their inputs.

``evaluate`` runs a ``quiet`` entry without ``np.errstate`` (there is no overflow, division
by zero or invalid operation to silence), every other entry inside one. A row wrongly
marked quiet would print a NumPy RuntimeWarning that PyTorch never gives; these tests run
each quiet forward with those warnings turned into errors, on the special values of each
dtype and on arbitrary arrays.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minigrad.functions.elementwise import BINARY, UNARY

QUIET = [op for op in UNARY + BINARY if op.quiet]
assert QUIET, "the table marks no entry quiet: the tests below would check nothing"
FLOATS = (np.float16, np.float32, np.float64)
INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8)


def _raising():
    """NumPy's default warnings (overflow, 1/0, invalid) as errors; underflow stays off."""
    return np.errstate(over="raise", divide="raise", invalid="raise", under="ignore")


def _special_values(dtype) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return np.array([0, 1, 2, info.max, info.min, info.max - 1, info.min + 1], dtype=dtype)
    info = np.finfo(dtype)
    values = [0.0, -0.0, 0.5, -0.5, 1, -1, 2, -2, 10, -10, 1e4, -1e4, info.max, -info.max,
              info.tiny, -info.tiny, info.smallest_subnormal, np.inf, -np.inf, np.nan]  # fmt: skip
    return np.array(values, dtype=dtype)


def _dtypes(op) -> tuple:
    return FLOATS + (INTS if op.ints in ("keep", "int") else ())


def _forward(op, x):
    return op.forward(*([x] * op.arity), *[default for _, default in op.params])


@pytest.mark.parametrize("op", QUIET, ids=lambda op: op.name)
def test_quiet_on_special_values(op):
    for dtype in _dtypes(op):
        with _raising():
            _forward(op, _special_values(dtype))


@pytest.mark.parametrize("op", QUIET, ids=lambda op: op.name)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_quiet_on_any_array(op, data):
    dtype = data.draw(st.sampled_from(_dtypes(op)))
    x = data.draw(hnp.arrays(dtype, hnp.array_shapes(max_dims=2, max_side=6)))
    with _raising():
        _forward(op, x)


@pytest.mark.parametrize("name", ["exp", "log", "sin", "sqrt", "reciprocal", "sinh"])
def test_the_check_sees_a_warning(name):
    # the rows around them do warn: the same check raises for each
    (op,) = [op for op in UNARY if op.name == name]
    assert not op.quiet
    with pytest.raises(FloatingPointError), _raising():
        _forward(op, _special_values(np.float32))

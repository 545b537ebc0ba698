"""Integer division: ``//``, ``%``, ``fmod`` and ``div(rounding_mode=...)`` on integer
(and bool) tensors.

An integer division by zero has no integer answer. PyTorch raises
``RuntimeError("ZeroDivisionError")``; NumPy would return 0 with a warning. minigrad
raises ``IntegerDivisionByZero``, which is both a ``RuntimeError`` and a
``ZeroDivisionError``, in every form: function, method, operator, reflected operator,
in-place, and with a Python number. Divisions that are defined are checked against
Python's own integer arithmetic, which is an independent oracle: ``//`` and ``%``
floor, and ``math.fmod`` truncates.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
from minigrad.functions.errors import IntegerDivisionByZero

INTS = ["uint8", "int8", "int16", "int32", "int64"]

# Each form, as (name, call(a, b)) where a and b are tensors or numbers.
FORMS = [
    ("a // b", lambda a, b: a // b),
    ("a % b", lambda a, b: a % b),
    ("floor_divide", lambda a, b: mg.floor_divide(a, b)),
    ("remainder", lambda a, b: mg.remainder(a, b)),
    ("fmod", lambda a, b: mg.fmod(a, b)),
    ("div floor", lambda a, b: mg.div(a, b, rounding_mode="floor")),
    ("div trunc", lambda a, b: mg.div(a, b, rounding_mode="trunc")),
    ("a.remainder(b)", lambda a, b: a.remainder(b)),
    ("a //= b", lambda a, b: a.__ifloordiv__(b)),
    ("a.fmod_(b)", lambda a, b: a.fmod_(b)),
    ("a.remainder_(b)", lambda a, b: a.remainder_(b)),
]


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("form", FORMS, ids=[f[0] for f in FORMS])
def test_integer_division_by_a_zero_tensor_raises(form, dtype):
    a = mg.tensor([7, 5, 3], dtype=getattr(mg, dtype))
    b = mg.tensor([2, 0, 1], dtype=getattr(mg, dtype))  # one zero is enough
    with pytest.raises(RuntimeError, match="ZeroDivisionError") as err:
        form[1](a, b)
    assert isinstance(err.value, ZeroDivisionError)


@pytest.mark.parametrize("form", FORMS, ids=[f[0] for f in FORMS])
def test_integer_division_by_the_number_zero_raises(form):
    with pytest.raises(IntegerDivisionByZero):
        form[1](mg.tensor([7, 5]), 0)


@pytest.mark.parametrize("op", [lambda a, b: a // b, lambda a, b: a % b])
def test_a_number_divided_by_a_zero_tensor_raises(op):
    with pytest.raises(IntegerDivisionByZero):
        op(7, mg.tensor([1, 0]))


def test_a_bool_divisor_with_false_raises():
    # bool operands are integers here (True is 1): False divides by zero
    with pytest.raises(IntegerDivisionByZero):
        mg.tensor([3, 4]) // mg.tensor([True, False])


@pytest.mark.parametrize(
    "a, b",
    [
        (mg.tensor([7.0, -3.0]), mg.tensor([0.0, 0.0])),  # floats: inf and nan
        (mg.tensor([7, -3]), 0.0),  # a float number makes the division float
        (mg.tensor([7.0, -3.0]), 0),
    ],
)
def test_float_division_by_zero_gives_inf_and_nan(a, b):
    q = a // b
    assert q.dtype.kind == "f"
    assert np.isinf(q.numpy()[0])
    r = mg.fmod(a, b)
    assert np.isnan(r.numpy()).all()


def test_an_empty_division_has_nothing_to_refuse():
    empty = mg.tensor([], dtype=mg.int64)
    assert (empty // empty).shape == (0,)
    assert (empty // 0).shape == (0,) and (empty % mg.tensor([0])).shape == (0,)


@given(
    st.lists(st.integers(-1000, 1000), min_size=1, max_size=8),
    st.lists(st.integers(-1000, 1000).filter(lambda v: v != 0), min_size=1, max_size=8),
)
def test_nonzero_divisors_give_pythons_integer_answers(xs, ys):
    n = min(len(xs), len(ys))
    xs, ys = xs[:n], ys[:n]
    a, b = mg.tensor(xs), mg.tensor(ys)
    assert (a // b).tolist() == [x // y for x, y in zip(xs, ys)]
    assert (a % b).tolist() == [x % y for x, y in zip(xs, ys)]
    assert mg.fmod(a, b).tolist() == [int(math.fmod(x, y)) for x, y in zip(xs, ys)]
    trunc = mg.div(a, b, rounding_mode="trunc").tolist()
    assert trunc == [int(x / y) for x, y in zip(xs, ys)]  # |x| <= 1000: x / y is exact enough


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("form", FORMS, ids=[f[0] for f in FORMS])
def test_zero_division_matches_torch(form, dtype, torch):
    def run(lib):
        a = lib.tensor([7, 5, 3], dtype=getattr(lib, dtype))
        b = lib.tensor([2, 0, 1], dtype=getattr(lib, dtype))
        call = form[1]
        if lib is torch:  # the same forms through torch's names
            name = form[0]
            call = {
                "floor_divide": lambda a, b: torch.floor_divide(a, b),
                "remainder": lambda a, b: torch.remainder(a, b),
                "fmod": lambda a, b: torch.fmod(a, b),
                "div floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
                "div trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
            }.get(name, call)
        try:
            return call(a, b)
        except RuntimeError as e:
            return ("raised", str(e))

    theirs, ours = run(torch), run(mg)
    assert isinstance(theirs, tuple) and "ZeroDivisionError" in theirs[1]
    assert isinstance(ours, tuple) and "ZeroDivisionError" in ours[1]

"""The dtype rules of every in-place method, against PyTorch, from one table.

Every in-place method that minigrad's Tensor and PyTorch's share is called on an int64,
a bool and a float32 tensor, with no argument and with each scalar of ``SCALARS`` (a
Python bool, int and float). Where PyTorch takes the call (no ``TypeError`` for the
arguments), minigrad must do what it does: raise where it raises, and otherwise leave
the tensor with the same dtype and values. ``KNOWN_DIFFERENCES`` lists the cases where
minigrad still differs, with the reason: a case that starts to agree fails the test too,
so the list stays true.
"""

import numpy as np
import pytest

import minigrad as mg

SCALARS = ((), (True,), (2,), (1.5,), (-1,))
DTYPES = ("int64", "bool", "float32")

#: Not compared: random fills (their values differ by design; their dtype rules are in
#: tests/test_inplace.py and tests/test_sampling.py), names classified unsupported
#: (minigrad/unsupported.json), and methods that are not elementwise updates (resize_).
EXCLUDED = {
    "normal_",
    "uniform_",
    "bernoulli_",
    "cauchy_",
    "exponential_",
    "geometric_",
    "log_normal_",
    "random_",
    "resize_",
    "share_memory_",
    "conj_physical_",
    "requires_grad_",
    "resize_as_sparse_",
    "sparse_resize_",
    "sparse_resize_and_clear_",
}

#: (method, dtype, arguments) -> why minigrad differs from PyTorch there.
KNOWN_DIFFERENCES = {
    **{
        ("float_power_", "float32", args): "PyTorch refuses a float32 base (the result is "
        "float64); minigrad casts the result back to float32"
        for args in SCALARS[1:]
    },
    ("logit_", "float32", (True,)): "eps=True: PyTorch clamps to [1, 0] in its own order",
}


def _in_place_methods() -> list[str]:
    return sorted(
        name
        for name in dir(mg.Tensor)
        if name.endswith("_") and not name.startswith("_") and name not in EXCLUDED
    )


def _outcome(module, name: str, dtype: str, args: tuple):
    """What ``tensor([1, 0, 3]).to(dtype).name(*args)`` does: the exception class, or
    the tensor's dtype and values after the call."""
    t = module.tensor([1, 0, 3]).to(getattr(module, dtype))
    try:
        getattr(t, name)(*args)
    except TypeError:
        return TypeError
    except Exception as e:
        return type(e)
    return str(t.dtype).split(".")[-1], np.asarray(t.tolist(), dtype=float)


def _agree(mine, theirs) -> bool:
    if isinstance(theirs, type) or isinstance(mine, type):
        return isinstance(theirs, type) and isinstance(mine, type)  # both raise
    return mine[0] == theirs[0] and np.allclose(mine[1], theirs[1], equal_nan=True)


def test_the_table_names_only_methods_minigrad_has():
    names = set(_in_place_methods())
    assert {name for name, _, _ in KNOWN_DIFFERENCES} <= names
    assert {"sub_", "add_", "mul_", "div_", "pow_", "clamp_", "fill_"} <= names


@pytest.mark.parametrize("name", _in_place_methods())
def test_in_place_dtype_rules_match_pytorch(torch, name):
    if not hasattr(torch.Tensor, name):
        pytest.skip(f"torch.Tensor has no {name}")
    differ = set()
    for dtype in DTYPES:
        for args in SCALARS:
            theirs = _outcome(torch, name, dtype, args)
            if theirs is TypeError:  # PyTorch does not take these arguments
                continue
            if not _agree(_outcome(mg, name, dtype, args), theirs):
                differ.add((name, dtype, args))
    known = {case for case in KNOWN_DIFFERENCES if case[0] == name}
    assert differ == known, f"new differences: {differ - known}; now agreeing: {known - differ}"


@pytest.mark.parametrize("dtype", [mg.int64, mg.float32, mg.bool])
@pytest.mark.parametrize(
    "subtract",
    [
        lambda t: t.sub_(True),
        lambda t: t.subtract_(True),
        lambda t: t.sub(True),
        lambda t: t - True,
        lambda t: True - t,
        lambda t: t - mg.tensor([True, False, True]),
        lambda t: mg.rsub(t, True),
    ],
)
def test_subtraction_with_a_bool_raises_as_in_pytorch(subtract, dtype):
    t = mg.tensor([1, 0, 3]).to(dtype)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with .*bool"):
        subtract(t)
    assert t.tolist() == mg.tensor([1, 0, 3]).to(dtype).tolist() and t._version == 0


def test_negating_a_bool_tensor_raises_as_in_pytorch():
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor"):
        -mg.tensor([True, False])

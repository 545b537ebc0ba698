"""minigrad/surface/__init__.py: NumPy's keyword spellings and the remaining operators."""

import numpy as np
import pytest

import minigrad as mg

KEYWORD_CASES = [
    "x.sum(axis=1)",
    "x.sum(axis=(0, 1), keepdims=True)",
    "x.mean(axis=0, keepdims=True)",
    "lib.sum(x, axis=1)",
    "x.amax(axis=1)",
    "x.max(axis=1).values",
    "x.prod(axis=0)",
    "x.std(axis=1)",
    "x.logsumexp(axis=1)",
    "x.softmax(axis=0)",
    "x.cumsum(axis=1)",
    "x.argmax(axis=1, keepdims=True)",
]


def _x(lib):
    return lib.tensor(np.arange(12.0).reshape(3, 4) / 7)


@pytest.mark.parametrize("expr", KEYWORD_CASES)
def test_numpy_keywords(expr):
    y = eval(expr, {"lib": mg, "x": _x(mg)})
    dim_expr = expr.replace("axis=", "dim=").replace("keepdims=", "keepdim=")
    np.testing.assert_array_equal(y.numpy(), eval(dim_expr, {"lib": mg, "x": _x(mg)}).numpy())


@pytest.mark.parametrize("expr", KEYWORD_CASES)
def test_numpy_keywords_match_torch(expr, torch):
    y, yt = eval(expr, {"lib": mg, "x": _x(mg)}), eval(expr, {"lib": torch, "x": _x(torch)})
    np.testing.assert_allclose(y.numpy(), yt.numpy(), rtol=1e-6)


def test_contains_and_reversed():
    x = mg.tensor([1.0, 2.0, 3.0])
    assert 2.0 in x and 5.0 not in x
    assert [t.item() for t in reversed(x)] == [3.0, 2.0, 1.0]


def test_abs_and_bitwise_operators():
    x = mg.tensor([-1, 6])
    assert abs(x).tolist() == [1, 6]
    assert (x & 3).tolist() == [3, 2] and (x | 1).tolist() == [-1, 7]
    assert (x ^ 1).tolist() == [-2, 7] and (~x).tolist() == [0, -7]
    assert (x << 1).tolist() == [-2, 12] and (x >> 1).tolist() == [-1, 3]
    assert (3 & x).tolist() == [3, 2]
    assert (7 % x).tolist() == [0, 1] and (x // 4).tolist() == [-1, 1]


def test_in_place_operators_outside_the_graph():
    x = mg.tensor([2.0, 3.0])
    x **= 2
    assert x.tolist() == [4.0, 9.0]
    y = mg.tensor([5, 6])
    y %= 4
    y &= 3
    assert y.tolist() == [1, 2]


INPLACE_CASES = [
    ("index_add", (1, mg.tensor([0, 2]), mg.ones(3, 2))),
    ("index_fill", (1, mg.tensor([1]), -1.0)),
    ("scatter_add", (0, mg.tensor([[0, 1, 2, 0]]), mg.ones(1, 4, dtype=mg.float64))),
    ("lerp", (mg.zeros(4), 0.5)),
    ("addcmul", (mg.ones(4), mg.ones(3, 1), {"value": 2})),
    ("tril", ()),
    ("cumsum", (1,)),
    ("clamp_min", (0.5,)),
]


@pytest.mark.parametrize(("name", "args"), INPLACE_CASES, ids=[c[0] for c in INPLACE_CASES])
def test_composite_in_place_variants(name, args):
    kwargs = args[-1] if args and isinstance(args[-1], dict) else {}
    args = args[:-1] if kwargs else args
    x = mg.tensor(np.arange(12.0).reshape(3, 4) / 5)
    expected = getattr(x, name)(*args, **kwargs).numpy().copy()
    out = getattr(x, name + "_")(*args, **kwargs)
    assert out is x
    np.testing.assert_array_equal(x.numpy(), expected)


def test_tensor_properties_and_method_forms():
    x = mg.arange(6.0).reshape(2, 3)
    assert x.nbytes == 24 and x.itemsize == 4 and x.ndimension() == 2
    assert x.mH.shape == (3, 2) and x.adjoint().shape == (3, 2)
    np.testing.assert_array_equal(x.where(x > 2, 0.0).numpy(), [[0, 0, 0], [3, 4, 5]])

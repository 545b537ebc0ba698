"""default_collate and default_convert (minigrad/utils/data/collate.py): PyTorch's type
promotion across samples, its container rules and its errors; a property-based
differential test against torch.utils.data.default_collate on random nested samples
(skips without torch) and a property-based test of the invariants that runs always."""

from __future__ import annotations

import collections
from collections import OrderedDict, defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad.utils.data import default_collate, default_convert

Point = collections.namedtuple("Point", "x y")


def _plain(x):
    """A batch as nested Python values with type names and dtypes (either library)."""
    if hasattr(x, "numpy") and hasattr(x, "dtype"):
        a = x.detach().numpy() if hasattr(x, "detach") else x.numpy()
        return ("tensor", np.dtype(a.dtype).name, a.shape, a.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: _plain(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_plain(v) for v in x])
    return x


# What torch 2.13's default_collate returns for each batch (run with
# /work/venv-torch/bin/python): (dtype, values).
PROMOTION = [
    ([1, 2.5], "float32", [1.0, 2.5]),
    ([2.5, 1], "float64", [2.5, 1.0]),
    ([True, 2], "int64", [1, 2]),
    ([2, True], "int64", [2, 1]),
    ([True, False], "bool", [True, False]),
    ([1.5, True], "float64", [1.5, 1.0]),
    ([True, 1.5], "float32", [1.0, 1.5]),
    ([1, 2], "int64", [1, 2]),
    ([-(2**63), 1], "int64", [-(2**63), 1]),
    ([np.float32(1), np.float64(2)], "float64", [1.0, 2.0]),
    ([np.int32(1), np.int64(2)], "int64", [1, 2]),
    ([np.int8(1), np.uint8(2)], "int16", [1, 2]),
    ([np.uint8(1), np.int8(2)], "int16", [1, 2]),
    ([np.float16(1), np.int64(3)], "float16", [1.0, 3.0]),
    ([np.int32(1), 2.5], "float32", [1.0, 2.5]),
    ([np.float32(1), 2], "float32", [1.0, 2.0]),
    ([1, np.float32(2)], "float32", [1.0, 2.0]),
    ([np.float64(1), 2.5], "float64", [1.0, 2.5]),
    ([2.5, np.float32(1)], "float64", [2.5, 1.0]),
    ([np.bool_(True), np.bool_(False)], "bool", [True, False]),
    ([np.array(1.0), np.array(2)], "float64", [1.0, 2.0]),
    ([np.uint16(1)], "uint16", [1]),
    ([np.complex64(1)], "complex64", [1 + 0j]),
]


@pytest.mark.parametrize("batch, dtype, values", PROMOTION, ids=[str(c[0]) for c in PROMOTION])
def test_numbers_promote_as_in_pytorch(batch, dtype, values):
    out = default_collate(batch)
    assert isinstance(out, mg.Tensor) and out.dtype == np.dtype(dtype)
    assert out.tolist() == values


ARRAYS = [  # first sample's dtype, second's, torch's batch dtype
    (np.float32, np.float64, "float64"),
    (np.int64, np.float32, "float32"),
    (np.bool_, np.int8, "int8"),
    (np.uint8, np.int8, "int16"),
    (np.float16, np.int64, "float16"),
    (np.int32, np.int32, "int32"),
]


@pytest.mark.parametrize(
    "a, b, dtype", ARRAYS, ids=[f"{a.__name__}+{b.__name__}" for a, b, _ in ARRAYS]
)
def test_arrays_and_tensors_promote_as_in_pytorch(a, b, dtype):
    x, y = np.arange(3).astype(a), np.arange(3, 6).astype(b)
    for batch in ([x, y], [mg.tensor(x), mg.tensor(y)], [x, mg.tensor(y)]):
        out = default_collate(batch)
        assert out.dtype == np.dtype(dtype) and out.shape == (2, 3)
        np.testing.assert_array_equal(out.numpy(), np.stack([x, y]).astype(dtype))


def test_containers_keep_pytorch_types():
    assert _plain(default_collate([(1, "a"), (2, "b")])) == (
        "list",
        [("tensor", "int64", (2,), [1, 2]), ("tuple", ["a", "b"])],
    )
    out = default_collate([[1, (2, 3)], [4, (5, 6)]])
    assert type(out) is list and type(out[1]) is list and out[1][1].tolist() == [3, 6]
    out = default_collate([{"a": 1, "b": 2.0}, {"b": 4.0, "a": 3}])
    assert list(out) == ["a", "b"] and out["a"].tolist() == [1, 3]
    assert out["b"].dtype == mg.float64
    assert type(default_collate([OrderedDict(a=1), OrderedDict(a=2)])) is OrderedDict
    dd = default_collate([defaultdict(int, a=1), defaultdict(int, a=2)])
    assert type(dd) is defaultdict and dd["missing"] == 0
    p = default_collate([Point(1, 2.5), Point(2.5, 1)])
    assert type(p) is Point and p.x.dtype == mg.float32 and p.y.dtype == mg.float64
    assert type(default_collate([Point(1, 2), (3, 4)])) is Point
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]
    assert default_collate([np.str_("a"), np.str_("b")]) == ["a", "b"]
    assert [t.tolist() for t in default_collate([range(2), range(2)])] == [[0, 0], [1, 1]]
    assert default_collate([{"a": 1}, {"a": 2, "b": 3}]).keys() == {"a"}  # extra keys dropped


def test_tensors_stack_keep_their_graph_and_views_collate():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    out = default_collate([w * 2, w * 3])
    assert out.shape == (2, 2) and out.requires_grad
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [5.0, 5.0])
    base = np.arange(6).reshape(2, 3)
    out = default_collate([base.T, base.T[::-1]])
    np.testing.assert_array_equal(out.numpy(), np.stack([base.T, base.T[::-1]]))
    assert default_collate([mg.tensor(1.0), mg.tensor(2.0)]).shape == (2,)


ERRORS = [
    ([], IndexError, "empty"),
    ([np.zeros(2), np.zeros(3)], RuntimeError, r"equal size, but got \[2\] at entry 0 and \[3\]"),
    ([mg.zeros(2), mg.zeros(1, 2)], RuntimeError, r"\[2\] at entry 0 and \[1, 2\] at entry 1"),
    ([np.zeros(2), np.float64(1)], RuntimeError, "equal size"),
    ([mg.zeros(2), np.zeros(2)], TypeError, "expected a Tensor at entry 1"),
    ([mg.zeros(2), [1.0, 2.0]], TypeError, "expected a Tensor at entry 1"),
    ([[1, 2], [3]], RuntimeError, "each element in list of batch should be of equal size"),
    ([(1, 2), (3,)], RuntimeError, "each element in list of batch should be of equal size"),
    ([{"a": 1}, {"b": 2}], KeyError, "'a' of entry 0 is missing from entry 1"),
    ([{"a": 1}, [1]], TypeError, "entry 1 is a list"),
    ([[1], {"a": 1}], TypeError, "entry 1 is a dict"),
    ([[1], 1], TypeError, "entry 1 is a int"),
    ([1, [1]], TypeError, "entry 1 is a list"),
    ([1, "a"], TypeError, "entry 1 is a str"),
    ([1, None], RuntimeError, "None at entry 1"),
    ([2**63, 1], ValueError, "does not fit in int64"),
    ([1, 2**63], ValueError, "does not fit in int64"),
    ([1.0, 2j], TypeError, "complex"),
    ([None], TypeError, "found <class 'NoneType'>"),
    ([{1}, {2}], TypeError, "found <class 'set'>"),
    ([object()], TypeError, "found <class 'object'>"),
    ([1j, 2j], TypeError, "found <class 'complex'>"),
    ([np.array(["a"]), np.array(["b"])], TypeError, "found <U1"),
    ([np.array([1], dtype=object)], TypeError, "found object"),
    ([np.datetime64("2020-01-01")], TypeError, "found <class 'numpy.datetime64'>"),
]


@pytest.mark.parametrize("batch, error, match", ERRORS, ids=[m for _, _, m in ERRORS])
def test_bad_batches_raise_pytorchs_class_with_a_clear_message(batch, error, match):
    with pytest.raises(error, match=match):
        default_collate(batch)


def test_default_convert_as_pytorch():
    out = default_convert((np.zeros(2), 1, np.float32(3), [np.zeros(1)], {"a": np.ones(1)}, "x"))
    assert type(out) is list and isinstance(out[0], mg.Tensor) and out[1] == 1
    assert isinstance(out[2], mg.Tensor) and out[2].shape == () and out[2].item() == 3.0
    assert isinstance(out[3][0], mg.Tensor) and isinstance(out[4]["a"], mg.Tensor)
    assert out[5] == "x"
    strings = np.array(["a"])
    assert default_convert(strings) is strings
    p = default_convert(Point(np.zeros(1), 2))
    assert type(p) is Point and isinstance(p.x, mg.Tensor) and p.y == 2


@pytest.mark.parametrize("batch", [c[0] for c in PROMOTION] + [c[0] for c in ERRORS[1:]])
def test_table_against_torch(torch, batch):
    """The tables above, re-run in PyTorch: same result, or the same exception class."""
    from torch.utils.data import default_collate as torch_collate

    tbatch = [torch.from_numpy(x.numpy()) if isinstance(x, mg.Tensor) else x for x in batch]
    try:
        expected = _plain(torch_collate(tbatch))
    except Exception as e:
        with pytest.raises(type(e)):
            default_collate(batch)
        return
    assert _plain(default_collate(batch)) == expected


# ------------------------------------------------------------------ property-based
# A schema is the structure shared by every sample of a batch; the samples then differ
# in their leaves' values and types (each leaf drawn from its family).
NP_NUMBERS = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
ARRAY_DTYPES = ["bool"] + NP_NUMBERS
_leaf_schemas = st.one_of(
    st.just(("python",)),
    st.just(("npscalar",)),
    st.just(("str",)),
    st.tuples(st.just("array"), st.lists(st.integers(0, 3), max_size=2).map(tuple)),
    st.tuples(st.just("tensor"), st.lists(st.integers(0, 3), max_size=2).map(tuple)),
)
_schemas = st.recursive(
    _leaf_schemas,
    lambda inner: st.one_of(
        st.tuples(st.just("tuple"), st.lists(inner, min_size=1, max_size=3)),
        st.tuples(st.just("list"), st.lists(inner, min_size=1, max_size=3)),
        st.tuples(st.just("dict"), st.dictionaries(st.sampled_from("abc"), inner, min_size=1)),
        st.tuples(st.just("point"), st.tuples(inner, inner)),
    ),
    max_leaves=6,
)


def _sample(draw, schema):
    """One sample of ``schema`` as (minigrad's sample, torch-independent leaves)."""
    kind = schema[0]
    if kind == "python":
        return draw(
            st.one_of(st.booleans(), st.integers(-(2**40), 2**40), st.floats(-1e6, 1e6, width=32))
        )
    if kind == "npscalar":
        dtype = np.dtype(draw(st.sampled_from(NP_NUMBERS)))
        return dtype.type(draw(st.integers(0, 100)))
    if kind == "str":
        return draw(st.text(max_size=3))
    if kind in ("array", "tensor"):
        dtype = np.dtype(draw(st.sampled_from(ARRAY_DTYPES)))
        values = draw(st.lists(st.integers(0, 100), min_size=int(np.prod(schema[1]))))
        arr = np.array(values[: int(np.prod(schema[1]))]).astype(dtype).reshape(schema[1])
        return arr if kind == "array" else mg.tensor(arr)
    if kind == "tuple":
        return tuple(_sample(draw, s) for s in schema[1])
    if kind == "list":
        return [_sample(draw, s) for s in schema[1]]
    if kind == "dict":
        return {k: _sample(draw, s) for k, s in schema[1].items()}
    return Point(*(_sample(draw, s) for s in schema[1]))


@st.composite
def _batches(draw):
    schema = draw(_schemas)
    n = draw(st.integers(1, 4))
    return schema, [_sample(draw, schema) for _ in range(n)]


def _to_torch(torch, x):
    if isinstance(x, mg.Tensor):
        return torch.from_numpy(x.numpy().copy())
    if isinstance(x, dict):
        return {k: _to_torch(torch, v) for k, v in x.items()}
    if isinstance(x, Point):
        return Point(*(_to_torch(torch, v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(_to_torch(torch, v) for v in x)
    return x


# --- the invariants, without torch: PyTorch's promotion written as a pairwise table
_CATEGORY = {"bool": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1}
_CATEGORY.update(float16=2, float32=2, float64=2)
_WIDTH = {"uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2}
_WIDTH.update(float32=4, float64=8, bool=0)


def _promote_pair(a: str, b: str) -> str:
    if _CATEGORY[a] != _CATEGORY[b]:
        return a if _CATEGORY[a] > _CATEGORY[b] else b
    if {a, b} == {"uint8", "int8"}:
        return "int16"
    return a if _WIDTH[a] >= _WIDTH[b] else b


def _expected_leaf_dtype(kind: str, leaves) -> str:
    if kind == "python" and type(leaves[0]) is float:
        return "float64"
    names = []
    for v in leaves:
        if kind == "python":
            names.append({bool: "bool", int: "int64", float: "float32"}[type(v)])
        else:
            names.append(np.asarray(v.numpy() if isinstance(v, mg.Tensor) else v).dtype.name)
    out = names[0]
    for name in names[1:]:
        out = _promote_pair(out, name)
    return out


def _check_invariants(schema, samples, out):
    kind = schema[0]
    if kind == "str":
        assert list(out) == samples
        return
    if kind in ("python", "npscalar", "array", "tensor"):
        shape = schema[1] if kind in ("array", "tensor") else ()
        assert isinstance(out, mg.Tensor) and out.shape == (len(samples), *shape)
        assert out.dtype.name == _expected_leaf_dtype(kind, samples)
        for i, s in enumerate(samples):
            value = np.asarray(s.numpy() if isinstance(s, mg.Tensor) else s)
            np.testing.assert_array_equal(out.numpy()[i], value.astype(out.dtype))
        return
    if kind == "dict":
        assert type(out) is dict and list(out) == list(schema[1])
        for k, s in schema[1].items():
            _check_invariants(s, [x[k] for x in samples], out[k])
        return
    assert type(out) is (Point if kind == "point" else list)
    for i, s in enumerate(schema[1]):
        _check_invariants(s, [x[i] for x in samples], out[i])


_FAST = settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
_LONG = settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))


@_FAST
@given(_batches())
def test_random_batches_keep_shapes_values_and_promoted_dtypes(case):
    schema, samples = case
    _check_invariants(schema, samples, default_collate(samples))


@pytest.mark.slow
@_LONG
@given(_batches())
def test_random_batches_keep_shapes_values_and_promoted_dtypes_long(case):
    schema, samples = case
    _check_invariants(schema, samples, default_collate(samples))


def _differential(torch, samples):
    from torch.utils.data import default_collate as torch_collate

    assert _plain(default_collate(samples)) == _plain(torch_collate(_to_torch(torch, samples)))


@_FAST
@given(case=_batches())
def test_random_batches_match_torch(torch, case):
    _differential(torch, case[1])


@pytest.mark.slow
@_LONG
@given(case=_batches())
def test_random_batches_match_torch_long(torch, case):
    _differential(torch, case[1])

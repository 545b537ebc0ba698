"""Indexing, gather, where, masked_fill, tril/triu (minigrad/functions/indexing.py)."""

import numpy as np
import pytest

import minigrad as mg

SHAPE = (3, 4, 5)
IDX = np.array([2, 0, 2, 2])  # repeats index 2: its gradient must accumulate
MASK = np.array([True, False, True])
MASK2D = np.arange(12).reshape(3, 4) % 3 == 0

# name -> (key for minigrad, key for torch, built lazily since torch may be absent)
KEYS = {
    "int": lambda T: 1,
    "negative_int": lambda T: -1,
    "int_int": lambda T: (2, 3),
    "slice": lambda T: slice(1, 3),
    "step_slice": lambda T: (slice(None), slice(0, 4, 2)),
    "none": lambda T: (None, 0),
    "ellipsis": lambda T: (Ellipsis, 1),
    "ellipsis_none": lambda T: (0, Ellipsis, None),
    "mixed_basic": lambda T: (slice(None, 2), None, 1, slice(1, None)),
    "int_array": lambda T: T(IDX),
    "int_array_dim1": lambda T: (slice(None), T(np.array([3, 3, 0]))),
    "two_int_arrays": lambda T: (T(np.array([0, 2, 2])), T(np.array([1, 3, 3]))),
    "int_array_and_int": lambda T: (T(IDX), 2),
    "2d_int_array": lambda T: T(np.array([[0, 1], [1, 1]])),
    "bool_mask": lambda T: T(MASK),
    "bool_mask_2d": lambda T: T(MASK2D),
    "bool_mask_dim1": lambda T: (slice(None), T(np.array([True, False, False, True]))),
    "0d_int_tensor": lambda T: T(np.array(1)),
}


def _torch_key(torch, name):
    return KEYS[name](lambda a: torch.tensor(a))


@pytest.mark.parametrize("index_type", ["numpy", "tensor"])
@pytest.mark.parametrize("name", KEYS)
def test_getitem_gradcheck(name, index_type, leaf, check_grads):
    wrap = (lambda a: a) if index_type == "numpy" else mg.tensor
    key = KEYS[name](wrap)
    check_grads(lambda t: t[key], leaf(SHAPE))


@pytest.mark.parametrize("index_type", ["numpy", "tensor"])
@pytest.mark.parametrize("name", KEYS)
def test_getitem_matches_torch(name, index_type, rng, torch, parity):
    wrap = (lambda a: a) if index_type == "numpy" else mg.tensor
    key = KEYS[name](wrap)
    key_t = _torch_key(torch, name)
    parity(lambda t: t[key], lambda t: t[key_t], rng.standard_normal(SHAPE))


def test_repeated_indices_accumulate():
    x = mg.tensor(np.zeros(4), requires_grad=True)
    x[np.array([1, 1, 1, 3])].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 3.0, 0.0, 1.0])
    x.grad = None
    x[[0, 0]].sum().backward()  # a Python list indexes like an array
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 0.0, 0.0, 0.0])
    x.grad = None
    w = mg.tensor(np.array([1.0, 10.0, 100.0]))
    (x[mg.tensor([2, 2, 2])] * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 111.0, 0.0])


def test_basic_index_results_are_values_not_live_views():
    x = mg.tensor(np.arange(6.0))
    y = x[1:3]
    np.testing.assert_array_equal(y.numpy(), [1.0, 2.0])
    assert y.shape == (2,)


@pytest.mark.parametrize(
    "key, error, pattern",
    [
        (5, IndexError, r"\[3, 4, 5\]"),
        ((0, 9), IndexError, "out of bounds"),
        (np.array([0.5]), IndexError, "integer or bool"),
        (mg.tensor([0.0]), IndexError, "integer or bool"),
        ("a", IndexError, "unsupported"),
        (np.array([True, False]), IndexError, r"\[3, 4, 5\]"),
    ],
)
def test_getitem_errors(key, error, pattern):
    with pytest.raises(error, match=pattern):
        mg.ones(*SHAPE)[key]


def test_setitem_is_refused_while_recording_and_allowed_under_no_grad(leaf):
    x = leaf((3,))
    with pytest.raises(RuntimeError, match="no_grad"):
        x[0] = 1.0
    with mg.no_grad():
        x[0] = 1.0
        x[mg.tensor([1, 2])] = mg.tensor(np.array([5.0, 6.0]))
    np.testing.assert_array_equal(x.numpy(), [1.0, 5.0, 6.0])
    plain = mg.zeros(3)
    plain[1:] = 2.0
    np.testing.assert_array_equal(plain.numpy(), [0.0, 2.0, 2.0])


# ------------------------------------------------------------------------------ gather
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_gradcheck_and_torch(dim, rng, torch, parity, check_grads):
    x = rng.standard_normal(SHAPE)
    index_shape = list(SHAPE)
    index_shape[dim] = 6  # more picks than elements: some repeat
    index_shape[(dim + 1) % 3] -= 1  # smaller than the input in another dim, as torch allows
    index = rng.integers(0, SHAPE[dim], index_shape)
    parity(lambda t: t.gather(dim, index), lambda t: t.gather(dim, torch.tensor(index)), x)
    parity(
        lambda t: mg.gather(t, dim, mg.tensor(index)),
        lambda t: t.gather(dim, torch.tensor(index)),
        x,
    )
    check_grads(lambda t: t.gather(dim, index), mg.tensor(x, requires_grad=True))


def test_gather_errors():
    x = mg.ones(2, 3)
    with pytest.raises(ValueError, match="as many dims"):
        x.gather(1, np.array([0, 1]))
    with pytest.raises(IndexError, match="out of"):
        x.gather(1, np.array([[3], [0]]))


# ------------------------------------------------------------------------- masked_fill
@pytest.mark.parametrize(
    "mask",
    [MASK2D, MASK2D[0], np.array(True), MASK2D[:, :1]],
    ids=["same_shape", "row_broadcast", "0d", "column_broadcast"],
)
def test_masked_fill_gradcheck_and_torch(mask, rng, torch, parity, check_grads):
    x = rng.standard_normal((3, 4))
    for value in (-1.5, 0, float("-inf")):
        parity(
            lambda t, v=value: t.masked_fill(mask, v),
            lambda t, v=value: t.masked_fill(torch.tensor(mask), v),
            x,
        )
    keep_some = ~mask if mask.all() else mask  # an all-True mask has a zero Jacobian
    check_grads(
        lambda t: t.masked_fill(mg.tensor(keep_some), 2.0), mg.tensor(x, requires_grad=True)
    )


def test_masked_fill_with_tensor_value_gets_its_gradient(rng, torch, parity, check_grads):
    x, value = rng.standard_normal((3, 4)), np.array(0.7)
    parity(
        lambda t, v: t.masked_fill(MASK2D, v),
        lambda t, v: t.masked_fill(torch.tensor(MASK2D), v),
        x,
        value,
    )
    check_grads(
        lambda t, v: t.masked_fill(MASK2D, v),
        mg.tensor(x, requires_grad=True),
        mg.tensor(value, requires_grad=True),
    )


def test_masked_fill_keeps_dtype():
    assert mg.ones(2).masked_fill(np.array([True, False]), 3).dtype == mg.float32
    y = mg.tensor([1, 2]).masked_fill(np.array([True, False]), 7)
    assert y.dtype == mg.int64 and y.tolist() == [7, 2]


def test_masked_fill_errors():
    with pytest.raises(TypeError, match="bool"):
        mg.ones(3).masked_fill(np.array([1, 0, 1]), 0.0)
    with pytest.raises(ValueError, match=r"\[2\].*\[3\]"):
        mg.ones(3).masked_fill(np.array([True, False]), 0.0)
    with pytest.raises(ValueError, match="0-dim"):
        mg.ones(3).masked_fill(np.array([True, False, True]), mg.ones(3))


# ------------------------------------------------------------------------------- where
WHERE_SHAPES = [
    ((3, 4), (3, 4), (3, 4)),
    ((3, 1), (4,), (3, 4)),
    ((4,), (3, 4), ()),
    ((2,), (), (2,)),
]


@pytest.mark.parametrize("which", ["both", "first", "second"])
@pytest.mark.parametrize("shapes", WHERE_SHAPES, ids=str)
def test_where_gradcheck_and_torch(shapes, which, rng, torch, parity, check_grads):
    cs, sa, sb = shapes
    cond = np.arange(int(np.prod(cs))).reshape(cs) % 2 == 0  # both branches are taken
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    grad = [which != "second", which != "first"]
    parity(
        lambda x, y: mg.where(mg.tensor(cond), x, y),
        lambda x, y: torch.where(torch.tensor(cond), x, y),
        a,
        b,
        grad=grad,
    )
    check_grads(
        lambda x, y: mg.where(cond, x, y),
        mg.tensor(a, requires_grad=grad[0]),
        mg.tensor(b, requires_grad=grad[1]),
    )


@pytest.mark.parametrize("taken", [True, False])
def test_where_with_a_0d_condition(taken, rng, torch, parity, check_grads):
    # A 0-d condition picks one whole input; the other's gradient is zero, so only the
    # taken one is gradchecked (a zero Jacobian checks nothing).
    cond = np.array(taken)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3,))
    parity(
        lambda x, y: mg.where(mg.tensor(cond), x, y),
        lambda x, y: torch.where(torch.tensor(cond), x, y),
        a,
        b,
        grad=[True, True],
    )
    check_grads(
        lambda x, y: mg.where(cond, x, y),
        mg.tensor(a, requires_grad=taken),
        mg.tensor(b, requires_grad=not taken),
    )


def test_where_with_scalars_matches_torch(rng, torch):
    cond = np.array([True, False, True])
    cases = [
        (lambda T: T(np.array([1.0, 2.0, 3.0], dtype=np.float32)), 0.5),
        (lambda T: T(np.array([1, 2, 3])), 0.5),  # int tensor with a float: float32
        (lambda T: T(np.array([1, 2, 3])), 7),
        (lambda T: T(np.array([1.0, 2.0, 3.0])), 2),
    ]
    for make, scalar in cases:
        for order in (0, 1):
            args_mg = (make(mg.tensor), scalar)[:: 1 - 2 * order]
            args_t = (make(torch.tensor), scalar)[:: 1 - 2 * order]
            y = mg.where(mg.tensor(cond), *args_mg)
            ref = torch.where(torch.tensor(cond), *args_t)
            assert str(y.dtype) == str(ref.dtype).replace("torch.", ""), (scalar, order)
            np.testing.assert_array_equal(y.numpy(), ref.numpy())


def test_where_promotes_tensors(torch):
    cond = np.array([True, False])
    a32 = np.array([1.0, 2.0], dtype=np.float32)
    y = mg.where(cond, mg.tensor(a32), mg.tensor(np.array([3.0, 4.0])))
    ref = torch.where(
        torch.tensor(cond), torch.tensor(a32), torch.tensor([3.0, 4.0], dtype=torch.float64)
    )
    assert str(y.dtype) == str(ref.dtype).replace("torch.", "")


def test_where_errors():
    with pytest.raises(TypeError, match="bool"):
        mg.where(mg.tensor([1, 0]), mg.ones(2), mg.zeros(2))
    with pytest.raises(ValueError, match=r"\[3\].*\[4\]"):
        mg.where(np.array([True, False, True]), mg.ones(4), 0.0)


# ------------------------------------------------------------------------- tril / triu
@pytest.mark.parametrize("diagonal", [-1, 0, 1])
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_match_torch(name, diagonal, rng, parity, check_grads):
    x = rng.standard_normal((2, 3, 4))
    fn = lambda t: getattr(t, name)(diagonal)  # noqa: E731
    parity(fn, fn, x)
    check_grads(fn, mg.tensor(x, requires_grad=True))


def test_gather_refuses_a_negative_index_and_take_along_dim_counts_it_from_the_end():
    """PyTorch's gather raises for index -1 (RuntimeError); take_along_dim wraps it."""
    x = mg.arange(6.0).reshape(2, 3)
    index = mg.tensor([[-1, 0], [2, -3]])
    with pytest.raises(RuntimeError, match="out of bounds for dimension 1 with size 3"):
        x.gather(1, index)
    assert mg.take_along_dim(x, index, 1).tolist() == [[2.0, 0.0], [5.0, 3.0]]

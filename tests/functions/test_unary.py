"""Pointwise functions, clamp, maximum and minimum (minigrad/functions/unary.py)."""

import numpy as np
import pytest

import minigrad as mg

# name -> (function, (low, high) of the inputs): domains keep away from kinks and poles
UNARY = {
    "exp": (lambda x: x.exp(), (-2.0, 2.0)),
    "log": (lambda x: x.log(), (0.2, 3.0)),
    "sqrt": (lambda x: x.sqrt(), (0.2, 3.0)),
    "rsqrt": (lambda x: x.rsqrt(), (0.2, 3.0)),
    "tanh": (lambda x: x.tanh(), (-3.0, 3.0)),
    "sigmoid": (lambda x: x.sigmoid(), (-5.0, 5.0)),
    "relu": (lambda x: x.relu(), (-2.0, 2.0)),
    "abs": (lambda x: x.abs(), (-2.0, 2.0)),
    "sin": (lambda x: x.sin(), (-3.0, 3.0)),
    "cos": (lambda x: x.cos(), (-3.0, 3.0)),
    "clamp": (lambda x: x.clamp(-0.5, 0.7), (-2.0, 2.0)),
    "clamp_min": (lambda x: x.clamp(min=-0.5), (-2.0, 2.0)),
    "clamp_max": (lambda x: x.clamp(max=0.3), (-2.0, 2.0)),
    "clip": (lambda x: x.clip(-0.5, 0.5), (-2.0, 2.0)),
}
KINKS = {"relu": [0.0], "abs": [0.0], "clamp": [-0.5, 0.7], "clamp_min": [-0.5],
         "clamp_max": [0.3], "clip": [-0.5, 0.5]}  # fmt: skip


def _away_from_kinks(x: np.ndarray, kinks) -> np.ndarray:
    for k in kinks:
        near = np.abs(x - k) < 0.05
        x = np.where(near, k + 0.1, x)
    return x


@pytest.mark.parametrize("name", UNARY)
def test_unary_gradcheck(name, rng, check_grads):
    fn, (low, high) = UNARY[name]
    data = _away_from_kinks(rng.uniform(low, high, (3, 4)), KINKS.get(name, []))
    check_grads(fn, mg.tensor(data, requires_grad=True))


@pytest.mark.parametrize("name", UNARY)
def test_unary_matches_torch(name, rng, parity):
    fn, (low, high) = UNARY[name]
    parity(fn, fn, rng.uniform(low, high, (3, 4)))


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sigmoid", "sin"])
def test_unary_functional_form_and_int_input(name):
    x = mg.tensor([1, 2, 3])
    y = getattr(mg, name)(x)
    assert y.dtype == mg.float32  # integers become float32, as in torch
    ref = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh, "sin": np.sin,
           "sigmoid": lambda a: 1 / (1 + np.exp(-a))}[name]  # fmt: skip
    np.testing.assert_allclose(y.numpy(), ref(np.array([1.0, 2.0, 3.0])), rtol=1e-6)


def test_relu_and_abs_of_int_stay_int():
    x = mg.tensor([-2, 0, 3])
    assert x.relu().dtype == mg.int64 and x.relu().tolist() == [0, 0, 3]
    assert x.abs().dtype == mg.int64 and x.abs().tolist() == [2, 0, 3]


# -------------------------------------------------------------------- special points
def test_abs_and_relu_at_zero_have_zero_gradient(parity):
    x = np.array([-1.0, 0.0, 2.0])
    g_abs = parity(lambda t: t.abs(), lambda t: t.abs(), x)
    g_relu = parity(lambda t: t.relu(), lambda t: t.relu(), x)
    assert g_abs is not None and g_relu is not None


def test_abs_and_relu_at_zero_without_torch():
    x = mg.tensor(np.array([-1.0, 0.0, 2.0]), requires_grad=True)
    x.abs().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-1.0, 0.0, 1.0])
    x.grad = None
    x.relu().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 1.0])


def test_clamp_boundaries_pass_the_gradient(parity):
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    parity(lambda t: t.clamp(-0.5, 0.5), lambda t: t.clamp(-0.5, 0.5), x)
    parity(lambda t: t.clamp(min=0.0), lambda t: t.clamp(min=0.0), x)
    parity(lambda t: t.clamp(max=0.0), lambda t: t.clamp(max=0.0), x)
    x_mg = mg.tensor(x, requires_grad=True)
    x_mg.clamp(-0.5, 0.5).sum().backward()
    np.testing.assert_array_equal(x_mg.grad.numpy(), [0.0, 1.0, 1.0, 1.0, 0.0])


def test_clamp_with_min_above_max_gives_max(parity):
    x = np.array([-1.0, 0.0, 1.0, 2.0])
    parity(lambda t: t.clamp(1.0, 0.0), lambda t: t.clamp(1.0, 0.0), x)


def test_clamp_with_tensor_bounds_matches_torch(parity):
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    lo = np.array([-0.5, -0.5, -0.5, 0.0, 0.0, 0.0])
    hi = np.array([1.0, 1.0, 1.0, 0.5, 1.0, 1.5])
    parity(lambda t, a, b: t.clamp(a, b), lambda t, a, b: t.clamp(a, b), x, lo, hi)
    parity(lambda t, a: t.clamp(min=a), lambda t, a: t.clamp(min=a), x, lo)
    parity(lambda t, b: t.clamp(max=b), lambda t, b: t.clamp(max=b), x, hi)


def test_clamp_needs_a_bound():
    with pytest.raises(ValueError, match="min and max"):
        mg.ones(2).clamp()


def test_clamp_of_int_tensor_with_float_bound_matches_torch(torch):
    y = mg.tensor([1, 2, 3]).clamp(min=1.5)
    yt = torch.tensor([1, 2, 3]).clamp(min=1.5)
    assert str(y.dtype) == str(yt.dtype).replace("torch.", "")
    np.testing.assert_array_equal(y.numpy(), yt.numpy())
    assert mg.tensor([1, 5]).clamp(0, 3).dtype == mg.int64


def test_sigmoid_of_huge_inputs_does_not_overflow():
    with np.errstate(over="raise", invalid="raise"):
        y = mg.tensor(np.array([-1e4, -800.0, 0.0, 800.0, 1e4])).sigmoid()
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.0, 0.5, 1.0, 1.0])
    x32 = mg.tensor([-100.0, 100.0], requires_grad=True)
    y32 = x32.sigmoid()
    assert y32.dtype == mg.float32
    y32.sum().backward()
    assert np.all(np.isfinite(x32.grad.numpy()))


def test_sign_has_a_zero_gradient():
    """As in PyTorch: sign is part of the graph, and its derivative is 0 everywhere."""
    x = mg.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    s = x.sign()
    assert s.requires_grad
    np.testing.assert_array_equal(s.numpy(), [-1.0, 0.0, 1.0])
    s.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


# ------------------------------------------------------------------- maximum / minimum
BROADCAST_PAIRS = [((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((5,), (5,))]


@pytest.mark.parametrize("which", ["both", "first", "second"])
@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_gradcheck(name, shapes, which, rng, check_grads):
    # values on a grid 0.1 apart and shifted by 0.05 between operands: never within eps
    a = rng.integers(-20, 20, shapes[0]) * 0.1
    b = rng.integers(-20, 20, shapes[1]) * 0.1 + 0.05
    a = mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=which != "second")
    b = mg.tensor(np.asarray(b, dtype=np.float64), requires_grad=which != "first")
    check_grads(lambda x, y: getattr(x, name)(y), a, b)


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_with_ties_match_torch(name, shapes, rng, parity):
    a = rng.integers(-2, 3, shapes[0]).astype(np.float64)  # many ties
    b = rng.integers(-2, 3, shapes[1]).astype(np.float64)
    parity(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), a, b)
    parity(getattr(mg, name), lambda x, y: getattr(x, name)(y), a, b)


def test_maximum_tie_splits_the_gradient():
    a = mg.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    b = mg.tensor(np.array([1.0, 5.0, 0.0]), requires_grad=True)
    a.maximum(b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0.5, 0.0, 1.0])
    np.testing.assert_array_equal(b.grad.numpy(), [0.5, 1.0, 0.0])


def test_max_min_of_two_tensors_is_elementwise(leaf):
    a, b = leaf((3,)), leaf((3,))
    np.testing.assert_array_equal(a.max(b).numpy(), np.maximum(a.numpy(), b.numpy()))
    np.testing.assert_array_equal(a.min(b).numpy(), np.minimum(a.numpy(), b.numpy()))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_shape_mismatch_names_both_shapes(name):
    with pytest.raises(ValueError, match=r"\[2, 3\].*\[4\]"):
        getattr(mg.ones(2, 3), name)(mg.ones(4))

"""``unbroadcast``: reducing a broadcast gradient back to an input's shape
(minigrad/functions/broadcast.py), and the gradient shapes of every broadcasting op.

The property tests use the adjoint identity rather than re-deriving the sums:
broadcasting ``B`` is linear, and ``unbroadcast`` must be its adjoint, so for every
``v`` of the input's shape and ``G`` of the broadcast shape
``<unbroadcast(G), v> == <G, broadcast_to(v)>``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from minigrad.functions.broadcast import broadcast_axes, unbroadcast

FAST = settings(max_examples=40, deadline=None)


def _tensor(a):
    return mg.Tensor._make(np.asarray(a, dtype=np.float64), False, None)


@pytest.mark.parametrize(
    "shape, grad_shape, axes",
    [
        ((3, 1), (2, 3, 4), (0, 2)),
        ((4,), (2, 3, 4), (0, 1)),
        ((), (2, 3), (0, 1)),
        ((1, 1), (5, 6), (0, 1)),
        ((2, 3), (2, 3), ()),
        ((1,), (1,), ()),
        ((2, 1, 3), (4, 2, 5, 3), (0, 2)),
    ],
)
def test_broadcast_axes_and_unbroadcast_examples(shape, grad_shape, axes):
    assert broadcast_axes(grad_shape, shape) == axes
    g = np.arange(np.prod(grad_shape), dtype=np.float64).reshape(grad_shape)
    out = unbroadcast(_tensor(g), shape)
    assert out.shape == shape
    expected = g.sum(axis=axes).reshape(shape) if axes else g
    np.testing.assert_array_equal(out.numpy(), expected)


def test_unbroadcast_returns_the_same_tensor_when_shapes_match():
    g = _tensor(np.ones((2, 3)))
    assert unbroadcast(g, (2, 3)) is g


@FAST
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=1, max_dims=4, max_side=4),
    seed=st.integers(0, 2**16),
)
def test_unbroadcast_is_the_adjoint_of_broadcasting(shapes, seed):
    (shape,) = shapes.input_shapes
    full = shapes.result_shape
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(full)
    v = rng.standard_normal(shape)
    expected = np.sum(g * np.broadcast_to(v, full))
    out = unbroadcast(_tensor(g), shape)  # backward's Tensors
    assert out.shape == shape
    np.testing.assert_allclose(np.sum(out.numpy() * v), expected)
    out = unbroadcast(g, shape)  # backward_array's arrays
    assert out.shape == shape
    np.testing.assert_allclose(np.sum(out * v), expected)


BINARY_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a.abs() ** b,
    "maximum": lambda a, b: a.maximum(b),
    "minimum": lambda a, b: mg.minimum(a, b),
    "where": lambda a, b: mg.where(a > 0, a, b),
}


@FAST
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3),
    name=st.sampled_from(sorted(BINARY_OPS)),
    seed=st.integers(0, 2**16),
)
def test_binary_op_gradients_have_input_shapes_and_match_directional_derivatives(
    shapes, name, seed
):
    sa, sb = shapes.input_shapes
    rng = np.random.default_rng(seed)
    a_data = rng.uniform(0.5, 1.5, sa) * rng.choice([-1.0, 1.0], sa)
    b_data = rng.uniform(0.5, 1.5, sb) * rng.choice([-1.0, 1.0], sb)
    a = mg.tensor(a_data, requires_grad=True)
    b = mg.tensor(b_data, requires_grad=True)
    fn = BINARY_OPS[name]
    y = fn(a, b)
    assert y.shape == shapes.result_shape
    cot = rng.standard_normal(y.shape)
    y.backward(mg.tensor(cot))
    assert a.grad.shape == sa and b.grad.shape == sb
    # <grad, v> equals the derivative of <cot, fn> along v (central differences, float64)
    eps = 1e-6
    for x, other_first, v in (
        (a, True, rng.standard_normal(sa)),
        (b, False, rng.standard_normal(sb)),
    ):

        def f(delta, x=x, other_first=other_first):
            moved = mg.tensor(x.numpy() + delta)
            args = (moved, b.detach()) if other_first else (a.detach(), moved)
            return np.sum(cot * fn(*args).numpy())

        numerical = (f(eps * v) - f(-eps * v)) / (2 * eps)
        np.testing.assert_allclose(np.sum(x.grad.numpy() * v), numerical, rtol=1e-5, atol=1e-6)


@FAST
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
    seed=st.integers(0, 2**16),
)
def test_only_one_operand_requiring_grad_gets_a_gradient(shapes, seed):
    sa, sb = shapes.input_shapes
    rng = np.random.default_rng(seed)
    a = mg.tensor(rng.standard_normal(sa), requires_grad=True)
    b = mg.tensor(rng.standard_normal(sb))
    (a * b + b).sum().backward()
    assert a.grad.shape == sa and b.grad is None
    expected = np.broadcast_to(b.numpy(), shapes.result_shape)
    np.testing.assert_allclose(np.sum(a.grad.numpy()), np.sum(expected))


@pytest.mark.parametrize("name", sorted(BINARY_OPS))
def test_incompatible_shapes_name_both(name):
    a, b = mg.ones(2, 3), mg.ones(3, 2)
    with pytest.raises(ValueError, match=r"\[2, 3\].*\[3, 2\]"):
        BINARY_OPS[name](a, b)


def test_comparison_shape_error_names_both():
    with pytest.raises(ValueError, match=r"\[2, 3\].*\[3, 2\]"):
        _ = mg.ones(2, 3) < mg.ones(3, 2)

"""Where PyTorch's result stays in the graph with a zero (or identity) gradient,
minigrad's does too: ``backward()`` works and gives PyTorch's numbers, instead of
raising because the result is a constant."""

import numpy as np
import pytest

import minigrad as mg


def _leaf(values):
    return mg.tensor(np.array(values, dtype=np.float64), requires_grad=True)


def test_nextafter_passes_the_gradient_to_its_first_input_only():
    a, b = _leaf([1.0, 2.0]), _leaf([2.0, 0.0])
    mg.nextafter(a, b).sum().backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [0.0, 0.0]


def test_fill_gives_zero_to_the_input_and_the_sum_to_a_tensor_value():
    x, v = _leaf([1.0, float("inf"), float("nan")]), _leaf(3.0)
    y = mg.fill(x, v)
    assert y.tolist() == [3.0, 3.0, 3.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0] and v.grad.item() == 3.0
    x = _leaf([1.0, 2.0])
    mg.fill(x, 5.0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("shape, dim", [((0,), None), ((0,), 0), ((3, 0), 1)])
def test_the_empty_product_is_one_and_differentiable(shape, dim):
    x = mg.zeros(*shape, dtype=mg.float64, requires_grad=True)
    y = x.prod() if dim is None else x.prod(dim)
    assert (y.numpy() == 1).all() and y.requires_grad
    y.sum().backward()
    assert x.grad.shape == shape


def test_matrix_power_zero_is_the_identity_with_a_zero_gradient():
    a = _leaf([[[2.0, 1.0], [0.0, 3.0]]] * 2)
    y = mg.linalg.matrix_power(a, 0)
    assert y.tolist() == [[[1.0, 0.0], [0.0, 1.0]]] * 2
    y.sum().backward()
    assert (a.grad.numpy() == 0).all()


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x: lib.nextafter(x, x * 2),
        lambda lib, x: lib.fill(x, 2.0),
        lambda lib, x: x[:0].prod(),
        lambda lib, x: lib.linalg.matrix_power(x.reshape(2, 2), 0),
    ],
)
def test_the_gradients_are_pytorchs(torch, fn):
    values = np.array([1.5, -2.0, 0.5, 3.0])
    grads = []
    for lib in (mg, torch):
        x = lib.tensor(values, requires_grad=True)
        fn(lib, x).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)

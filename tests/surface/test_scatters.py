"""Scatters into views, ``put``, ``index_reduce`` and ``fill_diagonal_``
(minigrad/surface/scatters.py) beyond the OpInfo entries: the in-place variants, gradcheck of
``as_strided_scatter`` (whose gradient in PyTorch 2.13 fails PyTorch's own gradcheck,
so the OpInfo entry compares values only), and PyTorch's errors."""

import numpy as np
import pytest

import minigrad as mg


def test_as_strided_scatter_gradient(rng):
    x = mg.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    src = mg.tensor(rng.standard_normal((2, 2)), requires_grad=True)
    assert mg.gradcheck(lambda a, b: mg.as_strided_scatter(a, b, (2, 2), (1, 2), 1), (x, src))
    out = mg.as_strided_scatter(x, src, (2, 2), (1, 2), 1)
    out.sum().backward()
    written = np.zeros(12, bool)
    written[[1, 2, 3, 4]] = True  # offset 1, strides (1, 2): places 1, 3, 2, 4
    np.testing.assert_array_equal(x.grad.numpy().reshape(-1), (~written).astype(float))
    np.testing.assert_array_equal(src.grad.numpy(), np.ones((2, 2)))


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("mg.diagonal_scatter(mg.zeros(3, 3), mg.ones(2))", RuntimeError),
        ("mg.diagonal_scatter(mg.zeros(3, 3), mg.ones(3), 0, 1, 1)", RuntimeError),
        ("mg.select_scatter(mg.zeros(3, 3), mg.ones(3), 0, 5)", IndexError),
        ("mg.slice_scatter(mg.zeros(3, 3), mg.ones(3, 3), 1, 1)", RuntimeError),
        ("mg.as_strided_scatter(mg.zeros(2, 2), mg.ones(3), (3,), (2,))", RuntimeError),
        ("mg.put(mg.zeros(3), mg.tensor([3]), mg.tensor([1.0]))", IndexError),
        ("mg.put(mg.zeros(3), mg.tensor([1, 2]), mg.tensor([1.0]))", IndexError),
        ("mg.put(mg.zeros(3), mg.tensor([1], dtype=mg.int32), mg.tensor([1.0]))", RuntimeError),
        ("mg.zeros(3).index_reduce(0, mg.tensor([0]), mg.tensor([2.0]), 'sum')", RuntimeError),
        ("mg.zeros(3).fill_diagonal_(1)", RuntimeError),
        ("mg.zeros(2, 3, 2).fill_diagonal_(1)", RuntimeError),
    ],
)
def test_errors(text, error):
    with pytest.raises(error):
        eval(text)


def test_put_():
    x = mg.zeros(2, 3)
    version = x._version
    assert x.put_(mg.tensor([0, -1, 0]), mg.tensor([1.0, 2.0, 3.0]), accumulate=True) is x
    assert x._version == version + 1
    assert x.tolist() == [[4.0, 0.0, 0.0], [0.0, 0.0, 2.0]]


def test_index_reduce_in_place_is_recorded(torch):
    def run(lib):
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=lib.float64, requires_grad=True)
        s = lib.tensor([[2.0, 1.0], [0.5, 3.0]], dtype=lib.float64, requires_grad=True)
        y = a * 1
        y.index_reduce_(0, lib.tensor([2, 0]), s, "mean", include_self=False)
        (y * lib.tensor([[1.0], [2.0], [3.0]], dtype=lib.float64)).sum().backward()
        return y.detach().numpy(), a.grad.numpy(), s.grad.numpy()

    for got, ref in zip(run(mg), run(torch)):
        np.testing.assert_allclose(got, ref)


@pytest.mark.parametrize(
    ("shape", "wrap"),
    [
        ((3, 3), False),
        ((2, 4), False),
        ((5, 2), False),
        ((5, 2), True),
        ((7, 3), True),
        ((2, 2, 2), False),
    ],
)
def test_fill_diagonal_(shape, wrap, torch):
    x = mg.zeros(*shape)
    version = x._version
    assert x.fill_diagonal_(1.5, wrap) is x
    assert x._version == version + 1
    np.testing.assert_array_equal(x.numpy(), torch.zeros(*shape).fill_diagonal_(1.5, wrap))


def test_fill_diagonal_without_torch():
    expected = np.zeros((5, 2))
    np.fill_diagonal(expected, 2.0, wrap=True)
    np.testing.assert_array_equal(mg.zeros(5, 2).fill_diagonal_(2.0, wrap=True).numpy(), expected)


def test_fill_diagonal_on_a_non_leaf_is_recorded():
    a = mg.ones(2, 2, dtype=mg.float64, requires_grad=True)
    y = a * 3
    y.fill_diagonal_(0.0)
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0.0, 3.0], [3.0, 0.0]])

"""Placing values along a dim: 0-d tensors, scatter_reduce's prod / amax / amin with
PyTorch's gradients, and the shapes and dtypes PyTorch refuses."""

import numpy as np
import pytest

import minigrad as mg


def _leaf(values):
    return mg.tensor(np.array(values, dtype=np.float64), requires_grad=True)


@pytest.mark.parametrize(
    "op, want",
    [
        (lambda x: mg.scatter(x, 0, mg.tensor(0), mg.tensor(5.0)), 5.0),
        (lambda x: mg.scatter_add(x, 0, mg.tensor([0]), mg.tensor([5.0])), 8.0),
        (lambda x: mg.index_add(x, 0, mg.tensor([0]), mg.tensor(2.0), alpha=2), 7.0),
        (lambda x: mg.index_copy(x, -1, mg.tensor([0]), mg.tensor(4.0)), 4.0),
        (lambda x: mg.index_fill(x, 0, mg.tensor([0]), mg.tensor(7.0)), 7.0),
        (lambda x: mg.scatter_reduce(x, 0, mg.tensor([0]), mg.tensor([5.0]), "prod"), 15.0),
        (lambda x: mg.gather(x, 0, mg.tensor(0)), 3.0),
    ],
)
def test_a_0d_tensor_is_a_vector_of_one_element(op, want):
    out = op(mg.tensor(3.0))
    assert out.shape == () and out.item() == want


def test_gather_keeps_the_index_shape_and_an_empty_index_gives_an_empty_result():
    assert mg.gather(mg.tensor(3.0), 0, mg.tensor([0])).tolist() == [3.0]
    out = mg.gather(mg.tensor([True, False]), 0, mg.tensor(np.zeros((2, 0), np.uint8)))
    assert out.shape == (2, 0) and out.dtype == mg.bool


def test_amax_shares_the_gradient_among_ties_and_prod_skips_the_zero():
    x, src = _leaf([1.0, 5.0]), _leaf([5.0, 2.0])
    out = mg.scatter_reduce(x, 0, mg.tensor([1, 0]), src, "amax")  # [max(1, 2), max(5, 5)]
    assert out.tolist() == [2.0, 5.0]
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 0.5] and src.grad.tolist() == [0.5, 1.0]

    x, src = _leaf([2.0, 3.0]), _leaf([0.0, 4.0, 5.0])
    out = mg.scatter_reduce(x, 0, mg.tensor([0, 0, 1]), src, "prod")  # [2*0*4, 3*5]
    assert out.tolist() == [0.0, 15.0]
    out.sum().backward()
    # position 0 has one zero: only the zero gets a gradient, the product of the others
    assert x.grad.tolist() == [0.0, 5.0] and src.grad.tolist() == [8.0, 0.0, 3.0]


def test_without_include_self_integers_start_from_the_dtypes_extreme():
    x = mg.tensor([0, 0, 7])
    src = mg.tensor([-3, -5])
    idx = mg.tensor([0, 1])
    assert mg.scatter_reduce(x, 0, idx, src, "amax", include_self=False).tolist() == [-3, -5, 7]
    assert mg.scatter_reduce(x, 0, idx, -src, "amin", include_self=False).tolist() == [3, 5, 7]


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients_pass_gradcheck(reduce, include_self):
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.uniform(0.5, 2.0, (4, 3)), requires_grad=True)
    src = mg.tensor(rng.uniform(0.5, 2.0, (5, 3)), requires_grad=True)
    idx = mg.tensor(rng.integers(0, 4, (5, 3)))
    assert mg.gradcheck(
        lambda a, b: mg.scatter_reduce(a, 0, idx, b, reduce, include_self=include_self), (x, src)
    )


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_pytorch_with_ties_and_zeros(torch, reduce, include_self):
    x = np.array([[1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    src = np.array([[2.0, 0.0], [2.0, 5.0], [1.0, 2.0], [0.0, 2.0]])
    idx = np.array([[1, 0], [1, 0], [0, 2], [2, 2]])
    grads = []
    for lib in (mg, torch):
        a = lib.tensor(x, requires_grad=True)
        b = lib.tensor(src, requires_grad=True)
        out = lib.scatter_reduce(a, 0, lib.tensor(idx), b, reduce, include_self=include_self)
        (out * lib.tensor(np.arange(6.0).reshape(3, 2) + 1)).sum().backward()
        grads.append((out.detach().numpy(), a.grad.numpy(), b.grad.numpy()))
    for got, want in zip(*grads):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(
    "op",
    [
        lambda: mg.scatter(
            mg.zeros(3, 5, dtype=mg.float64), 0, mg.tensor([[0, 1]]), mg.zeros(2, 5)
        ),  # fmt: skip
        lambda: mg.scatter(mg.zeros(3, 5), 0, mg.tensor([[0, 1]]), mg.zeros(2, 5, 2)),
        lambda: mg.scatter(mg.zeros(3, 5), 0, mg.tensor([[34, 1]]), mg.zeros(2, 5)),
        lambda: mg.index_add(mg.zeros(3, 2), 0, mg.tensor([0, 2]), mg.zeros(2)),
        lambda: mg.gather(mg.zeros(1, 1), 1, mg.tensor([[0, 0], [1, 0]])),
        lambda: mg.gather(mg.zeros(2, 2), 1, mg.tensor([[0, 23], [1, 0]])),
    ],
)
def test_what_pytorch_refuses_raises_its_runtime_error(op):
    with pytest.raises(RuntimeError):
        op()

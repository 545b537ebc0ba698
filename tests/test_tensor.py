"""The Tensor's state and user-facing methods (minigrad/tensor.py)."""

import copy

import numpy as np
import pytest

import minigrad as mg


def test_array_properties():
    x = mg.tensor(np.zeros((2, 3, 4)))
    assert x.shape == (2, 3, 4) and x.ndim == 3 and x.dim() == 3
    assert x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert x.numel() == 24 and len(x) == 2 and x.dtype == mg.float64
    assert x.device == "cpu" and x.numpy() is x.numpy()
    with pytest.raises(IndexError, match="out of range"):
        x.size(3)


def test_item_tolist_and_conversions():
    assert mg.tensor([[2.5]]).item() == 2.5
    assert mg.tensor([1, 2]).tolist() == [1, 2]
    assert float(mg.tensor(1.5)) == 1.5 and int(mg.tensor(3)) == 3
    assert bool(mg.tensor(True)) and not bool(mg.tensor(0.0))
    assert list(range(mg.tensor(3))) == [0, 1, 2]  # __index__
    with pytest.raises(ValueError, match=r"one element.*\[2\]"):
        mg.tensor([1.0, 2.0]).item()
    with pytest.raises(TypeError, match="0-d"):
        len(mg.tensor(1.0))
    with pytest.raises(TypeError, match="integer"):
        list(range(mg.tensor(3.0)))


def test_iteration_yields_differentiable_rows():
    x = mg.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    rows = list(x)
    assert len(rows) == 3 and rows[1].tolist() == [2.0, 3.0]
    sum(r.sum() * (i + 1) for i, r in enumerate(rows)).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 1], [2, 2], [3, 3]])


def test_repr_shows_dtype_and_graph_state():
    assert repr(mg.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(mg.tensor([1, 2])) == "tensor([1, 2])"
    assert "dtype=float64" in repr(mg.tensor(np.array([1.0])))
    x = mg.tensor([1.0], requires_grad=True)
    assert "requires_grad=True" in repr(x)
    assert "grad_fn=<MulScalar>" in repr(x * 2)


# ------------------------------------------------------------------ autograd state
def test_leaf_and_grad_fn():
    x = mg.tensor([1.0], requires_grad=True)
    y = x * 2
    assert x.is_leaf and x.grad_fn is None
    assert not y.is_leaf and y.grad_fn is not None and y.requires_grad
    z = mg.tensor([1.0]) * 2  # no input requires grad: no graph
    assert z.is_leaf and not z.requires_grad


def test_requires_grad_setter_rules():
    x = mg.tensor([1.0])
    assert x.requires_grad_() is x and x.requires_grad
    x.requires_grad = False
    assert not x.requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        mg.tensor([1, 2]).requires_grad_()
    y = mg.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="detach"):
        y.requires_grad = False


def test_integer_and_bool_results_carry_no_gradient():
    x = mg.tensor([1.5, -2.0], requires_grad=True)
    assert not x.argmax().requires_grad
    assert not (x > 0).requires_grad
    assert not x.long().requires_grad


def test_grad_setter_checks_type_and_shape():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    x.grad = mg.tensor([0.5, 0.5])
    assert x.grad.tolist() == [0.5, 0.5]
    x.grad = None
    assert x.grad is None
    with pytest.raises(TypeError, match="Tensor or None"):
        x.grad = np.ones(2)
    with pytest.raises(RuntimeError, match=r"\[3\].*\[2\]"):
        x.grad = mg.ones(3)


def test_detach_shares_data_and_cuts_the_graph():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    d = y.detach()
    assert d.numpy() is y.numpy() and not d.requires_grad and d.grad_fn is None
    (d * x).sum().backward()  # d is a constant
    np.testing.assert_array_equal(x.grad.numpy(), d.numpy())


def test_deepcopy_of_leaf_and_non_leaf():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    c = copy.deepcopy(x)
    assert c is not x and c.requires_grad and c.numpy() is not x.numpy()
    np.testing.assert_array_equal(c.numpy(), x.numpy())
    with pytest.raises(RuntimeError, match="leaf"):
        copy.deepcopy(x * 2)


def test_tensors_hash_by_identity_and_compare_elementwise():
    a, b = mg.tensor([1.0, 2.0]), mg.tensor([1.0, 2.0])
    assert len({a: 1, b: 2}) == 2
    eq = a == b
    assert isinstance(eq, mg.Tensor) and eq.dtype == mg.bool and eq.tolist() == [True, True]


# ------------------------------------------------------------------ comparisons, logic
def test_comparisons_against_torch(rng, torch):
    a, b = rng.integers(0, 3, (3, 4)).astype(float), rng.integers(0, 3, (4,)).astype(float)
    ours, theirs = (mg.tensor(a), mg.tensor(b)), (torch.tensor(a), torch.tensor(b))
    for name in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        y = getattr(ours[0], name)(ours[1])
        ref = getattr(theirs[0], name)(theirs[1])
        assert y.dtype == mg.bool and not y.requires_grad
        np.testing.assert_array_equal(y.numpy(), ref.numpy())
        np.testing.assert_array_equal(
            getattr(ours[0], name)(1.0).numpy(), getattr(theirs[0], name)(1.0).numpy()
        )


def test_logical_ops():
    p, q = mg.tensor([True, True, False]), mg.tensor([True, False, False])
    assert (p & q).tolist() == [True, False, False]
    assert (p | q).tolist() == [True, True, False]
    assert (~p).tolist() == [False, False, True]
    assert p.logical_not().tolist() == [False, False, True]
    assert mg.tensor([0.0, 1.0]).all().item() is False
    assert mg.tensor([0.0, 1.0]).any().item() is True
    with pytest.raises(TypeError, match="bool"):
        ~mg.tensor([1.0])


# ------------------------------------------------------------------ in-place methods
@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.zero_(),
        lambda t: t.fill_(1.0),
        lambda t: t.copy_(np.ones(2)),
        lambda t: t.add_(1.0),
        lambda t: t.mul_(2.0),
    ],
    ids=["zero_", "fill_", "copy_", "add_", "mul_"],
)
def test_in_place_ops_refuse_a_leaf_that_requires_grad_record_a_non_leaf(call):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        call(x)
    h = x * 1.0
    assert call(h) is h and h.grad_fn is not None and h._version == 1
    with mg.no_grad():
        assert call(x) is x


def test_in_place_values():
    x = mg.tensor([1.0, 2.0])
    x.add_(mg.tensor([1.0, 1.0]), alpha=2)
    assert x.tolist() == [3.0, 4.0]
    x.mul_(mg.tensor([2.0, 0.5]))
    assert x.tolist() == [6.0, 2.0]
    x.copy_(mg.tensor(5.0))
    assert x.tolist() == [5.0, 5.0]
    x.fill_(7).zero_()
    assert x.tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match=r"\[3\].*\[2\]"):
        x.copy_(np.ones(3))


def test_to_clone_contiguous_cpu():
    x = mg.tensor([1.0], requires_grad=True)
    assert x.contiguous() is x and x.cpu() is x
    assert x.to("cpu", mg.float64).dtype == mg.float64
    assert x.to(device="cpu") is x
    with pytest.raises(TypeError, match="unexpected"):
        x.to(mg.float64, colour=True)  # copy= is PyTorch's and accepted
    assert mg.is_tensor(x) and not mg.is_tensor(x.numpy())

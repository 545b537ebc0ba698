"""``torch.X`` forms of Tensor methods (minigrad/surface/function_forms.py): the in-place
functions modify their input in place, return it, bump its version counter and are
recorded in the graph like the in-place methods; ``detach_``, ``fill``, the in-place
dropouts, ``Tensor.prelu`` / ``hardshrink``."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.functions.elementwise import BINARY, UNARY
from minigrad.surface import function_forms

#: Every mg.X_ function: the elementwise table's (its inplace_function field) and the rest.
INPLACE_FUNCTIONS = function_forms.INPLACE_FUNCTIONS + [
    name for op in UNARY + BINARY if op.inplace_function for name in (op.name, *op.aliases)
]
#: minigrad's in-place function of an alias whose torch.X_ PyTorch does not have
NOT_IN_TORCH = {"absolute"}

# arguments after the tensor, for the functions that need some
ARGS = {
    "clamp": (-0.5, 0.5),
    "clip": (None, 0.5),
    "clamp_max": (0.2,),
    "clamp_min": (0.2,),
    "ldexp": (mg.tensor([1, 2, 3]),),
    "xlogy": (mg.tensor([0.5, 2.0, 3.0], dtype=mg.float64),),
    "fill": (1.5,),
    "index_put": ((mg.tensor([0, 2]),), mg.tensor([7.0, 8.0], dtype=mg.float64)),
}
INTEGER = {"gcd", "lcm"}


def _input(name):
    if name in INTEGER:
        return mg.tensor([4, 6, 9])
    if name in ("acosh", "arccosh"):
        return mg.tensor([1.5, 2.0, 3.0], dtype=mg.float64)
    return mg.tensor([0.1, 0.4, 0.7], dtype=mg.float64)


def _args(name):
    if name in INTEGER:
        return (mg.tensor([6, 4, 3]),)
    return ARGS.get(name, ())


@pytest.mark.parametrize("name", INPLACE_FUNCTIONS)
def test_inplace_function_modifies_returns_and_bumps(name):
    x = _input(name)
    expected = getattr(x.clone(), name + "_")(*_args(name)).numpy().copy()
    version = x._version
    out = getattr(mg, name + "_")(x, *_args(name))
    assert out is x
    assert x._version == version + 1
    np.testing.assert_array_equal(x.numpy(), expected)


@pytest.mark.parametrize("name", sorted(set(INPLACE_FUNCTIONS) - NOT_IN_TORCH))
def test_inplace_function_matches_torch(name, torch):
    x = _input(name)
    xt = torch.tensor(x.numpy().copy())

    def torch_arg(a):
        if isinstance(a, mg.Tensor):
            return torch.tensor(a.numpy().copy())
        if isinstance(a, tuple):
            return tuple(torch_arg(b) for b in a)
        return a

    getattr(mg, name + "_")(x, *_args(name))
    getattr(torch, name + "_")(xt, *[torch_arg(a) for a in _args(name)])
    np.testing.assert_allclose(x.numpy(), xt.numpy(), rtol=1e-12)


def test_inplace_function_is_recorded_on_a_non_leaf(torch):
    a = mg.tensor([0.2, 0.5, 0.9], dtype=mg.float64, requires_grad=True)
    y = a * 2
    mg.sin_(y)
    mg.clamp_(y, max=0.9)
    y.sum().backward()
    at = torch.tensor(a.numpy().copy(), requires_grad=True)
    yt = at * 2
    torch.sin_(yt)
    torch.clamp_(yt, max=0.9)
    yt.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), at.grad.numpy(), rtol=1e-12)


def test_inplace_function_on_a_leaf_that_requires_grad_raises():
    a = mg.tensor([0.2, 0.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        mg.exp_(a)


def test_a_saved_tensor_changed_by_an_inplace_function_raises_at_backward():
    a = mg.tensor([0.2, 0.5], dtype=mg.float64, requires_grad=True)
    y = a * 1
    z = y.exp()  # saves its output
    mg.exp_(z)
    with pytest.raises(RuntimeError):
        (z * y).exp().sum().backward()
    b = a * 1
    s = b.sigmoid()
    mg.zero_(b)
    (s.sum() + b.sum()).backward()  # sigmoid saved its output, not b: no error


def test_fill_makes_a_new_tensor():
    x = mg.tensor([1, 2, 3])
    y = mg.fill(x, 2.7)
    assert y is not x and y.dtype == mg.int64 and y.tolist() == [2, 2, 2]
    assert x.tolist() == [1, 2, 3]
    v = mg.tensor(2.0, dtype=mg.float64, requires_grad=True)
    mg.fill(mg.zeros(3, dtype=mg.float64), v).sum().backward()
    assert v.grad.item() == 3.0
    with pytest.raises(RuntimeError, match="0-dimension"):
        mg.fill(x, mg.tensor([1, 2]))


def test_detach_in_place():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    y = a * 2
    out = mg.detach_(y)
    assert out is y and y.grad_fn is None and not y.requires_grad and y.is_leaf
    with pytest.raises(RuntimeError, match="view"):
        (a * 2)[0:1].detach_()
    d = mg.detach(a)
    assert not d.requires_grad and np.shares_memory(d.numpy(), a.numpy())


@pytest.mark.parametrize(
    "name", ["dropout_", "alpha_dropout_", "feature_alpha_dropout_", "feature_dropout_"]
)
def test_inplace_dropouts(name):
    x = mg.ones(4, 3, 5)
    version = x._version
    assert getattr(mg, name)(x, 0.5, True) is x
    assert x._version == version + 1
    assert not np.all(x.numpy() == 1.0)  # something was dropped
    y = mg.ones(4, 3, 5)
    getattr(mg, name)(y, 0.5, False)
    assert np.all(y.numpy() == 1.0)  # not training: unchanged


def test_inplace_dropout_matches_its_mask():
    x = mg.ones(1000)
    mg.dropout_(x, 0.25, True)
    assert set(np.unique(x.numpy())) <= {0.0, np.float32(1 / 0.75)}
    assert 0.15 < np.mean(x.numpy() == 0) < 0.35


def test_prelu_and_hardshrink_methods(torch):
    x = np.array([[-1.0, 0.2, 0.6], [0.5, -0.3, 2.0]])
    w = np.array([0.25, 0.5, 0.1])
    got = mg.tensor(x).prelu(mg.tensor(w))
    ref = torch.tensor(x).prelu(torch.tensor(w))
    np.testing.assert_allclose(got.numpy(), ref.numpy())
    np.testing.assert_allclose(
        mg.tensor(x).hardshrink(0.4).numpy(), torch.tensor(x).hardshrink(0.4).numpy()
    )

"""Linear / Identity / F.linear: values and gradients against PyTorch, gradcheck, init, errors."""

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck, gradgradcheck


@pytest.mark.parametrize("shape", [(7, 5), (2, 3, 5), (5,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_pytorch(torch, rng, shape, bias):
    tl = torch.nn.Linear(5, 4, bias=bias).double()
    m = nn.Linear(5, 4, bias=bias).double()
    m.load_state_dict(tl.state_dict())
    x = rng.standard_normal(shape)
    g = rng.standard_normal(shape[:-1] + (4,))
    tx = torch.tensor(x, requires_grad=True)
    ty = tl(tx)
    ty.backward(torch.tensor(g))
    mx = mg.tensor(x, requires_grad=True)
    my = m(mx)
    my.backward(mg.tensor(g))
    np.testing.assert_allclose(my.numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        m.weight.grad.numpy(), tl.weight.grad.numpy(), rtol=1e-12, atol=1e-12
    )
    if bias:
        np.testing.assert_allclose(
            m.bias.grad.numpy(), tl.bias.grad.numpy(), rtol=1e-12, atol=1e-12
        )


def test_linear_float32_matches_pytorch(torch, rng):
    tl = torch.nn.Linear(64, 10)
    m = nn.Linear(64, 10)
    m.load_state_dict(tl.state_dict())
    x = rng.standard_normal((32, 64)).astype(np.float32)
    y = m(mg.tensor(x))
    assert y.dtype == np.float32
    np.testing.assert_allclose(
        y.numpy(), tl(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6
    )


def test_linear_gradcheck_and_second_order(rng):
    x = mg.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = mg.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    b = mg.tensor(rng.standard_normal(2), requires_grad=True)
    assert gradcheck(F.linear, (x, w, b))
    assert gradgradcheck(F.linear, (x, w, b))
    x3 = mg.tensor(rng.standard_normal((2, 2, 4)), requires_grad=True)
    assert gradcheck(lambda x, w: F.linear(x, w), (x3, w))


def test_linear_non_contiguous_input(rng):
    x = rng.standard_normal((5, 4)).T  # (4, 5), a transposed view
    w = rng.standard_normal((3, 5))
    y = F.linear(mg.tensor(x), mg.tensor(w))
    np.testing.assert_allclose(y.numpy(), x @ w.T, rtol=1e-12)


def test_linear_input_errors_name_layer_and_shapes():
    layer = nn.Linear(64, 10)
    with pytest.raises(ValueError) as err:
        layer(mg.randn(32, 63))
    msg = str(err.value)
    assert "Linear(in_features=64, out_features=10)" in msg and "64" in msg and "[32, 63]" in msg
    with pytest.raises(ValueError, match="last dimension 5"):
        F.linear(mg.randn(2, 4), mg.randn(3, 5))
    with pytest.raises(TypeError, match="same dtype"):
        layer(mg.randn(2, 64, dtype=mg.float64))


def test_linear_default_init_bounds_and_spread():
    mg.manual_seed(3)
    m = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    for p in (m.weight, m.bias):
        assert p.dtype == np.float32
        assert np.abs(p.numpy()).max() <= bound
    # U(-b, b) has std b / sqrt(3)
    assert abs(m.weight.numpy().std() - bound / math.sqrt(3)) < 0.02 * bound
    assert abs(m.bias.numpy().std() - bound / math.sqrt(3)) < 0.15 * bound


def test_linear_init_is_seeded():
    mg.manual_seed(7)
    a = nn.Linear(3, 3).weight.numpy().copy()
    mg.manual_seed(7)
    np.testing.assert_array_equal(nn.Linear(3, 3).weight.numpy(), a)


def test_linear_repr_and_bias_none():
    m = nn.Linear(3, 2, bias=False)
    assert repr(m) == "Linear(in_features=3, out_features=2, bias=False)"
    assert m.bias is None and list(m.state_dict()) == ["weight"]


def test_identity():
    x = mg.randn(2, 3)
    assert nn.Identity(54, unused="x")(x) is x


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
@pytest.mark.parametrize("in_features, out_features", [(0, 3), (3, 0)])
def test_linear_with_zero_features_as_pytorch(torch, in_features, out_features):
    # Linear(0, 3) on [2, 0]: the output is the bias on every row, its gradient N
    layer = nn.Linear(in_features, out_features)
    ref = torch.nn.Linear(in_features, out_features)
    with torch.no_grad():
        ref.bias.copy_(torch.arange(out_features, dtype=torch.float32))
    layer.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    x = mg.zeros(2, in_features, requires_grad=True)
    tx = torch.zeros(2, in_features, requires_grad=True)
    y, ty = layer(x), ref(tx)
    assert y.shape == tuple(ty.shape) == (2, out_features)
    np.testing.assert_array_equal(y.numpy(), ty.detach().numpy())
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_array_equal(layer.bias.grad.numpy(), ref.bias.grad.numpy())
    assert layer.weight.grad.shape == tuple(ref.weight.grad.shape)
    assert x.grad.shape == tuple(tx.grad.shape)
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())

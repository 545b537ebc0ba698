"""``nn.utils.parametrize`` and ``nn.utils.parametrizations`` (weight_norm,
spectral_norm): values, gradients and state_dict keys against PyTorch."""

import numpy as np
import pytest
from module_parity import assert_same_gradients, forward_both, load_into_torch

import minigrad as mg
from minigrad import nn
from minigrad.nn.utils import parametrizations, parametrize


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).mT


class Scale(nn.Module):
    def forward(self, x):
        return x * 2.0

    def right_inverse(self, x):
        return x / 2.0


def test_register_parametrization_computes_on_read_and_trains_the_original():
    layer = nn.Linear(3, 3)
    w0 = layer.weight.detach().clone()
    parametrize.register_parametrization(layer, "weight", Symmetric())
    assert type(layer).__name__ == "ParametrizedLinear"
    assert parametrize.type_before_parametrizations(layer) is nn.Linear
    assert parametrize.is_parametrized(layer) and parametrize.is_parametrized(layer, "weight")
    assert not parametrize.is_parametrized(layer, "bias")
    w = layer.weight
    np.testing.assert_allclose(w.numpy(), w.numpy().T)
    np.testing.assert_array_equal(layer.parametrizations.weight.original.numpy(), w0.numpy())
    assert sorted(layer.state_dict()) == ["bias", "parametrizations.weight.original"]
    layer(mg.ones(2, 3)).sum().backward()
    assert layer.parametrizations.weight.original.grad is not None
    other = nn.Linear(3, 3)
    assert type(other) is nn.Linear  # other instances keep their class


def test_right_inverse_keeps_the_value_and_assignment_goes_through_it():
    layer = nn.Linear(2, 2)
    w0 = layer.weight.detach().clone()
    parametrize.register_parametrization(layer, "weight", Scale())
    np.testing.assert_allclose(layer.weight.numpy(), w0.numpy(), rtol=1e-6)
    layer.weight = mg.ones(2, 2)
    np.testing.assert_allclose(layer.parametrizations.weight.original.numpy(), 0.5)
    parametrize.register_parametrization(layer, "weight", Scale())  # chained: 4 * original
    np.testing.assert_allclose(layer.weight.numpy(), 2.0)
    with parametrize.cached():
        assert layer.weight is layer.weight
    assert layer.weight is not layer.weight
    parametrize.remove_parametrizations(layer, "weight")
    assert type(layer) is nn.Linear and isinstance(layer.weight, nn.Parameter)
    np.testing.assert_allclose(layer.weight.numpy(), 2.0)
    with pytest.raises(ValueError):
        parametrize.remove_parametrizations(layer, "weight")


def test_shape_changing_parametrization_needs_unsafe():
    class Flat(nn.Module):
        def forward(self, x):
            return x.reshape(-1)

    with pytest.raises(ValueError, match="shape"):
        parametrize.register_parametrization(nn.Linear(2, 2), "weight", Flat())


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_pytorch(torch, dim):
    ours = parametrizations.weight_norm(nn.Linear(4, 3), dim=dim)
    theirs = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(4, 3), dim=dim)
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    load_into_torch(torch, ours, theirs)
    x = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    o, t = forward_both(torch, ours, theirs, x, rtol=1e-5, atol=1e-6)
    assert_same_gradients(o, t, ours.parameters(), theirs.parameters(), rtol=1e-4, atol=1e-5)


def test_weight_norm_without_torch():
    layer = parametrizations.weight_norm(nn.Linear(4, 3))
    g = layer.parametrizations.weight.original0
    v = layer.parametrizations.weight.original1
    assert g.shape == (3, 1) and v.shape == (3, 4)
    w = layer.weight.numpy()
    np.testing.assert_allclose(np.linalg.norm(w, axis=1, keepdims=True), g.numpy(), rtol=1e-5)


def test_spectral_norm_matches_pytorch(torch):
    ours = parametrizations.spectral_norm(nn.Linear(5, 4))
    theirs = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(5, 4))
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    load_into_torch(torch, ours, theirs)
    x = np.random.default_rng(0).normal(size=(2, 5)).astype(np.float32)
    for train in (True, False):
        ours.train(train)
        theirs.train(train)
        o, t = forward_both(torch, ours, theirs, x, rtol=1e-4, atol=1e-5)
    assert_same_gradients(o, t, ours.parameters(), theirs.parameters(), rtol=1e-4, atol=1e-5)


def test_spectral_norm_without_torch():
    layer = parametrizations.spectral_norm(nn.Linear(6, 4), n_power_iterations=20)
    sigma = np.linalg.svd(layer.weight.detach().numpy(), compute_uv=False)[0]
    assert abs(sigma - 1.0) < 1e-3

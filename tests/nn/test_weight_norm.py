"""``nn.utils.weight_norm`` / ``remove_weight_norm`` (PyTorch's older form)."""

import numpy as np
import pytest
from module_parity import assert_same_gradients, forward_both, load_into_torch

import minigrad as mg
from minigrad import nn


def test_weight_norm_keys_values_and_removal():
    layer = nn.Linear(4, 3)
    w0 = layer.weight.detach().numpy().copy()
    nn.utils.weight_norm(layer)
    assert list(layer.state_dict()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(layer.weight.numpy(), w0, rtol=1e-6)
    layer(mg.ones(2, 4)).sum().backward()
    assert layer.weight_g.grad.shape == (3, 1) and layer.weight_v.grad.shape == (3, 4)
    with pytest.raises(RuntimeError):
        nn.utils.weight_norm(layer)
    nn.utils.remove_weight_norm(layer)
    assert type(layer) is nn.Linear and list(layer.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(layer.weight.numpy(), w0, rtol=1e-6)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_pytorch(torch, dim):
    ours = nn.utils.weight_norm(nn.Linear(4, 3), dim=dim)
    theirs = torch.nn.utils.weight_norm(torch.nn.Linear(4, 3), dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    load_into_torch(torch, ours, theirs)
    x = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    o, t = forward_both(torch, ours, theirs, x, rtol=1e-5, atol=1e-6)
    assert_same_gradients(o, t, ours.parameters(), theirs.parameters(), rtol=1e-4, atol=1e-5)

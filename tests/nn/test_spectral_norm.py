"""``nn.utils.spectral_norm`` / ``remove_spectral_norm`` (PyTorch's older form)."""

import numpy as np
import pytest
from module_parity import assert_same_gradients, forward_both

import minigrad as mg
from minigrad import nn


def test_spectral_norm_keys_and_normalized_weight():
    layer = nn.utils.spectral_norm(nn.Linear(6, 4), n_power_iterations=30)
    assert list(layer.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight_orig"]
    layer(mg.ones(1, 6))
    sigma = np.linalg.svd(layer.weight.detach().numpy(), compute_uv=False)[0]
    assert abs(sigma - 1.0) < 1e-3
    with pytest.raises(RuntimeError):
        nn.utils.spectral_norm(layer)
    assert type(nn.Linear(2, 2)) is nn.Linear  # other instances untouched
    nn.utils.remove_spectral_norm(layer)
    assert type(layer) is nn.Linear and list(layer.state_dict()) == ["bias", "weight"]


def test_spectral_norm_matches_pytorch(torch):
    ours = nn.utils.spectral_norm(nn.Linear(5, 4))
    theirs = torch.nn.utils.spectral_norm(torch.nn.Linear(5, 4))
    with torch.no_grad():
        for key, value in ours.state_dict().items():
            getattr(theirs, key).copy_(torch.tensor(value.numpy()))
    x = np.random.default_rng(0).normal(size=(2, 5)).astype(np.float32)
    for train in (True, True, False):
        ours.train(train)
        theirs.train(train)
        o, t = forward_both(torch, ours, theirs, x, rtol=1e-4, atol=1e-5)
    assert_same_gradients(o, t, [ours.weight_orig], [theirs.weight_orig], rtol=1e-4, atol=1e-5)

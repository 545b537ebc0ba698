"""``nn.utils.stateless.functional_call`` (minigrad/nn/utils/stateless.py)."""

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from minigrad.nn.utils.stateless import functional_call


def _model(lib_nn):
    return lib_nn.Sequential(lib_nn.Linear(3, 4), lib_nn.Tanh(), lib_nn.Linear(4, 2))


def test_functional_call_uses_the_given_tensors_and_restores_the_module():
    model = _model(nn)
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    w = mg.zeros(2, 4, requires_grad=True)
    x = mg.ones(5, 3)
    out = functional_call(model, {"2.weight": w}, (x,))
    np.testing.assert_allclose(out.numpy(), np.broadcast_to(model[2].bias.numpy(), (5, 2)))
    out.sum().backward()
    assert w.grad is not None and w.grad.shape == (2, 4)
    assert model[2].weight.grad is None
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])
    assert isinstance(model[2].weight, nn.Parameter)


def test_functional_call_checks_its_keys():
    model = _model(nn)
    with pytest.raises(RuntimeError, match="unexpected"):
        functional_call(model, {"9.weight": mg.zeros(1)}, (mg.ones(1, 3),))
    with pytest.raises(RuntimeError, match="missing"):
        functional_call(model, {"0.weight": mg.zeros(4, 3)}, (mg.ones(1, 3),), strict=True)
    with pytest.raises(ValueError, match="multiple"):
        functional_call(model, ({"0.bias": mg.zeros(4)}, {"0.bias": mg.zeros(4)}), mg.ones(1, 3))


def test_functional_call_matches_pytorch(torch):
    from torch.func import functional_call as torch_call

    ours, theirs = _model(nn), _model(torch.nn)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    w = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    x = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    ow, tw = mg.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    o = functional_call(ours, {"0.weight": ow}, mg.tensor(x))
    t = torch_call(theirs, {"0.weight": tw}, torch.tensor(x))
    np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)
    o.sum().backward()
    t.sum().backward()
    np.testing.assert_allclose(ow.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)

"""SGD against PyTorch over several steps: momentum, dampening, weight decay, Nesterov."""

import numpy as np
import pytest
from optim_parity import assert_params_close, run_both

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

VARIANTS = [
    {"lr": 0.1},
    {"lr": 0.05, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "dampening": 0.3},
    {"lr": 0.05, "momentum": 0.9, "nesterov": True},
    {"lr": 0.05, "weight_decay": 0.1},
    {"lr": 0.05, "momentum": 0.8, "weight_decay": 0.01, "nesterov": True},
    {"lr": 0.05, "momentum": 0.5, "maximize": True},
]


@pytest.mark.parametrize("kwargs", VARIANTS, ids=str)
def test_sgd_matches_pytorch_float64(torch, kwargs):
    mp, tp, _, _ = run_both(torch, optim.SGD, torch.optim.SGD, kwargs)
    assert_params_close(mp, tp, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("kwargs", VARIANTS[1:4], ids=str)
def test_sgd_matches_pytorch_float32(torch, kwargs):
    mp, tp, _, _ = run_both(torch, optim.SGD, torch.optim.SGD, kwargs, dtype=np.float32)
    assert all(p.dtype == np.float32 for p in mp)
    assert_params_close(mp, tp, rtol=1e-6, atol=1e-6)


def test_sgd_param_groups_with_own_options(torch):
    groups = [([0, 2], {"lr": 0.5, "momentum": 0.9}), ([1], {"weight_decay": 0.2})]
    mp, tp, mopt, topt = run_both(torch, optim.SGD, torch.optim.SGD, {"lr": 0.01}, groups=groups)
    assert_params_close(mp, tp, rtol=1e-13, atol=1e-14)
    assert mopt.param_groups[1]["lr"] == 0.01 and mopt.param_groups[0]["lr"] == 0.5


def test_sgd_skips_parameters_without_grad_and_plain_step_is_exact():
    a = nn.Parameter(mg.tensor([1.0, 2.0]))
    b = nn.Parameter(mg.tensor([3.0]))
    opt = optim.SGD([a, b], lr=0.5)
    a.grad = mg.tensor([2.0, -4.0])
    opt.step()
    np.testing.assert_array_equal(a.numpy(), [0.0, 4.0])
    np.testing.assert_array_equal(b.numpy(), [3.0])


def test_sgd_bad_options():
    p = [nn.Parameter(mg.ones(1))]
    with pytest.raises(ValueError, match="learning rate"):
        optim.SGD(p, lr=-1)
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD(p, lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="momentum"):
        optim.SGD(p, lr=0.1, momentum=-0.5)

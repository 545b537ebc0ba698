"""Adam / AdamW against PyTorch over several steps: weight decay (L2 vs decoupled),
amsgrad, betas, maximize, float32 and float64, parameter groups."""

import numpy as np
import pytest
from optim_parity import assert_params_close, run_both

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

VARIANTS = [
    {},
    {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6},
    {"lr": 0.01, "weight_decay": 0.1},
    {"lr": 0.01, "amsgrad": True},
    {"lr": 0.01, "amsgrad": True, "weight_decay": 0.05, "maximize": True},
]


@pytest.mark.parametrize("kwargs", VARIANTS, ids=str)
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_matches_pytorch_float64(torch, name, kwargs):
    mp, tp, mopt, topt = run_both(
        torch, getattr(optim, name), getattr(torch.optim, name), kwargs, steps=8
    )
    assert_params_close(mp, tp, rtol=1e-12, atol=1e-14)
    for m, t in zip(mp, tp):  # the moment estimates agree too
        for key in ("exp_avg", "exp_avg_sq"):
            np.testing.assert_allclose(
                mopt.state[m][key], topt.state[t][key].numpy(), rtol=1e-12, atol=1e-15
            )
        assert mopt.state[m]["step"] == int(topt.state[t]["step"])


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_matches_pytorch_float32(torch, name):
    kwargs = {"lr": 0.01, "weight_decay": 0.1}
    mp, tp, _, _ = run_both(
        torch, getattr(optim, name), getattr(torch.optim, name), kwargs, steps=8, dtype=np.float32
    )
    assert all(p.dtype == np.float32 for p in mp)
    assert_params_close(mp, tp, rtol=2e-6, atol=2e-6)


def test_adamw_groups_with_and_without_decay(torch):
    groups = [([0], {"weight_decay": 0.1}), ([1, 2], {"weight_decay": 0.0, "lr": 0.02})]
    mp, tp, _, _ = run_both(torch, optim.AdamW, torch.optim.AdamW, {"lr": 0.01}, groups=groups)
    assert_params_close(mp, tp, rtol=1e-12, atol=1e-14)


def test_first_adam_step_moves_each_element_by_about_lr():
    # with bias correction, step 1 is lr * g / (|g| + eps') = lr * sign(g)
    p = nn.Parameter(mg.tensor([1.0, -2.0, 3.0], dtype=mg.float64))
    opt = optim.Adam([p], lr=0.1)
    p.grad = mg.tensor([0.5, -3.0, 1e-3], dtype=mg.float64)
    opt.step()
    np.testing.assert_allclose(p.numpy(), [0.9, -1.9, 2.9], rtol=1e-6)


def test_defaults_and_bad_options():
    p = [nn.Parameter(mg.ones(1))]
    assert optim.AdamW(p).defaults["weight_decay"] == 1e-2
    assert optim.Adam(p).defaults["weight_decay"] == 0.0
    with pytest.raises(ValueError, match="beta parameter at index 1"):
        optim.Adam(p, betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="epsilon"):
        optim.Adam(p, eps=-1.0)


@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("decoupled", [False, True])
def test_fused_update_matches_numpy_twin(amsgrad, decoupled):
    """The one-pass kernel against the same arithmetic in NumPy, float32, three steps."""
    from minigrad.kernels.adam import adam_update
    from minigrad.optim.adam import _update_numpy

    rng = np.random.default_rng(0)
    p = rng.standard_normal(1000).astype(np.float32)
    states = [[p.copy(), np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)] for _ in range(2)]
    for t in range(1, 4):
        g = rng.standard_normal(1000).astype(np.float32)
        bc1, bc2 = 1 - 0.9**t, np.sqrt(1 - 0.999**t)
        decay, l2 = (1 - 1e-3 * 0.1, 0.0) if decoupled else (1.0, 0.1)
        step = (1e-3 / bc1, bc2, 1e-8)
        (pk, mk, vk, xk), (pn, mn, vn, xn) = states
        empty = np.empty(0, np.float32)
        adam_update(pk, g, mk, vk, xk if amsgrad else empty, decay, l2, 0.1, 0.999, *step, 0.001)
        _update_numpy(pn, g, mn, vn, xn if amsgrad else None, decay, l2, 0.9, 0.999, *step)
    for a, b in zip(*states):
        np.testing.assert_allclose(a, b, rtol=2e-7, atol=1e-9)
    assert not np.array_equal(states[0][0], p)  # it moved

"""clip_grad_norm_ / clip_grad_value_ against PyTorch; non-finite norms are reported."""

import math
import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn


def _pair(torch, rng, scale, dtype=np.float64):
    shapes = [(3, 4), (4,), (2, 2, 2)]
    grads = [(rng.standard_normal(s) * scale).astype(dtype) for s in shapes]
    mp, tp = [], []
    for g in grads:
        m = nn.Parameter(mg.tensor(np.zeros(g.shape, dtype)))
        m.grad = mg.tensor(g.copy())
        t = torch.nn.Parameter(torch.zeros(g.shape, dtype=getattr(torch, np.dtype(dtype).name)))
        t.grad = torch.tensor(g.copy())
        mp.append(m)
        tp.append(t)
    mp.append(nn.Parameter(mg.zeros(2)))  # no gradient: skipped
    return mp, tp


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
@pytest.mark.parametrize("scale", [0.01, 10.0])  # below and above max_norm
def test_clip_grad_norm_matches_pytorch(torch, rng, norm_type, scale):
    mp, tp = _pair(torch, rng, scale)
    mine = nn.utils.clip_grad_norm_(mp, max_norm=1.5, norm_type=norm_type)
    theirs = torch.nn.utils.clip_grad_norm_(tp, max_norm=1.5, norm_type=norm_type)
    assert isinstance(mine, mg.Tensor) and mine.ndim == 0
    np.testing.assert_allclose(mine.item(), theirs.item(), rtol=1e-12)
    for m, t in zip(mp, tp):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_clip_grad_norm_float32_and_single_tensor(torch, rng):
    mp, tp = _pair(torch, rng, 5.0, np.float32)
    mine = nn.utils.clip_grad_norm_(mp[0], 0.5)
    theirs = torch.nn.utils.clip_grad_norm_(tp[0], 0.5)
    assert mine.dtype == np.float32
    np.testing.assert_allclose(mine.item(), theirs.item(), rtol=1e-6)
    np.testing.assert_allclose(mp[0].grad.numpy(), tp[0].grad.numpy(), rtol=1e-6, atol=1e-7)


def test_clipped_norm_is_max_norm():
    p = nn.Parameter(mg.zeros(2, dtype=mg.float64))
    p.grad = mg.tensor([3.0, 4.0], dtype=mg.float64)
    g = p.grad
    assert nn.utils.clip_grad_norm_([p], 1.0).item() == 5.0
    assert p.grad is g  # scaled in place
    assert math.isclose(float(np.linalg.norm(p.grad.numpy())), 1.0, rel_tol=1e-6)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_nonfinite_norm_warns_and_leaves_grads(bad):
    p = nn.Parameter(mg.zeros(3))
    p.grad = mg.tensor([1.0, bad, 100.0])
    before = p.grad.numpy().copy()
    with pytest.warns(RuntimeWarning, match="left unscaled"):
        norm = nn.utils.clip_grad_norm_([p], 1.0)
    assert not math.isfinite(norm.item())
    np.testing.assert_array_equal(p.grad.numpy(), before)
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    np.testing.assert_array_equal(p.grad.numpy(), before)


def test_no_gradients_gives_zero_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nn.utils.clip_grad_norm_([nn.Parameter(mg.ones(2))], 1.0).item() == 0.0


def test_clip_grad_value_matches_pytorch(torch, rng):
    mp, tp = _pair(torch, rng, 3.0)
    nn.utils.clip_grad_value_(mp, 0.7)
    torch.nn.utils.clip_grad_value_(tp, 0.7)
    for m, t in zip(mp, tp):
        np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())

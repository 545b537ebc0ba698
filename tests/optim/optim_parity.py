"""Run the same gradient sequence through a minigrad and a PyTorch optimizer."""

import numpy as np

import minigrad as mg
import minigrad.nn as nn


def make_params(rng, dtype=np.float64, shapes=((3, 4), (4,), ())):
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def run_both(torch, mg_cls, torch_cls, kwargs, steps=6, dtype=np.float64, groups=None, seed=0):
    """Apply ``steps`` updates with the same random gradients; return both parameter lists."""
    rng = np.random.default_rng(seed)
    init = make_params(rng, dtype)
    mp = [nn.Parameter(mg.tensor(a.copy())) for a in init]
    tp = [torch.nn.Parameter(torch.tensor(a.copy())) for a in init]
    if groups is None:
        mopt, topt = mg_cls(mp, **kwargs), torch_cls(tp, **kwargs)
    else:  # groups: list of (indices, options)
        mopt = mg_cls([{"params": [mp[i] for i in idx], **o} for idx, o in groups], **kwargs)
        topt = torch_cls([{"params": [tp[i] for i in idx], **o} for idx, o in groups], **kwargs)
    for _ in range(steps):
        grads = [rng.standard_normal(a.shape).astype(dtype) for a in init]
        for m, t, g in zip(mp, tp, grads):
            m.grad = mg.tensor(g)
            t.grad = torch.tensor(g)
        mopt.step()
        topt.step()
    return mp, tp, mopt, topt


def assert_params_close(mp, tp, rtol, atol):
    for m, t in zip(mp, tp):
        np.testing.assert_allclose(m.numpy(), t.detach().numpy(), rtol=rtol, atol=atol)

"""Muon against PyTorch's (which orthogonalizes in bfloat16: agreement to that rounding),
and without PyTorch: the Newton-Schulz step makes the update's singular values close to
1, the learning-rate adjustments, the 2-D restriction."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.optim as optim
from minigrad.optim.muon import newton_schulz


@pytest.mark.parametrize(
    "shape,kwargs",
    [
        ((4, 6), {}),
        ((6, 3), dict(nesterov=False, momentum=0.9)),
        ((5, 5), dict(adjust_lr_fn="match_rms_adamw", weight_decay=0.0)),
    ],
)
def test_matches_pytorch_to_bfloat16_rounding(torch, rng, shape, kwargs):
    w0 = rng.standard_normal(shape)
    grads = [rng.standard_normal(shape) for _ in range(3)]
    result = []
    for lib in (torch, mg):
        p = lib.tensor(w0.copy(), requires_grad=True)
        opt = lib.optim.Muon([p], lr=0.02, **kwargs)
        for g in grads:
            p.grad = lib.tensor(g)
            opt.step()
        result.append(p.detach().numpy())
    # bfloat16 keeps 8 significant bits, and 5 iterations compound them: the motions agree
    # in direction and to a few percent in size, not to float rounding.
    t_move, m_move = (result[0] - w0).ravel(), (result[1] - w0).ravel()
    cosine = t_move @ m_move / np.linalg.norm(t_move) / np.linalg.norm(m_move)
    assert cosine > 0.999
    assert np.linalg.norm(m_move - t_move) < 0.05 * np.linalg.norm(t_move)


def test_newton_schulz_orthogonalizes(rng):
    g = rng.standard_normal((8, 5))
    singular = np.linalg.svd(newton_schulz(g, (3.4445, -4.775, 2.0315), 5, 1e-7))[1]
    assert 0.5 < singular.min() and singular.max() < 1.5


def test_update_and_errors(rng):
    p = mg.tensor(np.zeros((2, 8)), requires_grad=True)
    p.grad = mg.tensor(rng.standard_normal((2, 8)))
    optim.Muon([p], lr=0.1, weight_decay=0.0, nesterov=False).step()
    assert np.linalg.svd(p.numpy() / -0.1)[1] == pytest.approx([1.0, 1.0], abs=0.35)
    with pytest.raises(ValueError, match="2D"):
        optim.Muon([mg.zeros(3, requires_grad=True)])
    with pytest.raises(ValueError):
        optim.Muon([p], adjust_lr_fn="other")

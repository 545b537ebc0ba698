"""CTC loss against PyTorch's (values and the gradient of the log-probabilities): padded
and concatenated targets, repeated labels, several input lengths, each reduction,
an unbatched input, impossible alignments with and without zero_infinity; gradcheck."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck

CASES = [
    # name, (T, N, C), targets, input_lengths, target_lengths, kwargs
    ("padded", (8, 3, 5), [[1, 2, 2], [3, 0, 0], [4, 4, 1]], [8, 6, 7], [3, 1, 3], {}),
    ("concatenated", (8, 3, 5), [1, 2, 2, 3, 4, 4, 1], [8, 6, 7], [3, 1, 3], {}),
    (
        "sum_blank_last",
        (7, 2, 4),
        [[0, 1, 1], [2, 0, 0]],
        [7, 5],
        [3, 2],
        dict(blank=3, reduction="sum"),
    ),
    ("none_empty_target", (6, 2, 4), [[1, 2], [0, 0]], [6, 4], [2, 0], dict(reduction="none")),
    (
        "impossible_zero_inf",
        (3, 2, 4),
        [[1, 1, 1], [2, 3, 0]],
        [3, 3],
        [3, 2],
        dict(zero_infinity=True, reduction="none"),
    ),
]


def _run(lib, F_, shape, targets, in_len, tg_len, kwargs, rng_seed=0):
    x = np.random.default_rng(rng_seed).standard_normal(shape)
    raw = lib.tensor(x, requires_grad=True)
    loss = F_.ctc_loss(
        raw.log_softmax(-1), lib.tensor(targets), lib.tensor(in_len), lib.tensor(tg_len), **kwargs
    )
    loss.sum().backward()
    return loss.detach().numpy(), raw.grad.numpy()


@pytest.mark.parametrize(
    "name,shape,targets,in_len,tg_len,kwargs", CASES, ids=[c[0] for c in CASES]
)
def test_matches_pytorch(torch, name, shape, targets, in_len, tg_len, kwargs):
    tv, tg = _run(torch, torch.nn.functional, shape, targets, in_len, tg_len, kwargs)
    mv, mgrad = _run(mg, F, shape, targets, in_len, tg_len, kwargs)
    np.testing.assert_allclose(mv, tv, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mgrad, tg, rtol=1e-8, atol=1e-10)


def test_unbatched_and_module_match_pytorch(torch, rng):
    x = rng.standard_normal((6, 4))
    t = torch.nn.CTCLoss(blank=0)(
        torch.tensor(x).log_softmax(-1), torch.tensor([1, 2]), torch.tensor(6), torch.tensor(2)
    )
    m = nn.CTCLoss(blank=0)(
        mg.tensor(x).log_softmax(-1), mg.tensor([1, 2]), mg.tensor(6), mg.tensor(2)
    )
    np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-10)


def test_impossible_alignment_is_inf():
    lp = mg.zeros(2, 1, 3, dtype=mg.float64).log_softmax(-1)
    loss = F.ctc_loss(lp, mg.tensor([[1, 1]]), mg.tensor([2]), mg.tensor([2]), reduction="sum")
    assert loss.item() == float("inf")


def test_gradcheck(rng):
    x = mg.tensor(rng.standard_normal((5, 2, 4)), requires_grad=True)
    assert gradcheck(
        lambda x: F.ctc_loss(
            x.log_softmax(-1), mg.tensor([[1, 2], [3, 3]]), mg.tensor([5, 5]), mg.tensor([2, 2])
        ),
        (x,),
    )


def test_bad_targets_raise():
    lp = mg.zeros(4, 1, 3).log_softmax(-1)
    with pytest.raises(RuntimeError):
        F.ctc_loss(lp, mg.tensor([[0, 1]]), mg.tensor([4]), mg.tensor([2]))  # blank in target
    with pytest.raises(RuntimeError):
        F.ctc_loss(lp, mg.tensor([[1, 2]]), mg.tensor([5]), mg.tensor([2]))  # too long
    with pytest.raises(ValueError):
        F.ctc_loss(lp, mg.tensor([[1, 2]]), mg.tensor([4]), mg.tensor([2]), reduction="avg")

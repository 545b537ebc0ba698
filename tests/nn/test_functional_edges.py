"""nn.functional at the inputs op_db uses: broadcasting over the reduced dim, orders 0
and inf, duplicated targets, 0-d scores; each checked by hand and against PyTorch."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F


def test_cosine_similarity_normalizes_the_broadcast_vectors():
    """x2 of shape (2, 1, 3) against x1 (1, 2, 3) along dim 1: each broadcast x2 is two
    copies of one row, whose norm is sqrt(2) times the row's (the cosine was above 1)."""
    x1 = mg.tensor([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]])
    x2 = mg.tensor([[[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]]])
    cos = F.cosine_similarity(x1, x2, dim=1)  # (2, 3)
    # batch 0, column 0: (1 + 4) / (||(1, 4)|| ||(1, 1)||); columns 1, 2 of x2 are 0
    np.testing.assert_allclose(cos.numpy()[0], [5 / np.sqrt(17) / np.sqrt(2), 0, 0], rtol=1e-6)
    assert np.abs(cos.numpy()).max() <= 1.0


def test_normalize_and_pdist_take_every_order_and_zero_distances():
    x = mg.tensor([[1.0, 0.0, -2.0]])
    np.testing.assert_allclose(F.normalize(x, p=0).numpy(), [[0.5, 0.0, -1.0]])  # 2 non-zeros
    y = mg.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]], dtype=mg.float64, requires_grad=True)
    d = F.pdist(y, p=0)
    assert d.tolist() == [0.0, 2.0, 2.0]
    F.pdist(y).sum().backward()  # rows 0 and 1 coincide: a zero distance, gradient 0 there
    assert np.isfinite(y.grad.numpy()).all()


def test_multilabel_margin_loss_counts_a_repeated_target_twice():
    x = mg.tensor([[0.1, 0.2, 0.4, 0.8]])
    y = mg.tensor([[3, 3, -1, 0]])  # class 3 listed twice; the -1 ends the list
    # twice sum over the 3 other classes of max(0, 1 - (0.8 - x_k)), over 4 classes
    want = 2 * ((1 - 0.7) + (1 - 0.6) + (1 - 0.4)) / 4
    assert F.multilabel_margin_loss(x, y).item() == pytest.approx(want)


def test_kl_div_is_nan_for_negative_targets_and_takes_batchmean():
    x = mg.tensor([[-1.0, -2.0], [-0.5, -0.1]])
    loss = F.kl_div(x, mg.tensor([[0.5, -0.1], [0.0, 1.0]]), reduction="none")
    assert np.isnan(loss.numpy()[0, 1]) and loss.numpy()[1, 0] == 0.0
    t = mg.tensor([[0.5, 0.5], [0.25, 0.75]])
    total = F.kl_div(x, t, reduction="sum").item()
    assert F.kl_div(x, t, reduction="batchmean").item() == pytest.approx(total / 2)


@pytest.mark.parametrize(
    "loss", [F.l1_loss, F.mse_loss, F.soft_margin_loss, F.multilabel_soft_margin_loss]
)
def test_an_unknown_reduction_is_refused_first(loss):
    with pytest.raises(ValueError, match="abc"):
        loss(mg.zeros(2, 3), mg.zeros(2, 3), reduction="abc")


def test_margin_losses_take_a_0d_score_as_one_sample_of_one_class():
    assert F.multi_margin_loss(mg.tensor(2.0), mg.tensor(0)).item() == 0.0
    with pytest.raises(RuntimeError):
        F.multi_margin_loss(mg.zeros(0), mg.zeros(0, dtype=mg.int64))


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, a, b: lib.nn.functional.cosine_similarity(
            a.reshape(1, 2, 3), b.reshape(2, 1, 3)[:, :, :]
        ),
        lambda lib, a, b: lib.nn.functional.normalize(a.reshape(2, 3), p=0),
        lambda lib, a, b: lib.nn.functional.pdist(a.reshape(2, 3), p=0.5),
        lambda lib, a, b: lib.nn.functional.kl_div(a, b, reduction="batchmean"),
    ],
)
def test_matches_pytorch(torch, fn):
    a = np.array([1.0, -2.0, 0.5, 3.0, 0.0, -1.0])
    b = np.array([0.5, 0.25, 0.0, 1.0, 2.0, 0.1])
    got, want = (
        fn(mg, mg.tensor(a[:6]), mg.tensor(b[:6])),
        fn(torch, torch.tensor(a), torch.tensor(b)),
    )
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)

"""Dropout: inverted scaling, eval identity, seeding, gradient through the same mask, errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck


def test_training_zeroes_about_p_and_scales_the_rest():
    x = mg.ones(200_000)
    y = F.dropout(x, p=0.3)
    zeros = np.mean(y.numpy() == 0)
    assert abs(zeros - 0.3) < 0.005
    kept = y.numpy()[y.numpy() != 0]
    np.testing.assert_allclose(kept, 1 / 0.7, rtol=1e-6)
    assert abs(y.numpy().mean() - 1.0) < 0.01  # expectation preserved
    assert y.dtype == np.float32


def test_eval_and_p_zero_are_identity():
    x = mg.randn(10)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    drop = nn.Dropout(0.5).eval()
    assert drop(x) is x
    assert nn.Dropout(0.5)(x) is not x


def test_p_one_gives_zeros_and_zero_gradient():
    x = mg.randn(5, requires_grad=True)
    y = F.dropout(x, 1.0)
    assert np.all(y.numpy() == 0)
    y.sum().backward()
    assert np.all(x.grad.numpy() == 0)


def test_gradient_uses_the_same_mask():
    x = mg.randn(1000, requires_grad=True)
    y = F.dropout(x, 0.4)
    y.sum().backward()
    mask = (y.numpy() != 0).astype(np.float32)
    np.testing.assert_allclose(x.grad.numpy(), mask / 0.6, rtol=1e-6)


def test_gradcheck_with_fixed_seed():
    x = mg.tensor(np.random.default_rng(0).standard_normal(20), requires_grad=True)

    def fn(t):
        mg.manual_seed(5)  # the same mask on every call
        return F.dropout(t, 0.5)

    assert gradcheck(fn, (x,))


def test_seeded_masks_repeat():
    mg.manual_seed(11)
    a = F.dropout(mg.ones(50), 0.5).numpy()
    mg.manual_seed(11)
    np.testing.assert_array_equal(F.dropout(mg.ones(50), 0.5).numpy(), a)


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_bad_probability(p):
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(p)
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.dropout(mg.ones(2), p)


def test_repr_matches_pytorch(torch):
    assert repr(nn.Dropout(0.1)) == repr(torch.nn.Dropout(0.1))


def test_mask_is_the_same_on_one_and_two_threads():
    # large enough to be drawn by two threads; each draw depends on (seed, index) alone
    before = mg.get_num_threads()
    masks = []
    try:
        for threads in (1, 2):
            mg.set_num_threads(threads)
            mg.manual_seed(3)
            masks.append(F.dropout(mg.ones(300_000), 0.25).numpy())
    finally:
        mg.set_num_threads(before)
    np.testing.assert_array_equal(masks[0], masks[1])


def test_mask_draws_are_independent_of_their_neighbours():
    kept = F.dropout(mg.ones(400_000), 0.5).numpy() != 0
    assert abs(kept.mean() - 0.5) < 0.005
    for lag in (1, 2, 4, 16):  # P(both kept) = 1/4 for independent draws
        assert abs(np.mean(kept[lag:] & kept[:-lag]) - 0.25) < 0.005


def test_float16_input_gets_a_float16_mask():
    y = F.dropout(mg.ones(1000, dtype=mg.float16), 0.5)
    assert y.dtype == np.float16
    assert set(np.unique(y.numpy())) <= {0.0, 2.0}

"""multinomial: with and without replacement, several samples, generator=; the errors of
PyTorch for invalid distributions. The draws cannot equal PyTorch's (another random
stream), so the tests check the distribution and the rules instead."""

import numpy as np
import pytest

import minigrad as mg


def test_with_replacement_follows_the_weights():
    w = mg.tensor([1.0, 2.0, 0.0, 7.0])
    draws = mg.multinomial(w, 20000, replacement=True).numpy()
    assert draws.shape == (20000,) and draws.dtype == np.int64
    freq = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.0, 0.7], atol=0.015)
    assert freq[2] == 0  # weight 0 is never drawn


def test_without_replacement_first_draw_and_no_repeats():
    w = np.array([[5.0, 1.0, 1.0, 3.0]])
    firsts = []
    gen = mg.Generator().manual_seed(3)
    for _ in range(4000):
        out = mg.multinomial(mg.tensor(w), 3, generator=gen).numpy()
        assert out.shape == (1, 3) and len(set(out[0])) == 3
        firsts.append(out[0, 0])
    freq = np.bincount(firsts, minlength=4) / len(firsts)
    np.testing.assert_allclose(freq, w[0] / w.sum(), atol=0.03)


def test_without_replacement_second_draw_is_renormalized():
    # P(second = 2 | first = 0) = w2 / (w1 + w2 + w3) = 1 / 5
    w = mg.tensor([5.0, 1.0, 1.0, 3.0])
    gen = mg.Generator().manual_seed(5)
    pairs = np.array([mg.multinomial(w, 2, generator=gen).tolist() for _ in range(6000)])
    second = pairs[pairs[:, 0] == 0, 1]
    np.testing.assert_allclose((second == 2).mean(), 0.2, atol=0.03)


def test_zero_weights_come_last_when_exhausted(torch):
    out = mg.multinomial(mg.tensor([1.0, 0.0, 1.0]), 3).tolist()
    assert sorted(out[:2]) == [0, 2] and out[2] == 1
    t = torch.multinomial(torch.tensor([1.0, 0.0, 1.0]), 3).tolist()
    assert sorted(t[:2]) == [0, 2] and t[2] == 1


def test_generator_reproduces_and_default_stream_is_seeded():
    w = mg.tensor([[0.2, 0.3, 0.5], [0.9, 0.05, 0.05]])
    a = mg.multinomial(w, 4, replacement=True, generator=mg.Generator().manual_seed(7))
    b = mg.multinomial(w, 4, replacement=True, generator=mg.Generator().manual_seed(7))
    assert a.shape == (2, 4) and a.tolist() == b.tolist()
    mg.manual_seed(1)
    c = w.multinomial(2)
    mg.manual_seed(1)
    assert w.multinomial(2).tolist() == c.tolist()


def test_one_hot_rows_are_deterministic():
    probs = mg.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert mg.multinomial(probs, 1).tolist() == [[1], [2]]


@pytest.mark.parametrize(
    "weights,n,replacement,message",
    [
        ([1.0, -1.0], 1, False, "probability tensor contains either `inf`, `nan` or element < 0"),
        ([1.0, float("nan")], 1, True, "`inf`, `nan` or element < 0"),
        ([0.0, 0.0], 1, False, r"invalid multinomial distribution \(sum of probabilities <= 0\)"),
        ([1.0, 1.0], 3, False, r"cannot sample n_sample \(3\) > prob_dist.size\(-1\) \(2\)"),
        ([1.0, 1.0], 0, True, "num_samples must be positive"),
    ],
)
def test_invalid_distributions_raise_like_torch(weights, n, replacement, message):
    with pytest.raises(RuntimeError, match=message):
        mg.multinomial(mg.tensor(weights), n, replacement=replacement)


def test_bad_shape_is_named():
    with pytest.raises(
        ValueError, match=r"multinomial: prob_dist must be 1 or 2 dim, got shape \[1, 1, 2\]"
    ):
        mg.multinomial(mg.ones(1, 1, 2), 1)

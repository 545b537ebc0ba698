"""warmup: four short training runs (80 steps), post-norm vs pre-norm, +- warmup."""

import math

import numpy as np
import pytest

from minigrad.lab import warmup
from minigrad.lab.corpus import make_corpus


@pytest.fixture(scope="module")
def result(quick_run):
    return quick_run("warmup")


def test_claim_is_supported(result):
    assert result.verdict == "supported", result.checks


def test_post_norm_without_warmup_learns_no_more_than_letter_frequencies(result):
    final, unigram = result.data["final"], result.data["unigram"]
    assert final["post-norm", False] > 0.9 * unigram
    assert final["post-norm", True] < final["post-norm", False] - 0.5


def test_pre_norm_learns_with_or_without_warmup(result):
    final, unigram = result.data["final"], result.data["unigram"]
    assert final["pre-norm", False] < 0.8 * unigram
    assert abs(final["pre-norm", False] - final["pre-norm", True]) < 0.2


def test_schedules_are_what_the_runs_claim(result):
    runs = result.data["runs"]
    steps = result.data["steps"]
    no_warmup = runs["pre-norm", False]["lr"]
    with_warmup = runs["pre-norm", True]["lr"]
    assert len(no_warmup) == steps and np.allclose(no_warmup, warmup.LR)
    assert with_warmup[0] < warmup.LR / 10
    assert np.all(np.diff(with_warmup[: steps // 2]) > 0)
    assert np.allclose(with_warmup[steps // 2 :], warmup.LR)


def test_unigram_loss_is_the_entropy_of_letter_frequencies():
    train = np.array([0, 0, 1, 1])
    # add-one smoothing: counts 3, 3 -> p = 1/2 each
    assert warmup.unigram_loss(train, np.array([0, 1]), 2) == pytest.approx(math.log(2))


def test_progress_ratio():
    assert warmup.progress_ratio(1.0, 1.0, 3.0) == pytest.approx(1.0)
    assert warmup.progress_ratio(3.0, 1.0, 3.0) == pytest.approx(0.0)
    assert warmup.progress_ratio(float("nan"), 1.0, 3.0) == 0.0


def test_corpus_is_deterministic_and_seed_dependent():
    a, b, c = make_corpus(0, 50), make_corpus(0, 50), make_corpus(1, 50)
    assert a == b and a != c
    assert a.count(".") == 50

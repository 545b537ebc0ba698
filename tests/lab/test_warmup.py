"""warmup at quick size: lr 5e-3 and 2e-2 at 6 blocks, 80 steps; clipping; no long runs."""

import math

import numpy as np
import pytest

from minigrad.lab import warmup
from minigrad.lab.corpus import make_corpus

EXPERIMENT = "warmup"


def test_every_check_reads_the_cells_of_its_region(result):
    statements = [c.statement for c in result.checks]
    assert statements[0] == "pre-norm trains without warmup at every learning rate and depth"
    by_statement = {c.statement: c.measured for c in result.checks}
    measured = by_statement["pre-norm trains without warmup at every learning rate and depth"]
    for lr in result.data["lrs"]:
        for depth in result.data["depths"]:
            assert f"(lr {lr:g}, {depth} blocks)" in measured


def test_pre_norm_trains_at_every_cell_and_post_norm_fails_at_the_high_rate(result):
    d = result.data
    grid, unigram = d["grid"], d["unigram"]
    for lr in d["lrs"]:
        for depth in d["depths"]:
            assert grid[lr, depth, "pre-norm", False] < 0.8 * unigram
    for depth in d["depths"]:
        assert grid[2e-2, depth, "post-norm", False] > 0.95 * unigram
        assert grid[5e-3, depth, "post-norm", False] < 0.8 * unigram


def test_clipping_does_not_rescue_post_norm_at_the_high_rate(result):
    d = result.data
    for clip in warmup.CLIPS:
        assert d["clipped"][2e-2, clip] > 0.95 * d["unigram"]


def test_quick_mode_has_no_long_runs_and_says_which_parts_it_did_not_check(result):
    assert result.data["long_seeds"] == () and result.data["long"] == {}
    unchecked = [c.statement for c in result.checks if not c.checked]
    assert unchecked == [
        "warmup does not rescue post-norm in the grid's cells where lr x L >= 0.18",
        "where both train, post-norm ends lower than pre-norm (at every seed)",
    ]
    assert all(c.passed for c in result.checks if c.checked)
    assert result.verdict == "incomplete"  # never "supported" for a claim it did not check


def _fake(grid_values, long_values=None):
    """A result with made-up final losses (unigram 2.8) to test the checks' logic."""
    from minigrad.lab.result import LabResult

    lrs, depths = (5e-3, 2e-2, 3e-2), (6, 12)
    grid, clipped = {}, {}
    for (lr, depth, placement, wu), v in grid_values.items():
        grid[lr, depth, placement, wu] = v
    for lr in lrs:
        for clip in warmup.CLIPS:
            clipped[lr, clip] = grid[lr, 6, "post-norm", False]
    long_values = long_values or {}
    seeds = tuple(sorted({s for _, s in long_values}))
    long = {k: {"val_loss": v, "loss": np.array([v])} for k, v in long_values.items()}
    data = dict(
        lrs=lrs,
        depths=depths,
        steps=10,
        unigram=2.8,
        grid=grid,
        clipped=clipped,
        clip_depth=6,
        long=long,
        long_seeds=seeds,
        long_depth=6,
        long_steps=10,
    )
    result = LabResult("warmup", warmup.CLAIM, data=data)
    warmup._checks(result)
    return {c.statement: c.passed for c in result.checks}


def _as_claimed(lr, depth, placement, wu):
    """Final losses laid out exactly as the claim says (regions of lr x L)."""
    if placement == "pre-norm":
        return 1.3
    if not wu:
        return 1.3 if lr * depth < 0.07 and depth <= 6 else 2.78
    return 1.8 if lr * depth < 0.15 else 2.78


def test_checks_pass_when_the_numbers_are_as_claimed_and_fail_cell_by_cell():
    cells = {(lr, d, p, w): _as_claimed(lr, d, p, w) for lr in (5e-3, 2e-2, 3e-2)
             for d in (6, 12) for p in warmup.PLACEMENTS for w in (False, True)}  # fmt: skip
    passed = _fake(cells, {("post-norm", 0): 0.40, ("pre-norm", 0): 0.45})
    assert all(passed.values()) and len(passed) == 7
    cells[5e-3, 12, "post-norm", False] = 2.78  # between the regions: reported, not checked
    assert all(_fake(cells, {("post-norm", 0): 0.40, ("pre-norm", 0): 0.45}).values())
    cells[3e-2, 12, "pre-norm", False] = float("nan")  # one diverged pre-norm run
    cells[3e-2, 12, "post-norm", True] = 1.9  # warmup does rescue one cell beyond the region
    passed = _fake(cells, {("post-norm", 0): 0.45, ("pre-norm", 0): 0.40})
    failed = {s for s, ok in passed.items() if not ok}
    assert failed == {
        "pre-norm trains without warmup at every learning rate and depth",
        "warmup does not rescue post-norm in the grid's cells where lr x L >= 0.18",
        "where both train, post-norm ends lower than pre-norm (at every seed)",
    }


def test_outcome_uses_absolute_thresholds_and_counts_nan_as_failure():
    assert warmup.outcome(1.3, 2.8) == "trains"
    assert warmup.outcome(2.7, 2.8) == "fails"
    assert warmup.outcome(2.5, 2.8) == "partial"
    assert warmup.outcome(float("nan"), 2.8) == "fails"


def test_unigram_loss_is_the_entropy_of_letter_frequencies():
    train = np.array([0, 0, 1, 1])
    # add-one smoothing: counts 3, 3 -> p = 1/2 each
    assert warmup.unigram_loss(train, np.array([0, 1]), 2) == pytest.approx(math.log(2))


def test_corpus_is_deterministic_and_seed_dependent():
    a, b, c = make_corpus(0, 50), make_corpus(0, 50), make_corpus(1, 50)
    assert a == b and a != c
    assert a.count(".") == 50

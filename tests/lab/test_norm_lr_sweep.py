"""norm-lr-sweep at quick size (learning rates 1e-2 and 1e-1, one seed, 150 steps).

What a norm buys in this model is range: at 1e-1 the model without a norm diverges and
both norms train; at their best rate the two norms end close together."""

import math

import pytest

from minigrad.lab import norm_lr_sweep

EXPERIMENT = "norm-lr-sweep"


def test_the_norms_train_at_the_largest_rate_and_no_norm_does_not(result):
    passed = {c.statement: c.passed for c in result.checks}
    assert passed["LayerNorm trains over a wider range of learning rates than no norm"]
    assert passed["RMSNorm trains over a wider range of learning rates than no norm"]
    assert passed["LayerNorm and RMSNorm train over the same range"]
    assert passed["each at its best learning rate, LayerNorm and RMSNorm end within 0.1 nats/char"]
    assert result.verdict == "supported"
    d = result.data
    assert d["ranges"]["no norm"] == [1e-2]
    no_norm = d["losses"]["no norm", 1e-1, 0]
    assert not math.isfinite(no_norm) or no_norm > d["unigram"]  # diverged


def test_trained_range_needs_every_seed_to_train():
    data = {"lrs": (1e-2, 1e-1), "seeds": (0, 1), "unigram": 2.8,
            "losses": {("x", 1e-2, 0): 1.0, ("x", 1e-2, 1): 1.2,
                       ("x", 1e-1, 0): 1.0, ("x", 1e-1, 1): float("nan")}}  # fmt: skip
    assert norm_lr_sweep.trained_range(data, "x") == [1e-2]


def test_csv_and_plot_are_written(result):
    assert {f.name for f in result.files} >= {"norm-lr-sweep.csv", "norm-lr-sweep.png"}


def test_the_norms_are_compared_at_their_own_best_rate():
    nan = float("nan")
    data = {"lrs": (1e-2, 1e-1), "seeds": (0,), "unigram": 2.8, "steps": 150,
            "losses": {("LayerNorm", 1e-2, 0): 1.30, ("LayerNorm", 1e-1, 0): 1.80,
                       ("RMSNorm", 1e-2, 0): 1.35, ("RMSNorm", 1e-1, 0): 1.50,
                       ("no norm", 1e-2, 0): 1.0, ("no norm", 1e-1, 0): nan}}  # fmt: skip
    assert norm_lr_sweep.best_rate(data, "LayerNorm") == 1e-2
    assert norm_lr_sweep.best_rate(data, "no norm") == 1e-2  # a diverged run never wins
    from minigrad.lab.result import LabResult

    result = LabResult("norm-lr-sweep", norm_lr_sweep.CLAIM, data=data)
    norm_lr_sweep._checks(result)
    assert result.checks[-1].passed  # 1.30 against 1.35, though 0.30 apart at 1e-1
    assert data["best_gap"] == pytest.approx(0.05)
    data["losses"]["RMSNorm", 1e-2, 0] = 1.45
    result = LabResult("norm-lr-sweep", norm_lr_sweep.CLAIM, data=data)
    norm_lr_sweep._checks(result)
    assert not result.checks[-1].passed  # best 1.30 against best 1.45

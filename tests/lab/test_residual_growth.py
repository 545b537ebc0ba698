"""residual-growth: the stream's variance at initialization, measured at 16 blocks."""

import csv

import numpy as np
import pytest

from minigrad.lab import residual_growth

EXPERIMENT = "residual-growth"


def test_claim_is_supported(result):
    assert result.verdict == "supported", result.checks
    # Only what can fail is checked: post-norm's stream and a final norm's output are
    # LayerNorm outputs (variance 1 by construction) and appear as a note.
    assert len(result.checks) == 3
    assert any("by construction" in n for n in result.notes)


def test_pre_norm_stream_grows_by_a_steady_amount_per_block(result):
    var = result.data["stats"]["pre-norm"]["var"]
    increments = np.diff(var)
    assert var[-1] > 2.0 * var[0]
    assert np.all(increments > 0)
    # A straight line explains the growth: the correlation with depth is near 1.
    assert np.corrcoef(np.arange(len(var)), var)[0, 1] ** 2 > 0.95


def test_no_norm_stream_grows_faster_than_pre_norm_and_compounds(result):
    none, pre = result.data["stats"]["none"]["var"], result.data["stats"]["pre-norm"]["var"]
    assert none[-1] > 3 * pre[-1]
    # Compounding: the log-variance, not the variance, is close to a straight line.
    depth = np.arange(len(none))
    assert np.corrcoef(depth, np.log(none))[0, 1] ** 2 > np.corrcoef(depth, none)[0, 1] ** 2


def test_post_norm_and_final_norm_hold_the_variance_at_one(result):
    stats = result.data["stats"]
    np.testing.assert_allclose(stats["post-norm"]["var"][1:], 1.0, atol=0.05)
    np.testing.assert_allclose(stats["pre-norm + final norm"]["var"][1:], 1.0, atol=0.05)


def test_rms_and_variance_agree_for_a_zero_mean_stream(result):
    s = result.data["stats"]["post-norm"]
    np.testing.assert_allclose(s["rms"] ** 2, s["var"], rtol=0.05)


def test_csv_has_a_row_per_depth_with_both_statistics_per_variant(result):
    path = next(f for f in result.files if f.suffix == ".csv")
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == result.data["depth"] + 1
    assert float(rows[-1]["post-norm variance"]) == pytest.approx(1.0, abs=0.05)
    assert any(f.suffix == ".png" for f in result.files)


def test_linear_fit_and_half_ratio_on_known_curves():
    line = 1.0 + 0.5 * np.arange(11)
    intercept, slope, r2 = residual_growth.linear_fit(line)
    assert (intercept, slope, r2) == pytest.approx((1.0, 0.5, 1.0))
    assert residual_growth.half_ratio(line) == pytest.approx(1.0)
    assert residual_growth.half_ratio(2.0 ** np.arange(11)) > 20

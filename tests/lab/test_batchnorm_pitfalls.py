"""batchnorm-pitfalls: batch-size noise, train vs eval, forgotten eval(), padding."""

import numpy as np
import pytest

from minigrad.lab import batchnorm_pitfalls as bp

EXPERIMENT = "batchnorm-pitfalls"


def test_claim_is_supported(result):
    assert result.verdict == "supported", result.checks


def test_batch_noise_falls_like_one_over_sqrt_batch(result):
    d = result.data
    sizes, spread = d["sizes"], d["spread_bn"]
    big = sizes >= 16
    # log(spread) against log(batch size): slope about -1/2 (the standard error of a mean).
    slope = np.polyfit(np.log(sizes[big]), np.log(spread[big]), 1)[0]
    assert -0.7 < slope < -0.35
    assert d["spread_ln"].max() < 1e-9


def test_train_eval_gap_shrinks_with_the_batch(result):
    gap = result.data["gap_bn"]
    assert gap[0] > 3 * gap[-1] > 0
    assert result.data["gap_ln"].max() == 0.0


def test_forgetting_eval_moves_the_running_mean_to_the_test_data(result):
    forgot = result.data["forgot"]
    running = forgot["running_mean"]
    assert running[0] == pytest.approx(bp.MEAN, abs=0.2)
    assert running[-1] == pytest.approx(bp.MEAN + forgot["shift"], abs=0.3)
    assert forgot["eval_mode_diff"] == 0.0 and forgot["layernorm_diff"] < 1e-12


def test_padding_error_grows_with_padding_and_spares_layer_norm(result):
    d = result.data
    assert d["pad_bn"][0] < 1e-9
    assert np.all(np.diff(d["pad_bn"]) > 0)
    assert d["pad_ln"].max() < 1e-9


def test_half_padding_moves_batchnorm_outputs_and_leaves_layernorm_alone():
    # Half the positions are zero padding: the batch statistics change, so BatchNorm's
    # outputs for the real tokens move; LayerNorm normalizes each token by itself.
    rng = np.random.default_rng(0)
    err_bn, err_ln, actual = bp.padding_error(rng, [0.5], n_seqs=64, length=32)
    assert 0.4 < actual[0] < 0.6
    assert err_bn[0] > 0.3 and err_ln[0] < 1e-12

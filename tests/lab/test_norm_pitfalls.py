"""norm-pitfalls: each mistake measured next to the right way."""

import numpy as np

from minigrad.lab import norm_pitfalls as npf

EXPERIMENT = "norm-pitfalls"


def test_claim_is_supported(result):
    assert result.verdict == "supported", result.checks
    assert len(result.checks) == 5


def test_layernorm_on_images_the_right_way_gives_unit_rms_per_pixel(result):
    img = result.data["images"]
    np.testing.assert_allclose(img["right_rms"], 1.0, atol=1e-3)
    # The wrong way keeps the input's brightness order along W.
    assert np.corrcoef(img["wrong_rms"], img["input_rms"])[0, 1] > 0.9
    assert "normalized_shape" in img["error_when_sizes_differ"]


def test_batchnorm_on_sequences_the_right_way_standardizes_each_feature(result):
    seq = result.data["sequences"]
    np.testing.assert_allclose(seq["right_mean"], 0.0, atol=1e-9)
    np.testing.assert_allclose(seq["right_var"], 1.0, atol=1e-3)
    # The wrong way keeps the order of the features' offsets.
    assert np.corrcoef(seq["wrong_mean"], seq["offsets"])[0, 1] > 0.9
    assert "num_features" in seq["error_when_sizes_differ"]


def test_float16_hand_norm_is_fine_on_noisy_rows_and_not_on_flat_ones(result):
    half = result.data["half"]
    errs = half["errors"]["float16, eps 1e-12"]
    assert errs[half["noise_scales"] >= 0.1].max() < 0.05  # ordinary rows: fine
    assert not np.isfinite(half["constant_row"]["float16, eps 1e-12"])
    assert np.isfinite(half["constant_row"]["F.layer_norm, eps 1e-5"])


def test_hand_written_float16_norm_matches_float64_on_ordinary_rows():
    x = np.random.default_rng(0).standard_normal((4, 16))
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(npf._layer_norm_float16(x, 1e-5), ref, atol=1e-2)
    assert np.float16(1e-12) == 0 and np.float16(1e-5) > 0


def test_frozen_batchnorm_moves_in_train_mode_only(result):
    fm = result.data["frozen"]["running_mean"]
    assert np.all(np.diff(fm["frozen, train mode"]) > 0)
    assert np.all(fm["frozen, .eval()"] == 0.0)


def test_forgotten_eval_predictions(result):
    f = result.data["forgot"]
    np.testing.assert_array_equal(f["eval_a"], f["eval_b"])
    assert f["train_vs_eval"] > 0.01

"""invariance: LayerNorm and RMSNorm under scaling, shifting, and their direction."""

import numpy as np
import pytest

from minigrad.lab import invariance

EXPERIMENT = "invariance"


def test_claim_is_supported(result):
    assert result.verdict == "supported", result.checks


def test_layer_norm_ignores_scale_and_shift_where_eps_is_negligible(result):
    d = result.data
    assert d["scale_ln"][d["scales"] >= 1].max() < 1e-4
    assert d["shift_ln"].max() < 1e-10
    # ... but not where a^2 * var(x) is comparable to eps = 1e-5.
    assert d["scale_ln"][d["scales"] <= 1e-3].min() > 0.1


def test_rms_norm_ignores_scale_but_keeps_an_offset(result):
    d = result.data
    assert d["scale_rms"][d["scales"] >= 1e-2].max() < 1e-10
    big = np.abs(d["shifts"]) >= 10
    # With a large shared offset c the output is about sign(c) everywhere.
    np.testing.assert_allclose(d["mean_rms"][big], np.sign(d["shifts"][big]), atol=0.01)
    np.testing.assert_allclose(d["mean_ln"], 0.0, atol=1e-9)


def test_rms_norm_output_points_along_its_input(result):
    d = result.data
    np.testing.assert_allclose(d["cos_rms"], 1.0, atol=1e-12)
    assert d["cos_ln"].min() < 0.5  # LayerNorm removes the offset, turning the vector


def test_eps_change_is_zero_without_eps_and_matches_a_direct_computation():
    x = np.random.default_rng(0).standard_normal((3, 8))
    assert invariance.eps_change(x, 7.0, True, 0.0) == pytest.approx(0.0, abs=1e-12)
    xmu = x - x.mean(-1, keepdims=True)
    var = (xmu**2).mean(-1, keepdims=True)
    direct = np.abs(0.1 * xmu / np.sqrt(0.01 * var + 1e-3) - xmu / np.sqrt(var + 1e-3)).max()
    assert invariance.eps_change(x, 0.1, True, 1e-3) == pytest.approx(direct)


def test_at_the_same_eps_rms_norm_is_no_more_scale_invariant_than_layer_norm(result):
    d = result.data
    big = d["scales"] >= 1
    same, default, ln = d["scale_rms_same_eps"][big], d["scale_rms"][big], d["scale_ln"][big]
    assert same.max() > 1e6 * default.max()  # the gap in the first panel is eps
    assert 0.1 * ln.max() < same.max() < 10 * ln.max()

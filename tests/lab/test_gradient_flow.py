"""gradient-flow: per-layer gradient norms at initialization, measured at 6 and 12 layers.

With embeddings scaled by sqrt(d_model), as in Xiong et al. (2020), the measurement
supports the claim; with unit-scale embeddings pre-norm's gradients are larger near the
input, and these tests pin that finding too.
"""

import numpy as np
import pytest

from minigrad.lab import gradient_flow


@pytest.fixture(scope="module")
def result(quick_run):
    return quick_run("gradient-flow")


def test_post_norm_gradients_grow_toward_the_output(result):
    profile = result.data["profiles"]["post-norm", 12]
    assert profile[-3:].mean() > 1.25 * profile[:3].mean()
    assert result.checks[0].passed


def test_pre_norm_gradients_are_even_with_the_papers_embedding_scale(result):
    for depth in result.data["depths"]:
        profile = result.data["profiles"]["pre-norm", depth]
        assert profile.max() < 1.5 * profile.min()
    assert result.checks[1].passed
    assert result.verdict == "supported"


def test_with_unit_scale_embeddings_pre_norm_gradients_shrink_as_the_stream_grows(result):
    unit = result.data["unit_scale"]
    profile = unit["profiles"]["pre-norm", 12]
    rms = unit["stream_rms"]["pre-norm", 12]
    assert profile[0] > 1.5 * profile[-1]
    assert rms[-1] > 1.5 * rms[0]
    # The gradient falls where the stream's RMS rises: strongly anti-correlated.
    assert np.corrcoef(np.log(rms), np.log(profile))[0, 1] < -0.9
    assert unit["sigma_exponents"][12] < -0.3
    assert any("unit-scale embeddings" in note for note in result.notes)


def test_the_papers_scale_keeps_the_pre_norm_stream_nearly_constant(result):
    rms = result.data["stream_rms"]["pre-norm", 12]
    assert rms[-1] < 1.2 * rms[0]


def test_end_ratio_reads_a_profile_from_input_to_output():
    assert gradient_flow.end_ratio(np.array([1.0, 2.0, 4.0])) == pytest.approx(4.0)
    assert gradient_flow.end_ratio(np.full(5, 3.0)) == pytest.approx(1.0)


def test_sigma_exponent_recovers_a_power_law():
    rms = np.linspace(1.0, 4.0, 10)
    assert gradient_flow.sigma_exponent(2.0 * rms**-0.7, rms) == pytest.approx(-0.7)

"""gradient-flow: per-layer gradient norms at initialization, measured at 6 and 12 layers.

The measurement supports the post-norm half of the claim and contradicts the pre-norm
half (pre-norm's gradients are larger near the input); these tests pin both findings.
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


def test_pre_norm_gradients_shrink_toward_the_output_as_the_stream_grows(result):
    profile = result.data["profiles"]["pre-norm", 12]
    rms = result.data["stream_rms"]["pre-norm", 12]
    assert profile[0] > 1.5 * profile[-1]
    assert rms[-1] > 1.5 * rms[0]
    # The gradient falls where the stream's RMS rises: strongly anti-correlated.
    assert np.corrcoef(np.log(rms), np.log(profile))[0, 1] < -0.9
    assert result.data["sigma_exponents"][12] < -0.3


def test_verdict_reports_the_unsupported_half(result):
    assert [c.passed for c in result.checks] == [True, False]
    assert result.verdict == "partly supported"
    assert any("larger near the input" in note for note in result.notes)


def test_end_ratio_reads_a_profile_from_input_to_output():
    assert gradient_flow.end_ratio(np.array([1.0, 2.0, 4.0])) == pytest.approx(4.0)
    assert gradient_flow.end_ratio(np.full(5, 3.0)) == pytest.approx(1.0)


def test_sigma_exponent_recovers_a_power_law():
    rms = np.linspace(1.0, 4.0, 10)
    assert gradient_flow.sigma_exponent(2.0 * rms**-0.7, rms) == pytest.approx(-0.7)

"""saturation: near-zero GELU / SiLU gradients against the input's scale and depth."""

import math

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad.lab import saturation

EXPERIMENT = "saturation"


def test_claim_is_supported(result):
    assert result.verdict == "supported", result.checks


def test_fraction_approaches_the_share_of_inputs_below_the_flat_threshold(result):
    d = result.data
    scales, gelu = d["scales"], d["sweep"]["gelu"]
    # For a large scale s, GELU'(x) ~ 0 once x < about -2.6 (and near -0.75): the share of
    # s*z below -2.6 is Phi(-2.6/s), which tends to one half.
    s = scales[-1]
    expected = 0.5 * (1 + math.erf(-2.6 / s / math.sqrt(2)))
    assert gelu[-1] == pytest.approx(expected, abs=0.02)
    assert gelu[scales <= 0.5].max() < 0.02


def test_unnormalized_stack_saturates_with_depth_pre_norm_does_not(result):
    frac_none, rms_none = result.data["stacks"]["none"]
    frac_pre, _ = result.data["stacks"]["pre-norm"]
    assert rms_none[-1] > 4 * rms_none[0]
    assert frac_none[-1] > 0.15 + frac_none[0]
    assert frac_pre.max() - frac_pre.min() < 0.05


def test_near_zero_fraction_on_known_points():
    x = np.array([-20.0, -10.0, 0.0, 1.0, 5.0])
    # GELU'(-20), GELU'(-10) ~ 0; GELU'(0) = 0.5; GELU'(1) ~ 1.08; GELU'(5) ~ 1.
    assert saturation.near_zero_fraction(F.gelu, x) == pytest.approx(2 / 5)
    # SiLU'(-10) = sigmoid(-10) (1 - 10 (1 - sigmoid(-10))) ~ -4e-4: near zero too.
    assert saturation.near_zero_fraction(F.silu, x) == pytest.approx(2 / 5)


def test_run_block_records_the_activation_input_and_leaves_the_block_as_it_was():
    import minigrad as mg
    from minigrad.lab.stacks import make_stack, random_stream

    block = make_stack("pre-norm", 1, 16, seed=0)[0]
    activation = block.activation
    x = random_stream(2, 4, 16, seed=0)
    h, y = saturation.run_block(block, x)  # (N, L, 64)
    assert h.shape == (2, 4, 64) and block.activation is activation
    with mg.no_grad():
        np.testing.assert_array_equal(y.numpy(), block(x, is_causal=True).numpy())
        # y = mid + linear2(gelu(h)), so y - linear2(gelu(h)) must be the stream after
        # attention, whose norm2 and linear1 give back h.
        mid = y.numpy() - block.linear2(F.gelu(mg.tensor(h))).numpy()
        again = block.linear1(block.norm2(mg.tensor(mid))).numpy()
    np.testing.assert_allclose(again, h, atol=1e-4)


def test_near_zero_gradients_at_scale_one_sit_where_gelus_slope_crosses_zero(result):
    # GELU'(x) = Phi(x) + x phi(x) is 0 at x = -0.7518: the near-zero gradients of a unit
    # Gaussian input are mostly there, not in the flat tail.
    assert result.data["scale1_near_zero_at_crossing"] > 0.5
    assert any("where GELU's slope crosses zero" in n for n in result.notes)
    x = np.array([-0.7518])
    assert saturation.near_zero_fraction(F.gelu, x) == 1.0

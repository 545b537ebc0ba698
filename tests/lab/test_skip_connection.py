"""skip-connection at quick size: depths 1 to 16, 16-block stacks trained for 100 steps."""

import numpy as np
import pytest

from minigrad.lab import skip_connection as sc

EXPERIMENT = "skip-connection"


def test_claim_is_supported(result):
    assert result.verdict == "supported", result.checks


def test_plain_gradient_falls_by_orders_of_magnitude_residual_does_not(result):
    first, depths = result.data["first"], result.data["depths"]
    plain = np.array([first[False, d] for d in depths])
    resid = np.array([first[True, d] for d in depths])
    assert np.all(np.diff(np.log(plain)) < 0)  # smaller at every added depth
    assert plain[-1] < 1e-6 * plain[0]
    assert resid.min() > 0.5 * resid[0]


def test_block_gain_is_one_plus_the_branch_jacobian(result):
    gains = result.data["gains"]
    # Without the skip the gain is |J_F^T g| / |g|; with it |g + J_F^T g| / |g|, which
    # lies within |J_F^T g| / |g| of 1 (triangle inequality).
    assert np.all(np.abs(gains[True] - 1.0) <= gains[False] + 1e-9)
    assert np.median(gains[False]) < 0.5


def test_the_deep_plain_stack_stays_at_the_mean(result):
    runs, deep = result.data["runs"], result.data["deep"]
    assert runs["plain", deep][-1] > 0.8
    assert runs["residual", deep][-1] < 0.5 * runs["residual", deep][0]


def test_residual_block_adds_its_input():
    import minigrad as mg

    with sc.seeded(0):
        plain, residual = sc.Block(False), sc.Block(True)
    residual.load_state_dict(plain.state_dict())
    x = mg.randn(3, sc.WIDTH)
    with mg.no_grad():
        np.testing.assert_allclose(residual(x).numpy(), x.numpy() + plain(x).numpy(), atol=1e-6)


def test_data_has_unit_variance_and_depends_on_the_seed():
    x, y = sc.make_data(0, 256)
    assert x.shape == (256, sc.N_IN) and y.shape == (256, 1)
    assert y.var() == pytest.approx(1.0) and abs(y.mean()) < 1e-12
    assert not np.array_equal(y, sc.make_data(1, 256)[1])

"""nn.init: gains and fans as PyTorch computes them, distributions' bounds and moments,
in-place filling, seeding."""

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
from minigrad.nn import init


@pytest.mark.parametrize(
    "nonlinearity,param",
    [
        ("linear", None),
        ("conv2d", None),
        ("sigmoid", None),
        ("tanh", None),
        ("relu", None),
        ("leaky_relu", None),
        ("leaky_relu", 0.2),
        ("leaky_relu", math.sqrt(5)),
        ("selu", None),
    ],
)
def test_calculate_gain_matches_pytorch(torch, nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == pytest.approx(
        torch.nn.init.calculate_gain(nonlinearity, param), rel=1e-15
    )


def test_fans_match_pytorch(torch):
    for shape in [(3, 4), (8, 3, 5, 5), (2, 6, 7)]:
        ours = init._calculate_fan_in_and_fan_out(mg.zeros(*shape))
        theirs = torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(*shape))
        assert ours == theirs
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(mg.zeros(5))


def _big(*shape):
    return mg.zeros(*shape)


def test_uniform_bounds_for_xavier_and_kaiming():
    w = _big(300, 200)
    # xavier: a = gain * sqrt(6 / (fan_in + fan_out)); kaiming fan_in: sqrt(3) * gain / sqrt(fan)
    cases = [
        (lambda t: init.xavier_uniform_(t, gain=2.0), 2.0 * math.sqrt(6 / 500)),
        (lambda t: init.kaiming_uniform_(t), math.sqrt(3) * math.sqrt(2) / math.sqrt(200)),  # a=0
        (lambda t: init.kaiming_uniform_(t, a=math.sqrt(5)), 1 / math.sqrt(200)),
        (
            lambda t: init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu"),
            math.sqrt(6 / 300),
        ),
    ]
    for fill, bound in cases:
        assert fill(w) is w
        assert np.abs(w.numpy()).max() <= bound * (1 + 1e-6)  # float32 rounding
        assert np.abs(w.numpy()).max() > 0.99 * bound  # 60,000 draws reach the edge
        assert abs(w.numpy().std() - bound / math.sqrt(3)) < 0.01 * bound


def test_normal_stds_for_xavier_and_kaiming():
    w = _big(400, 250)
    cases = [
        (lambda t: init.xavier_normal_(t), math.sqrt(2 / 650)),
        (lambda t: init.kaiming_normal_(t, nonlinearity="relu"), math.sqrt(2 / 250)),
        (
            lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="tanh"),
            (5 / 3) / math.sqrt(400),
        ),
        (lambda t: init.normal_(t, mean=1.0, std=0.02), 0.02),
    ]
    for fill, std in cases:
        fill(w)
        assert abs(w.numpy().std() - std) < 0.01 * std
    assert abs(w.numpy().mean() - 1.0) < 1e-3


def test_constant_fills_and_dtype_kept():
    w = mg.zeros(3, 3, dtype=mg.float64)
    assert init.ones_(w) is w and np.all(w.numpy() == 1) and w.dtype == np.float64
    init.constant_(w, 0.25)
    assert np.all(w.numpy() == 0.25)
    init.zeros_(w)
    assert np.all(w.numpy() == 0)
    init.eye_(w)
    np.testing.assert_array_equal(w.numpy(), np.eye(3))
    init.uniform_(w, -2, -1)
    assert np.all((w.numpy() >= -2) & (w.numpy() < -1))
    init.trunc_normal_(w, std=5.0, a=-1.0, b=1.0)
    assert np.all(np.abs(w.numpy()) <= 1.0)


def test_init_works_on_parameters_in_grad_mode_and_is_seeded():
    p = nn.Parameter(mg.zeros(4, 4))
    mg.manual_seed(1)
    init.kaiming_normal_(p)
    a = p.numpy().copy()
    mg.manual_seed(1)
    init.kaiming_normal_(p)
    np.testing.assert_array_equal(p.numpy(), a)
    assert p.requires_grad and p.is_leaf and p.grad is None


def test_bad_arguments():
    with pytest.raises(ValueError, match="fan_in, fan_out"):
        init.kaiming_uniform_(mg.zeros(2, 2), mode="fan_avg")
    with pytest.raises(ValueError, match="unsupported nonlinearity"):
        init.calculate_gain("swish")

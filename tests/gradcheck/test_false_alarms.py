"""Correct backwards that the checker used to report failed, each a class of cases.

Every function here has a right backward (minigrad's own, or written from the formula
in NumPy), at points where finite differences are hard: the function changes on the
scale of the step or below it, its outputs are rounded at the precision of larger
intermediates, or a kink lies within the step. The checker may call them inconclusive
(and must say why), never failed:

- a steep ``tanh(k x)`` whose scale 1/k is 0.03 to 100 steps, at many points, in float32
  and float64 (100x below the step in float64 failed nearly every point);
- BatchNorm with eps 1e-14 of a feature whose spread is 1e-7 or 1e-8, under
  ``gradcheck`` and ``gradgradcheck``;
- LayerNorm of degenerate rows (spread 0 to 1e-2, eps down to 1e-12) in float32;
- RMSNorm of a padding row near zero with a tiny eps;
- float32 ``gradcheck_module`` of correct residual MLPs: one whose residual branch is
  scaled down (a layer scale: the branch's parameters move the residual stream by less
  than its rounding at the step), and ReLU MLPs whose kinks fall within the step.

Each was failed before (the module docstrings of ``steps`` and ``numeric`` say what
changed). The wrong backwards of ``test_ill_conditioned.py`` and the banks still fail.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.gradcheck import gradcheck, gradcheck_module, gradgradcheck

pytestmark = pytest.mark.filterwarnings("ignore::minigrad.gradcheck.report.GradcheckWarning")

STEP = {np.float64: 1e-6, np.float32: 2.0**-8}
NOT_FAILED = ("passed", "inconclusive", "non-differentiable")


def quiet(check, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return check(*args, return_result=True, **kwargs)


def failures(results) -> list:
    return [str(r) for r in results if r.verdict == "failed"]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_a_steep_tanh_at_any_scale_against_the_step_is_not_failed(dtype):
    # tanh(k x) with its scale 1/k from 0.03 to 100 steps, at points up to 10 scales
    # away, 8 seeds each: 320 checks. Before, 29 (float32) and 30 (float64) were failed,
    # all but one at scales of 0.1 step or less.
    h, results = STEP[dtype], []
    for scale in (0.03, 0.1, 0.3, 0.5, 1.0, 2.0, 3.0, 10.0, 30.0, 100.0):
        k = mg.tensor(np.array(1 / (scale * h), dtype=dtype))
        for spread in (0.3, 1.0, 3.0, 10.0):
            for seed in range(8):
                x = np.random.default_rng(seed).standard_normal(12) * spread * scale * h
                t = mg.tensor(x.astype(dtype), requires_grad=True)
                results.append(quiet(gradcheck, lambda x, k=k: (x * k).tanh(), (t,)))
    assert not failures(results), failures(results)[0]
    if dtype == np.float64:
        # Where the step resolves the function, it is decided: at 30 and 100 steps
        # every check passes. (In float32 the saturated points are inconclusive: their
        # small slopes are below float32's resolution at the step.)
        assert all(r.verdict == "passed" for r in results[-64:])


def test_a_tanh_100_times_steeper_than_the_step_is_inconclusive_and_says_why():
    h = 1e-6
    x = np.random.default_rng(0).standard_normal(6) * 0.5 * 0.01 * h
    k = mg.tensor(np.array(1 / (0.01 * h)))
    result = quiet(gradcheck, lambda x: (x * k).tanh(), (mg.tensor(x, requires_grad=True),))
    assert result.verdict == "inconclusive"
    assert "the function changes within the step" in result.pairs[0].reason


@pytest.mark.parametrize("spread", [1e-6, 1e-7, 1e-8])
def test_batchnorm_with_a_tiny_eps_on_a_near_constant_feature(spread):
    # eps 1e-14: the feature's spread sets the scale on which the output changes, at or
    # below the step 1e-6. Before, spreads 1e-7 and 1e-8 were failed at both orders.
    for seed in range(5):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((6, 3))
        x[:, 1] = 0.5 + spread * rng.standard_normal(6)
        args = tuple(
            mg.tensor(a, requires_grad=True)
            for a in (x, rng.standard_normal(3), rng.standard_normal(3))
        )

        def f(x, w, b):
            return F.batch_norm(x, None, None, w, b, training=True, eps=1e-14)

        first, second = quiet(gradcheck, f, args), quiet(gradgradcheck, f, args)
        assert first.verdict in NOT_FAILED, str(first)
        assert second.verdict in NOT_FAILED, str(second)
        # The other features are decided: their entries pass.
        assert first.pair(0, 1).verdict == "passed"


def test_layer_norm_of_degenerate_rows_in_float32():
    # A row of spread 0 to 1e-2 around 0.7, eps 1e-5 to 1e-12, 6 seeds: 90 checks in
    # float32 (44 were failed before) and the same 90 in float64.
    results = []
    for dtype in (np.float32, np.float64):
        for spread in (0.0, 1e-6, 1e-4, 1e-3, 1e-2):
            for eps in (1e-5, 1e-8, 1e-12):
                for seed in range(6):
                    rng = np.random.default_rng(seed)
                    x = rng.standard_normal((3, 6))
                    x[0] = 0.7 + spread * rng.standard_normal(6)
                    t = mg.tensor(x.astype(dtype), requires_grad=True)
                    w = mg.tensor(rng.standard_normal(6).astype(dtype), requires_grad=True)
                    results.append(
                        quiet(
                            gradcheck, lambda x, w, e=eps: F.layer_norm(x, (6,), w, eps=e), (t, w)
                        )
                    )
    assert not failures(results), failures(results)[0]


@pytest.mark.parametrize("eps", [None, 1e-12, 1e-10])
def test_rms_norm_of_a_padding_row_is_smooth_not_a_kink(eps):
    # A row at (or within 1e-7 of) zero: RMSNorm changes there on the scale sqrt(eps),
    # smoothly. Before, float64 called it non-differentiable and float32 failed it.
    for spread in (0.0, 1e-12, 1e-9, 1e-7):
        for dtype in (np.float64, np.float32):
            rng = np.random.default_rng(0)
            x = rng.standard_normal((3, 8))
            x[1] = spread * rng.standard_normal(8)
            t = mg.tensor(x.astype(dtype), requires_grad=True)
            w = mg.tensor(rng.standard_normal(8).astype(dtype), requires_grad=True)
            result = quiet(gradcheck, lambda x, w: F.rms_norm(x, (8,), w, eps=eps), (t, w))
            assert result.verdict in ("passed", "inconclusive"), str(result)
            if result.verdict == "inconclusive":
                assert result.pairs[0].reason


class LayerScaleBlock(nn.Module):
    """x + gamma * fc2(gelu(fc1(x))), gamma a small learned scale per feature."""

    def __init__(self, d, hidden, scale):
        super().__init__()
        self.fc1, self.fc2, self.act = nn.Linear(d, hidden), nn.Linear(hidden, d), nn.GELU()
        self.gamma = nn.Parameter(mg.full((d,), scale))

    def forward(self, x):
        return x + self.gamma * self.fc2(self.act(self.fc1(x)))


class LayerScaleMLP(nn.Module):
    def __init__(self, scale, d=6, hidden=12):
        super().__init__()
        self.b1, self.b2 = LayerScaleBlock(d, hidden, scale), LayerScaleBlock(d, hidden, scale)
        self.ln = nn.LayerNorm(d)

    def forward(self, x):
        return self.ln(self.b2(self.b1(x)))


@pytest.mark.parametrize(
    "scale, seed",
    [(1e-2, 0), (1e-3, 1), (1e-4, 0), (1e-4, 1)],
    ids=["1e-2", "1e-3", "1e-4a", "1e-4b"],
)
def test_float32_module_check_of_a_residual_mlp_with_a_layer_scale(scale, seed):
    # The residual stream sits near 3; a branch scaled by 1e-2..1e-4 moves it by less
    # than its float32 rounding at the step, so the outputs (after a LayerNorm) move
    # by one rounding step of the stream, or not at all. Each was failed before
    # (numerical 0 or a few rounding steps against a slope of 1e-5..1e-4).
    mg.manual_seed(seed)
    model = LayerScaleMLP(scale)
    x = mg.randn(4, 6) + 3
    result = quiet(gradcheck_module, model, x, dtype=None)
    assert result.verdict in NOT_FAILED, str(result)


class ReluMLP(nn.Module):
    def __init__(self, norm, d=6, hidden=12):
        super().__init__()
        self.inp = nn.Linear(d, d)
        self.blocks = nn.ModuleList(
            [
                nn.Sequential(
                    nn.LayerNorm(d) if norm else nn.Identity(),
                    nn.Linear(d, hidden),
                    nn.ReLU(),
                    nn.Linear(hidden, d),
                )
                for _ in range(2)
            ]
        )
        self.head = nn.Linear(d, 3)

    def forward(self, x, y=None):
        x = self.inp(x)
        for block in self.blocks:
            x = x + block(x)
        out = self.head(x)
        return out if y is None else ((out - y) ** 2).mean()


@pytest.mark.parametrize(
    "norm, loss, seed", [(False, False, 2), (True, False, 1), (False, True, 2), (True, True, 1)]
)
def test_float32_module_check_of_a_relu_mlp_with_kinks_within_the_step(norm, loss, seed):
    # The float32 step (3.9e-3) moves some ReLU inputs across zero: the central
    # difference at h averages two slopes. Each of these was failed before.
    mg.manual_seed(seed)
    model = ReluMLP(norm)
    x, y = mg.randn(5, 6), mg.randn(5, 3)
    result = quiet(gradcheck_module, model, x, *((y,) if loss else ()), dtype=None)
    assert result.verdict in NOT_FAILED, str(result)


# ---------------------------------------------------------------------------- reasons
def test_a_near_zero_variance_is_named_in_the_reason():
    # RMSNorm with eps = float64's machine epsilon of a padding row near zero: the
    # function changes on the scale 1e-8, below the step.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 8))
    x[1] = 1e-9 * rng.standard_normal(8)
    t = mg.tensor(x, requires_grad=True)
    w = mg.tensor(rng.standard_normal(8), requires_grad=True)
    pair = quiet(gradcheck, lambda x, w: F.rms_norm(x, (8,), w), (t, w)).pairs[0]
    assert pair.verdict == "inconclusive"
    assert "non-differentiable" not in pair.reason
    assert "nearly constant along axis 1 through [1, " in pair.reason
    assert "near-zero variance" in pair.reason


def causal_scores():
    """Attention scores (2 x 4 x 4, seeded), the causal mask (True where a position may
    attend), and the scores masked with -inf as a leaf that requires grad."""
    scores = np.random.default_rng(0).standard_normal((2, 4, 4))
    causal = np.tril(np.ones((4, 4), dtype=bool))
    masked = mg.tensor(np.where(causal, scores, -np.inf), requires_grad=True)
    return scores, causal, masked


def test_a_mask_is_named_not_called_a_domain_edge():
    # nanoGPT's causal mask: -inf where a position may not attend, then softmax. The
    # masked scores cannot be moved by a step; the others are checked and pass.
    scores, causal, masked = causal_scores()
    pair = quiet(gradcheck, lambda s: s.softmax(-1), (masked,)).pairs[0]
    assert pair.verdict == "passed", pair.reason
    assert "12 input elements are not finite" in pair.reason and "mask" in pair.reason
    assert "domain edge" not in pair.reason
    # The masking itself: the -inf outputs stay -inf, so their slopes are 0, checked.
    x = mg.tensor(scores, requires_grad=True)
    mask = mg.tensor(~causal)
    pair = quiet(gradcheck, lambda x: x.masked_fill(mask, float("-inf")), (x,)).pairs[0]
    assert pair.verdict == "passed", pair.reason
    assert "12 output elements are not finite" in pair.reason


def test_masks_in_fast_mode_and_a_gradient_that_leaks_through_a_mask():
    # Fast mode moves every element along a random direction: a -inf stays where it
    # is, and an output that stays -inf has slope 0 (both once made NaN: a failure).
    scores, causal, masked = causal_scores()
    assert quiet(gradcheck, lambda s: s.softmax(-1), (masked,), fast_mode=True).passed

    class Fill(mg.autograd.Function):
        """-inf where a position may not attend; backward keeps the other positions."""

        leak = False

        @staticmethod
        def forward(ctx, x):
            return np.where(causal, x.numpy(), -np.inf)

        @classmethod
        def backward(cls, ctx, g):
            return g if cls.leak else g * mg.tensor(causal.astype(np.float64))

    x = mg.tensor(scores, requires_grad=True)
    for fast in (False, True):
        assert quiet(gradcheck, Fill.apply, (x,), fast_mode=fast).passed
    Fill.leak = True  # the masked positions pass gradient on: wrong, their slope is 0
    for fast in (False, True):
        assert quiet(gradcheck, Fill.apply, (x,), fast_mode=fast).verdict == "failed"

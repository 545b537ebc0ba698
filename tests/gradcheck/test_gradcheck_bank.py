"""A bank of deliberately wrong backwards: gradcheck must catch every one.

Each case is a custom ``Function`` with a NumPy forward and two backwards, the correct
one and a wrong one (the kind of mistake people make in hand-written backwards). For
every case the checker must:

- pass the correct backward (float64), so that the case itself is sound;
- fail the wrong one and name exactly the inputs whose gradient is wrong;
- in float32, still fail the wrong one (these errors are far above float32 noise) and
  never fail the correct one.

The forwards and backwards here are written from the formulas, independently of the
library's own operations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

import minigrad as mg
from minigrad.gradcheck import GradcheckError, GradcheckWarning, gradcheck
from tests.gradcheck.handmade import numpy_function

# Tests that expect a GradcheckWarning say so with pytest.warns; the others' are noise.
pytestmark = pytest.mark.filterwarnings("ignore::minigrad.gradcheck.report.GradcheckWarning")


@dataclass
class Case:
    name: str
    forward: object
    right: object  # the correct backward
    wrong: object  # the deliberately wrong backward
    shapes: list
    bad: set  # the inputs whose gradient the wrong backward gets wrong
    positive: set = field(default_factory=set)  # inputs that must be > 0 (away from 0)

    def inputs(self, dtype, seed=0):
        rng = np.random.default_rng(seed)
        out = []
        for i, shape in enumerate(self.shapes):
            x = rng.standard_normal(shape)
            if i in self.positive:
                x = 0.5 + np.abs(x)
            out.append(mg.tensor(x.astype(dtype), requires_grad=True))
        return tuple(out)

    def fn(self, which):
        return numpy_function(self.forward, getattr(self, which))

    def __repr__(self):
        return self.name


# ---------------------------------------------------------------------------- formulas
def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _norm_last(x, eps=1e-5):
    """(xhat, rstd) of a normalization over the last axis."""
    mu = x.mean(-1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps)
    return (x - mu) * rstd, rstd


def _norm_batch(x, eps=1e-5):
    """(xhat, rstd) of a normalization over the batch axis 0 (BatchNorm, training)."""
    mu = x.mean(0, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mu) ** 2).mean(0, keepdims=True) + eps)
    return (x - mu) * rstd, rstd


def _layer_norm(x, w, b):
    return _norm_last(x)[0] * w + b


def _ln_right(g, x, w, b):
    xhat, rstd = _norm_last(x)
    gx = g * w
    dx = rstd * (gx - gx.mean(-1, keepdims=True) - xhat * (gx * xhat).mean(-1, keepdims=True))
    return dx, (g * xhat).sum(0), g.sum(0)


def _ln_no_mean(g, x, w, b):
    xhat, rstd = _norm_last(x)
    gx = g * w
    return rstd * (gx - xhat * (gx * xhat).mean(-1, keepdims=True)), (g * xhat).sum(0), g.sum(0)


def _ln_no_var(g, x, w, b):
    xhat, rstd = _norm_last(x)
    gx = g * w
    return rstd * (gx - gx.mean(-1, keepdims=True)), (g * xhat).sum(0), g.sum(0)


def _ln_weight_without_xhat(g, x, w, b):
    dx, _, db = _ln_right(g, x, w, b)
    return dx, g.sum(0), db


def _batch_norm(x, w, b):
    return _norm_batch(x)[0] * w + b


def _bn_right(g, x, w, b):
    xhat, rstd = _norm_batch(x)
    gx = g * w
    dx = rstd * (gx - gx.mean(0, keepdims=True) - xhat * (gx * xhat).mean(0, keepdims=True))
    return dx, (g * xhat).sum(0), g.sum(0)


def _bn_uncoupled(g, x, w, b):
    xhat, rstd = _norm_batch(x)
    return rstd * g * w, (g * xhat).sum(0), g.sum(0)


def _bn_weight_without_xhat(g, x, w, b):
    dx, _, db = _bn_right(g, x, w, b)
    return dx, g.sum(0), db


def _rms_norm(x, w):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w


def _rms_right(g, x, w):
    r = 1.0 / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6)
    gx = g * w
    return r * (gx - x * r * r * (gx * x).mean(-1, keepdims=True)), (g * x * r).sum(0)


def _rms_uncoupled(g, x, w):
    r = 1.0 / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6)
    return r * g * w, (g * x * r).sum(0)


_K = np.sqrt(2.0 / np.pi)


def _gelu(x):
    return 0.5 * x * (1.0 + np.tanh(_K * (x + 0.044715 * x**3)))


def _gelu_grad(g, x, inner=True):
    t = np.tanh(_K * (x + 0.044715 * x**3))
    du = _K * (1.0 + (3 * 0.044715 * x**2 if inner else 0.0))
    return (g * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du),)


def _lse(x):
    m = x.max(-1, keepdims=True)
    return (m + np.log(np.exp(x - m).sum(-1, keepdims=True)))[..., 0]


_IDX = np.array([0, 2, 3, 3])  # element 3 picked twice
_MASK = np.array([[True, False, False, True], [False, True, False, False], [True] * 4])


def _scatter(g, shape, idx):
    out = np.zeros(shape)
    np.add.at(out, idx, g)
    return out


def _one_wrong_element(g, x):
    d = g * np.cos(x)
    d.reshape(-1)[6] *= 1.5  # input element [1, 2] of a [3, 4] input
    return (d,)


def _argmax_mask(x, pick=np.argmax):
    m = np.zeros_like(x)
    np.put_along_axis(m, pick(x, -1)[..., None], 1.0, -1)
    return m


_D = 4  # attention head size


# ---------------------------------------------------------------------------- the bank
BANK = [
    Case(
        "wrong sign (tanh)",
        np.tanh,
        lambda g, x: (g * (1 - np.tanh(x) ** 2),),
        lambda g, x: (-g * (1 - np.tanh(x) ** 2),),
        [(3, 4)],
        {0},
    ),
    Case(
        "missing factor 2 (x^2)",
        lambda x: x * x,
        lambda g, x: (2 * g * x,),
        lambda g, x: (g * x,),
        [(3, 4)],
        {0},
    ),
    Case(
        "missing broadcast reduction (bias takes one row)",
        lambda a, b: a + b,
        lambda g, a, b: (g, g.sum(0)),
        lambda g, a, b: (g, g[0]),
        [(3, 4), (4,)],
        {1},
    ),
    Case(
        "broadcast reduced by mean instead of sum",
        lambda a, b: a * b,
        lambda g, a, b: (g * b, (g * a).sum(0)),
        lambda g, a, b: (g * b, (g * a).mean(0)),
        [(3, 4), (4,)],
        {1},
    ),
    Case(
        "transposed matmul gradient (left)",
        lambda a, b: a @ b,
        lambda g, a, b: (g @ b.T, a.T @ g),
        lambda g, a, b: (g @ b, a.T @ g),
        [(4, 4), (4, 4)],
        {0},
    ),
    Case(
        "transposed matmul gradient (right)",
        lambda a, b: a @ b,
        lambda g, a, b: (g @ b.T, a.T @ g),
        lambda g, a, b: (g @ b.T, g.T @ a),
        [(4, 4), (4, 4)],
        {1},
    ),
    Case(
        "variance: n instead of n - 1",
        lambda x: x.var(-1, ddof=1),
        lambda g, x: (g[..., None] * 2 * (x - x.mean(-1, keepdims=True)) / (x.shape[-1] - 1),),
        lambda g, x: (g[..., None] * 2 * (x - x.mean(-1, keepdims=True)) / x.shape[-1],),
        [(3, 6)],
        {0},
    ),
    Case(
        "LayerNorm backward missing the mean term",
        _layer_norm,
        _ln_right,
        _ln_no_mean,
        [(4, 6), (6,), (6,)],
        {0},
    ),
    Case(
        "LayerNorm backward missing the variance term",
        _layer_norm,
        _ln_right,
        _ln_no_var,
        [(4, 6), (6,), (6,)],
        {0},
    ),
    Case(
        "LayerNorm weight gradient without xhat",
        _layer_norm,
        _ln_right,
        _ln_weight_without_xhat,
        [(4, 6), (6,), (6,)],
        {1},
    ),
    Case(
        "BatchNorm backward ignoring the batch coupling",
        _batch_norm,
        _bn_right,
        _bn_uncoupled,
        [(6, 3), (3,), (3,)],
        {0},
    ),
    Case(
        "BatchNorm weight gradient without xhat",
        _batch_norm,
        _bn_right,
        _bn_weight_without_xhat,
        [(6, 3), (3,), (3,)],
        {1},
    ),
    Case(
        "RMSNorm backward missing the mean-square term",
        _rms_norm,
        _rms_right,
        _rms_uncoupled,
        [(3, 5), (5,)],
        {0},
    ),
    Case(
        "softmax backward missing the subtraction",
        _softmax,
        lambda g, x: (_softmax(x) * (g - (g * _softmax(x)).sum(-1, keepdims=True)),),
        lambda g, x: (_softmax(x) * g,),
        [(3, 5)],
        {0},
    ),
    Case(
        "log_softmax backward without the softmax",
        lambda x: x - _lse(x)[..., None],
        lambda g, x: (g - _softmax(x) * g.sum(-1, keepdims=True),),
        lambda g, x: (g - g.sum(-1, keepdims=True),),
        [(3, 5)],
        {0},
    ),
    Case(
        "logsumexp backward with unnormalized exp",
        _lse,
        lambda g, x: (g[..., None] * _softmax(x),),
        lambda g, x: (g[..., None] * np.exp(x),),
        [(3, 5)],
        {0},
    ),
    Case(
        "off-by-one index in a gather backward",
        lambda x: x[_IDX],
        lambda g, x: (_scatter(g, x.shape, _IDX),),
        lambda g, x: (_scatter(g, x.shape, _IDX + 1),),
        [(6,)],
        {0},
    ),
    Case(
        "gradient wrong on one element only",
        np.sin,
        lambda g, x: (g * np.cos(x),),
        _one_wrong_element,
        [(3, 4)],
        {0},
    ),
    Case(
        "gradients of two inputs swapped",
        lambda a, b: a * b,
        lambda g, a, b: (g * b, g * a),
        lambda g, a, b: (g * a, g * b),
        [(3, 3), (3, 3)],
        {0, 1},
    ),
    Case(
        "incoming gradient ignored",
        np.exp,
        lambda g, x: (g * np.exp(x),),
        lambda g, x: (np.exp(x),),
        [(3, 4)],
        {0},
    ),
    Case(
        "quotient rule without the minus sign",
        lambda a, b: a / b,
        lambda g, a, b: (g / b, -g * a / b**2),
        lambda g, a, b: (g / b, g * a / b**2),
        [(3, 4), (3, 4)],
        {1},
        positive={1},
    ),
    Case(
        "chain rule dropped (tanh(x)^2)",
        lambda x: np.tanh(x) ** 2,
        lambda g, x: (2 * g * np.tanh(x) * (1 - np.tanh(x) ** 2),),
        lambda g, x: (2 * g * np.tanh(x),),
        [(3, 4)],
        {0},
    ),
    Case(
        "sigmoid derivative taken at x instead of y",
        lambda x: 1 / (1 + np.exp(-x)),
        lambda g, x: (g * (1 / (1 + np.exp(-x))) * (1 - 1 / (1 + np.exp(-x))),),
        lambda g, x: (g * x * (1 - x),),
        [(3, 4)],
        {0},
    ),
    Case(
        "GELU (tanh) derivative missing the inner 3*0.044715*x^2",
        _gelu,
        lambda g, x: _gelu_grad(g, x),
        lambda g, x: _gelu_grad(g, x, inner=False),
        [(3, 4)],
        {0},
    ),
    Case(
        "mean backward divides by the total size",
        lambda x: x.mean(1),
        lambda g, x: (np.broadcast_to(g[:, None], x.shape) / x.shape[1],),
        lambda g, x: (np.broadcast_to(g[:, None], x.shape) / x.size,),
        [(3, 4)],
        {0},
    ),
    Case(
        "cumsum backward not reversed",
        lambda x: np.cumsum(x, -1),
        lambda g, x: (np.flip(np.cumsum(np.flip(g, -1), -1), -1),),
        lambda g, x: (np.cumsum(g, -1),),
        [(2, 5)],
        {0},
    ),
    Case(
        "masked_fill gradient leaks into masked positions",
        lambda x: np.where(_MASK, 0.0, x),
        lambda g, x: (np.where(_MASK, 0.0, g),),
        lambda g, x: (g,),
        [(3, 4)],
        {0},
    ),
    Case(
        "max gradient sent to the argmin",
        lambda x: x.max(-1),
        lambda g, x: (g[..., None] * _argmax_mask(x),),
        lambda g, x: (g[..., None] * _argmax_mask(x, np.argmin),),
        [(3, 5)],
        {0},
    ),
    Case(
        "linear weight gradient from the first example only",
        lambda x, w, b: x @ w.T + b,
        lambda g, x, w, b: (g @ w, g.T @ x, g.sum(0)),
        lambda g, x, w, b: (g @ w, g[:1].T @ x[:1], g.sum(0)),
        [(5, 3), (2, 3), (2,)],
        {1},
    ),
    Case(
        "attention scores: 1/sqrt(d) forgotten in the backward",
        lambda q, k: q @ k.T / np.sqrt(_D),
        lambda g, q, k: (g @ k / np.sqrt(_D), g.T @ q / np.sqrt(_D)),
        lambda g, q, k: (g @ k, g.T @ q),
        [(3, _D), (5, _D)],
        {0, 1},
    ),
    Case(
        "clamp gradient passed outside the range",
        lambda x: np.clip(x, -0.5, 0.5),
        lambda g, x: (g * (np.abs(x) < 0.5),),
        lambda g, x: (g,),
        [(3, 4)],
        {0},
    ),
]


def test_the_bank_has_at_least_20_kinds_of_mistake():
    assert len(BANK) >= 20
    assert len({c.name for c in BANK}) == len(BANK)


@pytest.mark.parametrize("case", BANK, ids=repr)
def test_the_correct_backward_passes(case):
    result = gradcheck(case.fn("right"), case.inputs(np.float64), return_result=True)
    assert result.verdict == "passed", str(result)


@pytest.mark.parametrize("case", BANK, ids=repr)
def test_the_wrong_backward_is_caught_and_the_input_named(case):
    with pytest.raises(GradcheckError) as info:
        gradcheck(case.fn("wrong"), case.inputs(np.float64))
    message = str(info.value)
    for i in case.bad:
        assert f"with respect to input {i}," in message
    result = info.value.result
    failed = {p.input for p in result.pairs if p.verdict == "failed"}
    assert failed == case.bad
    assert not result.problems  # a Jacobian mismatch, not some other trouble


@pytest.mark.parametrize("case", BANK, ids=repr)
def test_float32_catches_the_wrong_backward_and_never_fails_the_right_one(case):
    xs = case.inputs(np.float32)
    with pytest.warns(GradcheckWarning, match="not float64"):
        right = gradcheck(case.fn("right"), xs, return_result=True)
        wrong = gradcheck(case.fn("wrong"), xs, return_result=True)
    assert right.verdict != "failed", str(right)
    assert {p.input for p in wrong.pairs if p.verdict == "failed"} == case.bad, str(wrong)


def test_one_wrong_element_is_pinpointed():
    case = next(c for c in BANK if c.name == "gradient wrong on one element only")
    result = gradcheck(case.fn("wrong"), case.inputs(np.float64), return_result=True)
    pair = result.pair(0, 0)
    assert pair.verdict == "failed"
    assert pair.counts["failed"] == 1
    (entry,) = pair.worst
    assert entry.input_index == (1, 2) and entry.output_index == (1, 2)
    assert entry.analytical == pytest.approx(1.5 * entry.numerical, rel=1e-6)


def test_off_by_one_points_at_the_shifted_elements():
    case = next(c for c in BANK if c.name.startswith("off-by-one"))
    result = gradcheck(case.fn("wrong"), case.inputs(np.float64), return_result=True)
    pair = result.pair(0, 0)
    # output j reads x[_IDX[j]]; the wrong backward credits x[_IDX[j] + 1] instead.
    wrong = {(e.output_index, e.input_index) for e in pair.worst}
    assert ((0,), (1,)) in wrong or ((0,), (0,)) in wrong


@pytest.mark.parametrize(
    "name",
    ["LayerNorm backward missing the mean term", "BatchNorm backward ignoring the batch coupling"],
)
def test_normalization_bugs_are_caught_in_fast_mode_too(name):
    case = next(c for c in BANK if c.name == name)
    result = gradcheck(
        case.fn("wrong"), case.inputs(np.float64), fast_mode=True, return_result=True
    )
    assert {p.input for p in result.pairs if p.verdict == "failed"} == case.bad

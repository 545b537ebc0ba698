"""No false alarms: every differentiable operation and layer of the library, checked.

- float64: every correct operation gets the verdict "passed" (not merely "not failed":
  no inconclusive, vacuous or non-differentiable verdict on smooth, generic inputs).
- float32: every correct operation gets "passed" or "inconclusive", never "failed",
  over several random draws, and with loosened tolerances most of them pass.

Inputs are drawn away from the operations' kinks and domain edges (relu/abs at 0,
clamp bounds, ties in max), where "non-differentiable" would be the right verdict.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.gradcheck import gradcheck, gradcheck_module, gradgradcheck

# How each input is drawn: a shape, or (shape, domain).
#   "any": standard normal; "pos": in [0.5, 2.5]; "nz": |x| in [0.2, 2.2], random sign;
#   "distinct": a permutation of well-separated values (no ties).


def _draw(spec, rng, dtype):
    shape, domain = spec if isinstance(spec[-1], str) else (spec, "any")
    n = int(np.prod(shape))
    if domain == "any":
        x = rng.standard_normal(shape)
    elif domain == "pos":
        x = 0.5 + 2.0 * rng.random(shape)
    elif domain == "nz":
        x = (0.2 + 2.0 * rng.random(shape)) * rng.choice([-1.0, 1.0], size=shape)
    elif domain == "distinct":
        x = (rng.permutation(n) * 0.37 - n * 0.15).reshape(shape)
    else:
        raise ValueError(domain)
    return mg.tensor(x.astype(dtype), requires_grad=True)


def _sdpa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


_IDX = np.array([[0, 2], [3, 3]])
_BOOL = np.array([True, False, True, True])
_TARGET = np.array([1, 0, 3])

# (name, function, input specs)
OPS = [
    ("add", lambda a, b: a + b, [(3, 4), (3, 4)]),
    ("add broadcast row", lambda a, b: a + b, [(3, 4), (4,)]),
    ("add broadcast column", lambda a, b: a + b, [(3, 1), (1, 4)]),
    ("sub broadcast", lambda a, b: a - b, [(2, 3, 4), (3, 1)]),
    ("mul broadcast", lambda a, b: a * b, [(2, 3, 4), (4,)]),
    ("div", lambda a, b: a / b, [(3, 4), ((3, 4), "nz")]),
    ("div broadcast", lambda a, b: a / b, [(3, 4), ((1, 4), "nz")]),
    ("pow tensor exponent", lambda a, b: a**b, [((3, 4), "pos"), (3, 4)]),
    ("scalar add", lambda a: a + 2.5, [(3, 4)]),
    ("scalar rsub", lambda a: 2.5 - a, [(3, 4)]),
    ("scalar mul", lambda a: a * -1.5, [(3, 4)]),
    ("scalar div", lambda a: a / 3.0, [(3, 4)]),
    ("scalar rdiv", lambda a: 3.0 / a, [((3, 4), "nz")]),
    ("scalar pow", lambda a: a**3, [(3, 4)]),
    ("scalar fractional pow", lambda a: a**1.5, [((3, 4), "pos")]),
    ("scalar rpow", lambda a: 2.0**a, [(3, 4)]),
    ("neg", lambda a: -a, [(3, 4)]),
    ("matmul 2d", lambda a, b: a @ b, [(3, 4), (4, 5)]),
    ("matmul batched broadcast", lambda a, b: a @ b, [(2, 3, 4), (4, 2)]),
    ("matmul vector", lambda a, b: a @ b, [(3, 4), (4,)]),
    ("matmul vector-matrix", lambda a, b: a @ b, [(4,), (4, 3)]),
    ("exp", lambda a: a.exp(), [(3, 4)]),
    ("log", lambda a: a.log(), [((3, 4), "pos")]),
    ("sqrt", lambda a: a.sqrt(), [((3, 4), "pos")]),
    ("rsqrt", lambda a: a.rsqrt(), [((3, 4), "pos")]),
    ("tanh", lambda a: a.tanh(), [(3, 4)]),
    ("sigmoid", lambda a: a.sigmoid(), [(3, 4)]),
    ("relu", lambda a: a.relu(), [((3, 4), "nz")]),
    ("abs", lambda a: a.abs(), [((3, 4), "nz")]),
    ("sin", lambda a: a.sin(), [(3, 4)]),
    ("cos", lambda a: a.cos(), [(3, 4)]),
    ("clamp", lambda a: a.clamp(-1.0, 1.0), [((3, 4), "nz")]),
    ("clamp min only", lambda a: a.clamp(min=0.1), [((3, 4), "distinct")]),
    ("maximum", lambda a, b: a.maximum(b), [((3, 4), "distinct"), (3, 4)]),
    ("minimum broadcast", lambda a, b: mg.minimum(a, b), [((3, 4), "distinct"), (4,)]),
    ("sum all", lambda a: a.sum(), [(3, 4)]),
    ("sum dim keepdim", lambda a: a.sum(1, keepdim=True), [(2, 3, 4)]),
    ("sum dims", lambda a: a.sum((0, 2)), [(2, 3, 4)]),
    ("mean dim", lambda a: a.mean(-1), [(3, 4)]),
    ("var unbiased", lambda a: a.var(-1), [(3, 5)]),
    ("var biased keepdim", lambda a: a.var(0, keepdim=True, correction=0), [(4, 3)]),
    ("std", lambda a: a.std(1), [(3, 5)]),
    ("amax", lambda a: a.amax(-1), [((3, 5), "distinct")]),
    ("amin dims", lambda a: a.amin((0, 1)), [((3, 4, 2), "distinct")]),
    ("max dim values", lambda a: a.max(1).values, [((3, 5), "distinct")]),
    ("min dim keepdim", lambda a: a.min(0, keepdim=True)[0], [((3, 5), "distinct")]),
    ("max all", lambda a: a.max(), [((3, 5), "distinct")]),
    ("logsumexp", lambda a: a.logsumexp(-1), [(3, 5)]),
    ("softmax", lambda a: a.softmax(-1), [(3, 5)]),
    ("softmax dim 0", lambda a: a.softmax(0), [(3, 5)]),
    ("log_softmax", lambda a: a.log_softmax(1), [(3, 5)]),
    ("reshape", lambda a: a.reshape(4, 3) * mg.arange(12.0).reshape(4, 3).double(), [(3, 4)]),
    ("view flatten", lambda a: a.flatten().tanh(), [(2, 3, 2)]),
    ("transpose", lambda a: a.transpose(0, 2).exp(), [(2, 3, 4)]),
    ("permute", lambda a: a.permute(2, 0, 1).sin(), [(2, 3, 4)]),
    ("T and mT", lambda a: a.T.tanh() + a.mT * 2, [(3, 4)]),
    ("unsqueeze squeeze", lambda a: a.unsqueeze(1).squeeze(1).exp(), [(3, 4)]),
    ("expand", lambda a: a.expand(2, 3, 4).sin(), [(3, 1)]),
    ("index int slice", lambda a: a[1, 1:3], [(3, 4)]),
    ("index none ellipsis", lambda a: a[None, ..., ::2], [(3, 4)]),
    ("index int array repeated", lambda a: a[_IDX], [(5, 3)]),
    ("index bool mask", lambda a: a[_BOOL], [(4, 2)]),
    ("gather", lambda a: a.gather(1, np.array([[0, 0, 2], [1, 2, 1]])), [(2, 3)]),
    ("masked_fill", lambda a: a.masked_fill(np.array([True, False, True]), 2.0), [(4, 3)]),
    ("where", lambda a, b: mg.where(np.array([[True], [False], [True]]), a, b), [(3, 4), (4,)]),
    ("cat", lambda a, b: mg.cat([a, b], 1), [(2, 3), (2, 2)]),
    ("stack", lambda a, b: mg.stack([a, b], 0).tanh(), [(2, 3), (2, 3)]),
    ("split chunk", lambda a: a.split(2, 1)[1] * a.chunk(2, 1)[0], [(3, 4)]),
    ("tril triu", lambda a: a.tril() - 2 * a.triu(1), [(4, 4)]),
    ("clone", lambda a: a.clone() * a, [(3, 4)]),
    ("cast up", lambda a: a.to(mg.float64).exp(), [(3, 4)]),
    ("composite tanh(x) * x", lambda a: a.tanh() * a, [(3, 4)]),
    (
        "composite gradient penalty-ish",
        lambda a, b: ((a @ b).sigmoid() ** 2).mean(0),
        [(3, 4), (4, 2)],
    ),
    # nn.functional layers
    ("F.linear", lambda x, w, b: F.linear(x, w, b), [(4, 3), (2, 3), (2,)]),
    ("F.gelu", lambda x: F.gelu(x), [(3, 4)]),
    ("F.gelu tanh", lambda x: F.gelu(x, approximate="tanh"), [(3, 4)]),
    ("F.silu", lambda x: F.silu(x), [(3, 4)]),
    ("F.leaky_relu", lambda x: F.leaky_relu(x, 0.1), [((3, 4), "nz")]),
    ("F.erf", lambda x: F.erf(x), [(3, 4)]),
    ("F.layer_norm", lambda x, w, b: F.layer_norm(x, (6,), w, b), [(4, 6), (6,), (6,)]),
    ("F.layer_norm 2d shape", lambda x, w: F.layer_norm(x, (2, 3), w), [(2, 2, 3), (2, 3)]),
    ("F.rms_norm", lambda x, w: F.rms_norm(x, (5,), w), [(3, 5), (5,)]),
    (
        "F.batch_norm training",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        [(6, 3), (3,), (3,)],
    ),
    ("F.group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    ("F.softmax", lambda x: F.softmax(x, -1), [(3, 4)]),
    ("F.log_softmax", lambda x: F.log_softmax(x, -1), [(3, 4)]),
    ("F.cross_entropy", lambda x: F.cross_entropy(x, mg.tensor(_TARGET)), [(3, 5)]),
    (
        "F.cross_entropy smoothing",
        lambda x: F.cross_entropy(x, mg.tensor(_TARGET), label_smoothing=0.1),
        [(3, 5)],
    ),
    ("F.mse_loss", lambda x, y: F.mse_loss(x, y), [(3, 4), (3, 4)]),
    ("F.embedding weight", lambda w: F.embedding(mg.tensor(_IDX), w), [(5, 3)]),
    ("F.scaled_dot_product_attention causal", _sdpa, [(2, 3, 4), (2, 3, 4), (2, 3, 4)]),
]


def _inputs(specs, dtype, seed):
    rng = np.random.default_rng(seed)
    return tuple(_draw(s, rng, dtype) for s in specs)


@pytest.mark.parametrize("name,fn,specs", OPS, ids=[o[0] for o in OPS])
def test_float64_every_correct_operation_passes(name, fn, specs):
    result = gradcheck(fn, _inputs(specs, np.float64, 0), return_result=True)
    assert result.verdict == "passed", str(result)


@pytest.mark.filterwarnings("ignore::minigrad.gradcheck.report.GradcheckWarning")
@pytest.mark.parametrize("name,fn,specs", OPS, ids=[o[0] for o in OPS])
def test_float32_never_fails_a_correct_operation(name, fn, specs):
    for seed in (1, 2):
        result = gradcheck(fn, _inputs(specs, np.float32, seed), return_result=True)
        assert result.verdict in ("passed", "inconclusive"), str(result)


@pytest.mark.filterwarnings("ignore::minigrad.gradcheck.report.GradcheckWarning")
def test_float32_passes_most_operations_at_float32_tolerances():
    """With tolerances float32 can resolve, the verdicts become decisive."""
    verdicts = []
    for _, fn, specs in OPS:
        result = gradcheck(
            fn, _inputs(specs, np.float32, 3), atol=1e-2, rtol=1e-2, return_result=True
        )
        verdicts.append(result.verdict)
    assert "failed" not in verdicts
    assert verdicts.count("passed") >= 0.8 * len(verdicts), verdicts


SECOND_ORDER = [
    o
    for o in OPS
    if o[0]
    in {
        "mul broadcast",
        "div",
        "pow tensor exponent",
        "scalar pow",
        "matmul 2d",
        "exp",
        "log",
        "sqrt",
        "tanh",
        "sigmoid",
        "sin",
        "var unbiased",
        "std",
        "logsumexp",
        "softmax",
        "log_softmax",
        "composite gradient penalty-ish",
        "F.layer_norm",
        "F.gelu",
        "F.silu",
        "F.cross_entropy",
    }
]


@pytest.mark.parametrize("name,fn,specs", SECOND_ORDER, ids=[o[0] for o in SECOND_ORDER])
def test_float64_second_derivatives_pass(name, fn, specs):
    result = gradgradcheck(fn, _inputs(specs, np.float64, 0), return_result=True)
    assert result.verdict == "passed", str(result)


def _randn(*shape):
    return mg.tensor(np.random.default_rng(0).standard_normal(shape))


# (name, layer factory, forward arguments)
LAYERS = [
    ("nn.Linear", lambda: nn.Linear(3, 2), lambda: (_randn(4, 3),)),
    ("nn.LayerNorm", lambda: nn.LayerNorm(5), lambda: (_randn(4, 5),)),
    ("nn.RMSNorm", lambda: nn.RMSNorm(5), lambda: (_randn(4, 5),)),
    ("nn.BatchNorm1d", lambda: nn.BatchNorm1d(3), lambda: (_randn(5, 3),)),
    ("nn.BatchNorm2d", lambda: nn.BatchNorm2d(2), lambda: (_randn(3, 2, 2, 2),)),
    ("nn.GroupNorm", lambda: nn.GroupNorm(2, 4), lambda: (_randn(2, 4, 3),)),
    ("nn.GELU", lambda: nn.GELU(), lambda: (_randn(4, 5),)),
    ("nn.SiLU", lambda: nn.SiLU(), lambda: (_randn(4, 5),)),
    ("nn.Embedding", lambda: nn.Embedding(5, 3), lambda: (mg.tensor(np.array([[0, 4], [4, 2]])),)),
    ("nn.MSELoss", lambda: nn.MSELoss(), lambda: (_randn(3, 4), _randn(3, 4) * 0.5)),
    (
        "nn.CrossEntropyLoss",
        lambda: nn.CrossEntropyLoss(),
        lambda: (_randn(3, 5), mg.tensor(_TARGET)),
    ),
    (
        "nn.MultiheadAttention",
        lambda: nn.MultiheadAttention(4, 2, batch_first=True),
        lambda: (_randn(2, 3, 4),) * 3,
    ),
    (
        "nn.TransformerEncoderLayer",
        lambda: nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, batch_first=True),
        lambda: (_randn(2, 3, 4),),
    ),
]


@pytest.mark.parametrize("name,make,args", LAYERS, ids=[layer[0] for layer in LAYERS])
def test_float64_layers_pass(name, make, args):
    layer = make()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # passed means no warning either
        result = gradcheck_module(layer, *args(), return_result=True)
    # attention weights (output 1) do not depend on the value projection: a vacuous
    # pair there is the right answer; every input and parameter is checked somewhere
    assert result.verdict == "passed", str(result)
    assert all(v == "passed" for v in result.by_input().values()), result.summary()


def _layer_norm(x):
    xc = x - x.mean(-1, keepdim=True)
    return xc * ((xc * xc).mean(-1, keepdim=True) + 1e-5).rsqrt()


# Functions that amplify float32 rounding: cancellation of large terms (a normalization
# of inputs with a large mean, a variance), long sums, saturated softmax, steep
# functions. The noise they produce is what the error estimate must account for.
ADVERSARIAL = [
    ("layer norm, mean 50", _layer_norm, lambda r: r.standard_normal((3, 16)) + 50),
    ("variance, mean 100", lambda x: x.var(-1), lambda r: r.standard_normal((3, 30)) + 100),
    ("sum of 200 squares", lambda x: (x * x).sum(-1), lambda r: r.standard_normal((2, 200))),
    ("softmax of logits x10", lambda x: x.softmax(-1), lambda r: 10 * r.standard_normal((3, 8))),
    ("reciprocal near 0.05", lambda x: 1.0 / x, lambda r: 0.05 + r.random((3, 4))),
    ("exp of large values", lambda x: x.exp(), lambda r: 3 * r.standard_normal((3, 4)) + 5),
]


@pytest.mark.parametrize("name,fn,draw", ADVERSARIAL, ids=[a[0] for a in ADVERSARIAL])
@pytest.mark.parametrize("tolerances", [{}, {"atol": 1e-3, "rtol": 1e-2}], ids=["default", "loose"])
def test_float32_rounding_amplifiers_are_never_failed(name, fn, draw, tolerances):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(6):
            x = draw(np.random.default_rng(seed)).astype(np.float32)
            result = gradcheck(
                fn, (mg.tensor(x, requires_grad=True),), return_result=True, **tolerances
            )
            assert result.verdict != "failed", str(result)

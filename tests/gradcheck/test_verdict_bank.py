"""A bank of verdicts: the kinds of cases of issue 16, each with the verdict it must get.

- **wrong**: subtly wrong backwards (float64). Each must fail, and the failed pairs
  must name exactly the inputs whose gradient is wrong.
- **ill**: correct backwards of ill-conditioned functions (float64). Never failed;
  ``passed`` where the finite differences can decide, ``inconclusive`` where they
  cannot (said why), also where the forward loses precision.
- **vacuous**: probes in which both Jacobians are zero: ``vacuous``, never ``passed``.
- **second**: double backwards through ``gradgradcheck``, right and wrong, with random
  and with blind (all-ones) cotangents.
- **module**: ``gradcheck_module`` on layers, right and wrong.
- **float32**: the correct and the wrong backwards again in float32: a correct one is
  never failed (the promise of docs/gradcheck.md), a wrong one is still caught where
  its error is far above float32 noise.

Every numpy case is written once, as a NumPy forward and backward, and wrapped into a
custom ``Function`` for minigrad and, where PyTorch is installed, for PyTorch, so that
``torch.autograd.gradcheck`` can be asked the same questions on the same inputs
(``test_pytorch_agrees_on_the_clear_cases``). ``python -m tests.gradcheck.test_verdict_bank``
prints the verdict table, minigrad against PyTorch.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
from minigrad.functions.constant import constant
from minigrad.gradcheck import gradcheck, gradcheck_module, gradgradcheck
from tests.gradcheck.handmade import (
    numpy_function,
    scale_with_wrong_weight_grad,
    torch_numpy_function,
)

pytestmark = pytest.mark.filterwarnings("ignore::minigrad.gradcheck.report.GradcheckWarning")

DECIDED = {"passed"}
UNDECIDED = {"passed", "inconclusive"}


@dataclass
class Case:
    name: str
    kind: str  # "wrong", "ill", "vacuous"
    forward: object  # forward(*arrays) -> array
    backward: object  # backward(g, *arrays) -> tuple of arrays
    inputs: object  # inputs(rng) -> list of float64 arrays
    expect: set  # the minigrad verdicts accepted in float64
    bad: set = field(default_factory=set)  # wrong: the inputs whose gradient is wrong
    float32: set | None = None  # the verdicts accepted in float32 (None: not run)

    def arrays(self, dtype=np.float64):
        return [a.astype(dtype) for a in self.inputs(np.random.default_rng(0))]

    def __repr__(self):
        return self.name


def normal(*shapes, scale=1.0, shift=0.0):
    return lambda rng: [shift + scale * rng.standard_normal(s) for s in shapes]


def uniform(low, high, *shapes):
    return lambda rng: [rng.uniform(low, high, s) for s in shapes]


# ------------------------------------------------------------- the functions, by hand
def _ln(x, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    rstd = 1.0 / np.sqrt(x.var(-1, keepdims=True) + eps)
    return (x - mu) * rstd, rstd


def _ln_backward(g, x, terms=("mean", "var")):
    xhat, rstd = _ln(x)
    out = g.copy()
    if "mean" in terms:
        out = out - g.mean(-1, keepdims=True)
    if "var" in terms:
        out = out - xhat * (g * xhat).mean(-1, keepdims=True)
    return (rstd * out,)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _softmax_backward(g, x, coupled=True):
    p = _softmax(x)
    return (p * (g - (g * p).sum(-1, keepdims=True)) if coupled else p * g,)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _gelu(x):
    k = np.sqrt(2.0 / np.pi)
    return 0.5 * x * (1.0 + np.tanh(k * (x + 0.044715 * x**3)))


def _gelu_backward(g, x, inner=True):
    k = np.sqrt(2.0 / np.pi)
    t = np.tanh(k * (x + 0.044715 * x**3))
    du = k * (1.0 + (3 * 0.044715 * x**2 if inner else 0.0))
    return (g * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du),)


def _one_element_doubled(g, x):
    d = g * np.cos(x)
    d.reshape(-1)[3] *= 2.0
    return (d,)


def _pole(rng):
    return [np.pi / 2 - np.array([3e-3, 2e-3, -2e-3, -3e-3, 0.3])]


def _degenerate_rows(rng):
    x = rng.standard_normal((3, 6))
    x[0] = 0.7 + 1e-4 * rng.standard_normal(6)  # nearly constant: var << eps
    return [x]


def _ill_matrix(rng):
    u, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    v, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    return [u @ np.diag([1.0, 0.1, 1e-2, 1e-4]) @ v.T]  # condition number 1e4


def _inv_backward(g, a):
    inv = np.linalg.inv(a)
    return (-inv.T @ g @ inv.T,)


def _float32_inside(x):
    return np.sin(x.astype(np.float32)).astype(x.dtype)


I, F = lambda g, x: (g,), lambda g, x: (1.5 * g,)

BANK = [
    # --- subtly wrong backwards (float64): each must fail and name its inputs
    Case(
        "x + 1e9, backward 1.5",
        "wrong",
        lambda x: x + 1e9,
        F,
        normal(6),
        {"failed"},
        {0},
        float32=None,
    ),
    Case(
        "exp at 30..60, backward 1% too large",
        "wrong",
        np.exp,
        lambda g, x: (1.01 * g * np.exp(x),),
        uniform(30, 60, 6),
        {"failed"},
        {0},
    ),
    Case(
        "LayerNorm without the mean term",
        "wrong",
        lambda x: _ln(x)[0],
        lambda g, x: _ln_backward(g, x, ("var",)),
        normal((3, 5)),
        {"failed"},
        {0},
        float32={"failed"},
    ),
    Case(
        "LayerNorm without the variance term",
        "wrong",
        lambda x: _ln(x)[0],
        lambda g, x: _ln_backward(g, x, ("mean",)),
        normal((3, 5)),
        {"failed"},
        {0},
        float32={"failed"},
    ),
    Case(
        "softmax without the coupling",
        "wrong",
        _softmax,
        lambda g, x: _softmax_backward(g, x, coupled=False),
        normal((2, 5)),
        {"failed"},
        {0},
        float32={"failed"},
    ),
    Case(
        "sigmoid backward s instead of s(1-s)",
        "wrong",
        _sigmoid,
        lambda g, x: (g * _sigmoid(x),),
        normal(6),
        {"failed"},
        {0},
        float32={"failed"},
    ),
    Case(
        "tanh backward 1 - t instead of 1 - t^2",
        "wrong",
        np.tanh,
        lambda g, x: (g * (1 - np.tanh(x)),),
        normal(6),
        {"failed"},
        {0},
        float32={"failed"},
    ),
    Case(
        "GELU without the inner derivative",
        "wrong",
        _gelu,
        lambda g, x: _gelu_backward(g, x, inner=False),
        normal(6),
        {"failed"},
        {0},
        float32={"failed"},
    ),
    Case(
        "product with the gradients swapped",
        "wrong",
        lambda x, y: x * y,
        lambda g, x, y: (g * x, g * y),
        normal(5, 5),
        {"failed"},
        {0, 1},
        float32={"failed"},
    ),
    Case(
        "product, second gradient 0.5% off",
        "wrong",
        lambda x, y: x * y,
        lambda g, x, y: (g * y, 1.005 * g * x),
        normal(5, 5),
        {"failed"},
        {1},
    ),
    Case(
        "matmul, weight gradient not transposed",
        "wrong",
        lambda x, w: x @ w,
        lambda g, x, w: (g @ w.T, (x.T @ g).T),
        normal((3, 3), (3, 3)),
        {"failed"},
        {1},
        float32={"failed"},
    ),
    Case(
        "bias gradient averaged, not summed",
        "wrong",
        lambda x, b: x + b,
        lambda g, x, b: (g, g.mean(0)),
        normal((4, 3), 3),
        {"failed"},
        {1},
        float32={"failed"},
    ),
    Case(
        "one gradient element doubled",
        "wrong",
        np.sin,
        _one_element_doubled,
        normal(6),
        {"failed"},
        {0},
        float32={"failed"},
    ),
    Case(
        "backward nonlinear in the incoming gradient",
        "wrong",
        lambda x: 2 * x,
        lambda g, x: (2 * g * np.abs(g),),
        normal(6),
        {"failed"},
        {0},
    ),
    Case(
        "clipped gradient",
        "wrong",
        lambda x: 3 * x,
        lambda g, x: (np.clip(3 * g, -1.0, 1.0),),
        normal(6),
        {"failed"},
        {0},
    ),
    Case(
        "matrix inverse, gradient not transposed",
        "wrong",
        np.linalg.inv,
        lambda g, a: (-np.linalg.inv(a) @ g @ np.linalg.inv(a),),
        normal((3, 3)),
        {"failed"},
        {0},
    ),
    # --- correct but ill-conditioned (float64): never failed
    Case("x + 1e9", "ill", lambda x: x + 1e9, I, normal(6), {"inconclusive"}),
    # The backward is sin's derivative; the forward loses 8 digits in float32. Entries
    # the forward's noise leaves unverifiable are inconclusive, in float64 too (issue 26).
    Case(
        "float32 forward, exact float64 backward",
        "ill",
        _float32_inside,
        lambda g, x: (g * np.cos(x),),
        normal(6),
        {"inconclusive"},
    ),
    Case(
        "exp at 30..60", "ill", np.exp, lambda g, x: (g * np.exp(x),), uniform(30, 60, 6), DECIDED
    ),
    Case(
        "small denominator 1 / (x - 1)",
        "ill",
        lambda x: 1.0 / (x - 1.0),
        lambda g, x: (-g / (x - 1.0) ** 2,),
        lambda rng: [1.0 + rng.uniform(1e-3, 3e-3, 5)],
        DECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "tiny reciprocal 1 / x at 1e-4",
        "ill",
        lambda x: 1.0 / x,
        lambda g, x: (-g / x**2,),
        uniform(1e-4, 3e-4, 5),
        DECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "LayerNorm, a nearly constant row",
        "ill",
        lambda x: _ln(x)[0],
        _ln_backward,
        _degenerate_rows,
        DECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "inverse of a matrix with condition 1e4",
        "ill",
        np.linalg.inv,
        _inv_backward,
        _ill_matrix,
        UNDECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "tan within 3e-3 of its pole",
        "ill",
        np.tan,
        lambda g, x: (g / np.cos(x) ** 2,),
        _pole,
        DECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "steep tanh(300 x)",
        "ill",
        lambda x: np.tanh(300 * x),
        lambda g, x: (g * 300 * (1 - np.tanh(300 * x) ** 2),),
        normal(6, scale=0.01),
        DECIDED,
        float32=UNDECIDED,
    ),
    # A float32 step of 3.9 radians: where 1000 x is near a multiple of pi the central
    # differences look converged, but the one-sided slopes change from h to 2h.
    Case(
        "sin(1000 x), faster than the float32 step",
        "ill",
        lambda x: np.sin(1000 * x),
        lambda g, x: (g * 1000 * np.cos(1000 * x),),
        normal(6),
        DECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "exp(-x^2 / 1e-4), narrower than the float32 step",
        "ill",
        lambda x: np.exp(-(x**2) / 1e-4),
        lambda g, x: (g * -2 * x / 1e-4 * np.exp(-(x**2) / 1e-4),),
        normal(6, scale=0.01),
        DECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "saturated softmax (logits x 30)",
        "ill",
        _softmax,
        _softmax_backward,
        normal((2, 5), scale=30.0),
        UNDECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "log near 0 (x at 1e-5)",
        "ill",
        np.log,
        lambda g, x: (g / x,),
        uniform(1e-5, 2e-5, 5),
        UNDECIDED,
    ),
    Case(
        "sqrt at 1e-12, within a step of its edge",
        "ill",
        np.sqrt,
        lambda g, x: (g * 0.5 / np.sqrt(x),),
        uniform(1e-12, 2e-12, 4),
        {"inconclusive"},
    ),
    Case(
        "x * 1e8",
        "ill",
        lambda x: x * 1e8,
        lambda g, x: (g * 1e8,),
        normal(5),
        DECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "LayerNorm, well conditioned",
        "ill",
        lambda x: _ln(x)[0],
        _ln_backward,
        normal((3, 5)),
        DECIDED,
        float32=UNDECIDED,
    ),
    Case("GELU", "ill", _gelu, _gelu_backward, normal(6), DECIDED, float32=UNDECIDED),
    Case(
        "1 / x^2 at 1e-2, the float32 step 40% of x",
        "ill",
        lambda x: 1.0 / x**2,
        lambda g, x: (-2.0 * g / x**3,),
        uniform(1e-2, 2e-2, 5),
        DECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "log at 5e-3, its edge within 4 float32 steps",
        "ill",
        np.log,
        lambda g, x: (g / x,),
        uniform(5e-3, 1e-2, 5),
        DECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "softplus(200 x)",
        "ill",
        lambda x: np.logaddexp(0.0, 200 * x),
        lambda g, x: (g * 200 * _sigmoid(200 * x),),
        normal(6, scale=0.01),
        DECIDED,
        float32=UNDECIDED,
    ),
    Case(
        "cos at its stationary points (derivative near 0)",
        "ill",
        np.cos,
        lambda g, x: (-g * np.sin(x),),
        lambda rng: [np.pi * np.array([0.0, 1.0, -1.0, 2.0]) + 1e-3 * rng.standard_normal(4)],
        UNDECIDED,
        float32=UNDECIDED,
    ),
    # --- vacuous probes
    Case(
        "LayerNorm summed",
        "vacuous",
        lambda x: _ln(x)[0].sum(),
        lambda g, x: (np.zeros_like(x),),
        normal((3, 5)),
        {"vacuous"},
    ),
    Case(
        "softmax summed",
        "vacuous",
        lambda x: _softmax(x).sum(),
        lambda g, x: (np.zeros_like(x),),
        normal((2, 5)),
        {"vacuous"},
    ),
    Case(
        "a constant function",
        "vacuous",
        lambda x: 0.0 * x,
        lambda g, x: (0.0 * g,),
        normal(4),
        {"vacuous"},
    ),
]


# ---------------------------------------------------------------------------- running
def minigrad_verdict(case, dtype=np.float64):
    """(verdict, names of the failed inputs) of minigrad's gradcheck on the case."""
    inputs = tuple(mg.tensor(a, requires_grad=True) for a in case.arrays(dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = gradcheck(numpy_function(case.forward, case.backward), inputs, return_result=True)
    return result.verdict, {p.input for p in result.pairs if p.verdict == "failed"}


def torch_verdict(torch, case, dtype=np.float64):
    """("passed" or "failed", the input PyTorch's message names) for the same case."""
    inputs = tuple(torch.tensor(a, requires_grad=True) for a in case.arrays(dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.autograd.gradcheck(
                torch_numpy_function(torch, case.forward, case.backward), inputs
            )
        except Exception as err:  # GradcheckError, or a RuntimeError for float32
            named = {int(i) for i in re.findall(r"with respect to input (\d+)", str(err))}
            return "failed", named
    return "passed", set()


def by_kind(kind, float32=False):
    return [c for c in BANK if c.kind == kind and (not float32 or c.float32 is not None)]


# ---------------------------------------------------------------------------- tests
def test_the_bank_covers_every_kind():
    assert len(by_kind("wrong")) >= 15 and len(by_kind("ill")) >= 12
    assert len(by_kind("vacuous")) >= 3 and len(by_kind("ill", float32=True)) >= 10


@pytest.mark.parametrize("case", by_kind("wrong"), ids=repr)
def test_a_wrong_backward_fails_and_names_its_inputs(case):
    verdict, failed = minigrad_verdict(case)
    assert verdict == "failed"
    assert failed == case.bad


@pytest.mark.parametrize("case", by_kind("ill") + by_kind("vacuous"), ids=repr)
def test_a_correct_backward_gets_its_verdict(case):
    verdict, _ = minigrad_verdict(case)
    assert verdict in case.expect


@pytest.mark.parametrize("case", [c for c in BANK if c.float32 is not None], ids=repr)
def test_float32_verdicts(case):
    verdict, failed = minigrad_verdict(case, np.float32)
    assert verdict in case.float32
    if verdict == "failed":
        assert failed == case.bad


def test_a_wrong_gradient_by_half_is_never_inconclusive_at_large_outputs():
    # The error estimate of x + c is about a rounding unit of c over the step: the
    # 50% error is caught up to c = 1e9 (where one unit over the step is 0.06).
    for c in (1e3, 1e6, 1e9):
        case = Case("x + c", "wrong", lambda x, c=c: x + c, F, normal(6), {"failed"}, {0})
        assert minigrad_verdict(case)[0] == "failed", c


def test_lost_precision_is_said_and_inconclusive_in_float64():
    x = mg.tensor(np.random.default_rng(0).standard_normal(6), requires_grad=True)
    fn = numpy_function(_float32_inside, lambda g, x: (g * np.cos(x),))
    result = gradcheck(fn, (x,), return_result=True, raise_exception=False)
    pair = result.pairs[0]
    assert result.verdict == "inconclusive" and pair.precision_loss > 1e6
    assert "loses precision" in pair.reason and "lower precision" in pair.reason
    # A wrong backward of the same forward still fails: its error is far above the noise.
    wrong = numpy_function(_float32_inside, lambda g, x: (g * np.sin(x),))
    assert gradcheck(wrong, (x,), return_result=True, raise_exception=False).verdict == "failed"
    # The same forward computed in float64 passes, and reports no loss.
    exact = numpy_function(np.sin, lambda g, x: (g * np.cos(x),))
    clean = gradcheck(exact, (x,), return_result=True)
    assert clean.passed and clean.pairs[0].precision_loss < 10


def test_lost_precision_in_float32_is_said_but_not_failed():
    # float16 arithmetic inside a float32 function: the check cannot decide, and says why.
    def forward(x):
        return np.sin(x.astype(np.float16)).astype(x.dtype)

    x = mg.tensor(
        np.random.default_rng(0).standard_normal(6).astype(np.float32), requires_grad=True
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = gradcheck(
            numpy_function(forward, lambda g, x: (g * np.cos(x),)), (x,), return_result=True
        )
    assert result.verdict == "inconclusive"
    assert "loses precision" in result.pairs[0].reason


# ---------------------------------------------------------------- second derivatives
class SoftmaxConstantP(mg.autograd.Function):
    """Softmax whose backward is right but treats p as a constant: its own derivative
    (the double backward) is wrong."""

    @staticmethod
    def forward(ctx, x):
        p = _softmax(x.numpy())
        ctx.p = p
        return p

    @staticmethod
    def backward(ctx, g):
        p = constant(ctx.p)
        return p * (g - (g * p).sum(-1, keepdim=True))


def _rows():
    return mg.tensor(np.random.default_rng(2).standard_normal((3, 5)), requires_grad=True)


def test_second_order_bank():
    x, ones = _rows(), mg.ones(3, 5, dtype=mg.float64)
    cases = [
        (SoftmaxConstantP.apply, None, "failed"),
        (SoftmaxConstantP.apply, ones, "failed"),  # blind, so decided with a random one
        (lambda x: x.softmax(-1), None, "passed"),
        (lambda x: x.softmax(-1), ones, "passed"),
        (lambda x: x.log_softmax(-1), None, "passed"),
        (lambda x: (x * x).tanh(), None, "passed"),
        (lambda x: x * 3.0, None, "vacuous"),  # linear: no second derivative to check
    ]
    for fn, v, expected in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = gradgradcheck(fn, (x,), grad_outputs=v, return_result=True)
        assert result.verdict == expected, (fn, v, str(result))
        if v is not None:
            assert "blind" in result.notes[0] and "random cotangent" in result.notes[0]


def test_a_wrong_double_backward_with_a_blind_cotangent_raises():
    x, ones = _rows(), mg.ones(3, 5, dtype=mg.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(mg.GradcheckError, match="blind"):
            gradgradcheck(SoftmaxConstantP.apply, (x,), grad_outputs=(ones,))


# ---------------------------------------------------------------------------- modules


ScaleWrongWeightGrad = scale_with_wrong_weight_grad(1.1)  # 10% too large


class WrongScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(mg.randn(4))

    def forward(self, x):
        return ScaleWrongWeightGrad.apply(x, self.weight)


def test_module_bank():
    mg.manual_seed(0)
    x = mg.randn(5, 4)
    right = [
        nn.Linear(4, 3),
        nn.LayerNorm(4),
        nn.BatchNorm1d(4),
        nn.Sequential(nn.Linear(4, 4), nn.GELU()),
    ]
    for module in right:
        result = gradcheck_module(module, x, return_result=True)
        assert result.verdict == "passed", (module, str(result))
    result = gradcheck_module(WrongScale(), x, return_result=True)
    assert result.verdict == "failed"
    assert result.by_input() == {"input 0": "passed", "weight": "failed"}


# ---------------------------------------------------------------------------- PyTorch
CLEAR = [
    c
    for c in BANK
    if c.kind == "wrong"
    and c.name
    not in {
        "x + 1e9, backward 1.5",  # PyTorch agrees, but that is the point of this row
        "backward nonlinear in the incoming gradient",  # PyTorch misses these two
        "clipped gradient",
    }
]


@pytest.mark.parametrize("case", CLEAR, ids=repr)
def test_pytorch_agrees_on_the_clear_cases(case, torch):
    assert torch_verdict(torch, case)[0] == minigrad_verdict(case)[0] == "failed"


def verdict_table(torch) -> str:
    """The table of the closing report: minigrad and PyTorch on this bank."""

    def torch_verdict_of(case, dtype):
        return torch_verdict(torch, case, dtype)

    def caught(verdict, case, dtype):
        return verdict(case, dtype)[0] == "failed"

    def named(verdict, case, dtype):
        v, names = verdict(case, dtype)
        return v == "failed" and names == case.bad

    wrong, ill = by_kind("wrong"), by_kind("ill")
    f32, f32_wrong = by_kind("ill", float32=True), by_kind("wrong", float32=True)
    questions = [  # (row, the cases, dtype, what counts)
        ("wrong backwards caught (float64)", wrong, np.float64, caught),
        ("false alarms on correct ill-conditioned (float64)", ill, np.float64, caught),
        ("failure names exactly the wrong input(s)", wrong, np.float64, named),
        ("correct backwards failed in float32", f32, np.float32, caught),
        ("wrong backwards caught in float32", f32_wrong, np.float32, caught),
    ]
    rows = []
    for label, cases, dtype, judge in questions:
        counts = []
        for verdict in (minigrad_verdict, torch_verdict_of):
            hits = [judge(verdict, c, dtype) for c in cases]
            counts.append(f"{sum(hits)} / {len(hits)}")
        rows.append((label, *counts))
    width = max(len(r[0]) for r in rows)
    lines = [f"{'':{width}}  minigrad  PyTorch"]
    lines += [f"{a:{width}}  {b:8}  {c}" for a, b, c in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    import torch

    torch.set_num_threads(2)
    print(verdict_table(torch))
    for case in BANK:
        v64 = minigrad_verdict(case)
        v32 = minigrad_verdict(case, np.float32) if case.float32 is not None else ("-", set())
        t64 = torch_verdict(torch, case)
        print(f"{case.kind:8} {case.name:52} mg {v64[0]:13} pt {t64[0]:7} mg32 {v32[0]}")

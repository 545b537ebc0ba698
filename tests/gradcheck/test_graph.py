"""gradcheck_graph: the wrong backward inside a whole model is named, node and module.

The model below is built from custom Functions written from their formulas (NumPy
forwards, Tensor backwards): a linear layer, a fused LayerNorm, a tanh, a per-position
gate and an MSE loss, in two blocks and a head. Each planted bug is one mistake people
make in hand-written backwards, put into exactly one module of the model; the checker
must name that node (its Function class and module path) as the first wrong node, and
the input whose gradient is wrong, and find no other wrong node.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
from minigrad.autograd import Function, graph_recording
from minigrad.functions.constant import constant
from minigrad.gradcheck import GradcheckError, gradcheck_graph

B, T, D = 2, 4, 4  # T == D: bugs that mix up axes keep their shapes, as real ones do


# ------------------------------------------------------------------ the Functions
class LinearFn(Function):
    """y = x W^T + b over the last axis."""

    bug = None

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return x.numpy() @ w.numpy().T + b.numpy()

    @classmethod
    def backward(cls, ctx, g):
        x, w = ctx.saved_tensors
        gx = g @ (w.T if cls.bug == "transposed matrix" else w)
        gw = (g.reshape(-1, g.shape[-1]).T @ x.reshape(-1, x.shape[-1])) * 1.0
        if cls.bug == "only one input":  # forgets all but the first example's term
            gw = g[0].T @ x[0]
        gb = g.sum((0, 2)) if cls.bug == "wrong reduction axis" else g.sum((0, 1))
        return gx, gw, gb


class FusedNormFn(Function):
    """y = (x - mean) / sqrt(var + eps) * gain + shift over the last axis."""

    bug = None

    @staticmethod
    def forward(ctx, x, gain, shift):
        a = x.numpy()
        rstd = 1.0 / np.sqrt(a.var(-1, keepdims=True) + 1e-5)
        xhat = (a - a.mean(-1, keepdims=True)) * rstd
        ctx.xhat, ctx.rstd = xhat, rstd
        ctx.save_for_backward(gain)
        return xhat * gain.numpy() + shift.numpy()

    @classmethod
    def backward(cls, ctx, g):
        (gain,) = ctx.saved_tensors
        xhat, rstd = constant(ctx.xhat), constant(ctx.rstd)
        gxhat = g * gain
        dx = gxhat - xhat * (gxhat * xhat).mean(-1, keepdim=True)
        if cls.bug != "missing term":
            dx = dx - gxhat.mean(-1, keepdim=True)
        return rstd * dx, (g * xhat).sum((0, 1)), g.sum((0, 1))


class TanhFn(Function):
    bug = None

    @staticmethod
    def forward(ctx, x):
        y = np.tanh(x.numpy())
        ctx.y = y
        return y

    @classmethod
    def backward(cls, ctx, g):
        slope = 1.0 - constant(ctx.y) ** 2
        return -g * slope if cls.bug == "sign" else g * slope


class GateFn(Function):
    """y = x * s with s of shape (T, 1): one gate per position, broadcast over features."""

    bug = None

    @staticmethod
    def forward(ctx, x, s):
        ctx.save_for_backward(x, s)
        return x.numpy() * s.numpy()

    @classmethod
    def backward(cls, ctx, g):
        x, s = ctx.saved_tensors
        # The wrong broadcast lays the gates along the features instead of positions.
        gx = g * (s.reshape(1, -1) if cls.bug == "wrong broadcast" else s)
        return gx, (g * x).sum(0).sum(-1, keepdim=True)


class MSEFn(Function):
    """mean((pred - target)^2)."""

    bug = None

    @staticmethod
    def forward(ctx, pred, target):
        diff = pred.numpy() - target.numpy()
        ctx.diff = diff
        return np.asarray((diff**2).mean())

    @classmethod
    def backward(cls, ctx, g):
        n = 1 if cls.bug == "missing factor" else ctx.diff.size
        d = g * constant(2.0 * ctx.diff / n)
        return d, -d


# ------------------------------------------------------------------ the modules
def _param(*shape, seed):
    rng = np.random.default_rng(seed)
    return nn.Parameter(mg.tensor(rng.standard_normal(shape) * 0.5 + (0.0 if shape else 0.0)))


class Linear(nn.Module):
    def __init__(self, seed, fn=LinearFn):
        super().__init__()
        self.fn = fn
        self.weight, self.bias = _param(D, D, seed=seed), _param(D, seed=seed + 1)

    def forward(self, x):
        return self.fn.apply(x, self.weight, self.bias)


class FusedNorm(nn.Module):
    def __init__(self, seed, fn=FusedNormFn):
        super().__init__()
        self.fn = fn
        self.weight, self.bias = _param(D, seed=seed), _param(D, seed=seed + 1)

    def forward(self, x):
        return self.fn.apply(x, self.weight, self.bias)


class Tanh(nn.Module):
    def __init__(self, fn=TanhFn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn.apply(x)


class Gate(nn.Module):
    def __init__(self, seed, fn=GateFn):
        super().__init__()
        self.fn = fn
        self.weight = _param(T, 1, seed=seed)

    def forward(self, x):
        return self.fn.apply(x, self.weight)


class MSE(nn.Module):
    def __init__(self, fn=MSEFn):
        super().__init__()
        self.fn = fn

    def forward(self, pred, target):
        return self.fn.apply(pred, target)


class Block(nn.Module):
    def __init__(self, seed):
        super().__init__()
        self.lin, self.norm = Linear(seed), FusedNorm(seed + 10)
        self.act, self.gate = Tanh(), Gate(seed + 20)

    def forward(self, x):
        return x + self.gate(self.act(self.norm(self.lin(x))))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.ModuleList([Block(0), Block(100)])
        self.head = Linear(200)
        self.loss = MSE()

    def forward(self, x, target):
        for block in self.encoder:
            x = block(x)
        return self.loss(self.head(x), target)


def data(seed=1):
    rng = np.random.default_rng(seed)
    return mg.tensor(rng.standard_normal((B, T, D))), mg.tensor(rng.standard_normal((B, T, D)))


# ------------------------------------------------------------------ the planted bugs
@dataclass
class Plant:
    bug: str
    path: str  # the module whose Function gets the bug
    function: type
    wrong: list  # the inputs whose gradient the bug gets wrong

    def __repr__(self):
        return f"{self.bug} in {self.path}"


PLANTS = [
    Plant("sign", "encoder.0.act", TanhFn, ["input 0"]),
    Plant("missing term", "encoder.1.norm", FusedNormFn, ["input 0"]),
    Plant("transposed matrix", "encoder.1.lin", LinearFn, ["input 0"]),
    Plant("wrong broadcast", "encoder.1.gate", GateFn, ["input 0"]),
    Plant("wrong reduction axis", "head", LinearFn, ["input 2"]),
    Plant("only one input", "encoder.0.lin", LinearFn, ["input 1"]),
    Plant("missing factor", "loss", MSEFn, ["input 0"]),
]


def planted(plant: Plant) -> Net:
    model = Net()
    bugged = type(plant.function.__name__, (plant.function,), {"bug": plant.bug})
    dict(model.named_modules())[plant.path].fn = bugged
    return model


def test_the_correct_model_has_no_wrong_node():
    x, target = data()
    result = gradcheck_graph(Net(), x, target)
    assert result.first_wrong is None and bool(result)
    assert result.counts()["failed"] == 0 and result.counts()["skipped"] == 0
    # every custom node, and the modules that made them, are in the report
    paths = {n.module_path for n in result.nodes}
    assert {"encoder.0.lin", "encoder.1.norm", "encoder.1.gate", "head", "loss"} <= paths


@pytest.mark.parametrize("plant", PLANTS, ids=repr)
def test_a_planted_bug_is_named_as_the_wrong_node(plant):
    x, target = data()
    result = gradcheck_graph(planted(plant), x, target)
    wrong = result.first_wrong
    assert wrong is not None
    assert (wrong.name, wrong.module_path) == (plant.function.__name__, plant.path)
    assert wrong.wrong_inputs == plant.wrong
    assert [n.module_path for n in result.wrong] == [plant.path]  # no other node blamed
    # the report names it, and the failed node's own check lists its worst entries
    report = str(result)
    assert f"{plant.function.__name__} in {plant.path}" in report
    assert wrong.result.failures()[0].worst


def test_the_model_is_named_from_the_root_given_to_graph_recording():
    x, target = data()
    model = planted(PLANTS[1])
    with graph_recording(model):
        loss = model(x, target)
    assert loss.grad_fn.module_path == "loss"
    result = gradcheck_graph(loss)
    assert result.first_wrong.module_path == "encoder.1.norm"
    # the wrong node is first in backward order: nodes after the loss come first
    assert [n.module_path for n in result.nodes][:2] == ["loss", "head"]


def test_raise_exception_raises_with_the_report():
    x, target = data()
    with pytest.raises(GradcheckError, match="first wrong node in backward order"):
        gradcheck_graph(planted(PLANTS[0]), x, target, raise_exception=True)


def test_large_inputs_are_sampled_and_the_report_says_how_many():
    x = mg.randn(8, 50, dtype=mg.float64, requires_grad=True)
    w = mg.randn(50, 50, dtype=mg.float64, requires_grad=True)
    with graph_recording():
        loss = (x @ w).tanh()
    result = gradcheck_graph(loss, max_elements=16)
    matmul = result.nodes[-1]
    assert matmul.checked == {"input 0": (16, 400), "input 1": (16, 2500)}
    assert "input elements checked" in str(result) and result.verdict == "passed"


def test_a_sampled_wrong_entry_is_reported_at_its_place_in_the_input():
    class WrongLast(Function):
        @staticmethod
        def forward(ctx, x):
            return x.numpy() * 2.0

        @staticmethod
        def backward(ctx, g):
            mask = np.ones(g.shape)
            mask[-5:, -5:] = 0.0  # the gradient forgets a corner block
            return g * 2.0 * constant(mask)

    x = mg.randn(20, 20, dtype=mg.float64, requires_grad=True)
    with graph_recording():
        y = WrongLast.apply(x)
    result = gradcheck_graph(y, max_elements=400)
    worst = result.first_wrong.result.failures()[0].worst
    assert all(e.input_index[0] >= 15 and e.input_index[1] >= 15 for e in worst)


def test_an_unrecorded_graph_is_refused_with_what_to_do():
    x = mg.randn(3, dtype=mg.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="graph_recording"):
        gradcheck_graph(x.tanh())
    with pytest.raises(ValueError, match="no graph"):
        gradcheck_graph(mg.randn(3))


def test_recording_is_off_by_default_and_per_thread():
    x = mg.randn(3, requires_grad=True)
    assert not hasattr(x.tanh().grad_fn, "recorded_args")
    seen = {}

    def other():
        seen["recorded"] = hasattr(x.exp().grad_fn, "recorded_args")

    with graph_recording():
        y = x.tanh()
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert hasattr(y.grad_fn, "recorded_args") and seen == {"recorded": False}


def test_recorded_inputs_are_copies_taken_when_the_node_ran():
    x = mg.randn(3, dtype=mg.float64)
    w = mg.randn(3, dtype=mg.float64, requires_grad=True)
    with graph_recording():
        y = x * w
    x.numpy()[:] = 0.0  # changed after the node ran
    (a, b) = y.grad_fn.recorded_args
    assert not np.all(a.numpy() == 0.0) and b is not w


class Float32Only(Function):
    @staticmethod
    def forward(ctx, x):
        if x.dtype != np.float32:
            raise TypeError("this kernel is compiled for float32 only")
        return x.numpy() * 3.0

    @staticmethod
    def backward(ctx, g):
        return g * 3.0


def test_a_node_that_cannot_run_in_float64_is_skipped_and_says_why():
    x = mg.randn(4, requires_grad=True)
    with graph_recording():
        y = Float32Only.apply(x).tanh()
    result = gradcheck_graph(y)
    skipped = result.nodes[-1]
    assert skipped.status == "skipped" and "cannot run in float64" in skipped.reason
    assert "float32 only" in skipped.reason and result.nodes[0].status == "passed"


def test_dropout_inside_a_node_is_frozen():
    mg.manual_seed(0)
    x = mg.randn(6, 5, dtype=mg.float64, requires_grad=True)
    with graph_recording():
        y = mg.nn.functional.dropout(x.tanh(), 0.5, training=True)
    result = gradcheck_graph(y)
    assert result.counts()["failed"] == 0 and result.counts()["skipped"] == 0


# ------------------------------------------------------------------ built-in models
def test_every_builtin_node_of_a_transformer_passes_or_says_why():
    mg.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    model = nn.Sequential(nn.TransformerEncoder(layer, num_layers=2), nn.Linear(8, 3))
    model.eval()
    tokens = mg.randn(2, 5, 8)
    target = mg.tensor(np.array([[0, 1, 2, 0, 1], [2, 2, 1, 0, 0]]))
    with graph_recording(model):
        loss = nn.functional.cross_entropy(model(tokens).reshape(-1, 3), target.reshape(-1))
    result = gradcheck_graph(loss)
    assert result.counts()["failed"] == 0, str(result)
    for node in result.nodes:
        assert node.status in ("passed", "inconclusive", "non-differentiable"), str(result)
        if node.status != "passed":
            assert node.reason
        # the cost cap: at most max_elements (32) elements of any input are checked
        assert all(done <= 32 for done, _ in node.checked.values())
    assert any(n.module_path == "0.layers.1.norm2" for n in result.nodes)
    done, total = result.elements()
    assert done < total


@pytest.mark.parametrize(
    "options",
    [
        {"norm_first": False},
        {"norm_first": True},
        {"norm": "rms", "activation": "swiglu"},
        {"norm": "none", "activation": "gelu"},
    ],
    ids=repr,
)
def test_every_builtin_node_of_a_transformer_block_passes(options):
    mg.manual_seed(1)
    block = nn.TransformerBlock(8, 2, dim_feedforward=16, **options)
    x = mg.randn(2, 3, 8)
    result = gradcheck_graph(block, x)
    assert result.counts()["failed"] == 0, str(result)
    assert result.counts()["skipped"] == 0, str(result)


def test_a_function_of_a_model_is_named_from_the_model_given():
    x, target = data()
    model = planted(PLANTS[1])
    result = gradcheck_graph(lambda x: model(x, target) * 2.0, x, module=model)
    assert result.first_wrong.module_path == "encoder.1.norm"
    assert result.nodes[0].module_path == ""  # the * 2.0 outside the model


def test_nested_recording_restores_the_outer_state():
    x = mg.randn(3, dtype=mg.float64, requires_grad=True)
    with graph_recording():
        with graph_recording():
            a = x.exp()
        b = x.tanh()
    c = x.sin()
    assert hasattr(a.grad_fn, "recorded_args") and hasattr(b.grad_fn, "recorded_args")
    assert not hasattr(c.grad_fn, "recorded_args")


# ------------------------------------------------------------------ from a failing check
def test_a_failing_gradcheck_leads_to_the_wrong_node():
    x, target = data()
    x.requires_grad_()
    model = planted(PLANTS[3])  # the wrong broadcast, in encoder.1.gate
    with pytest.raises(GradcheckError, match="graph_check") as caught:
        mg.gradcheck(lambda x: model(x, target), (x,))
    wrong = caught.value.result.graph_check().first_wrong
    assert (wrong.name, wrong.module_path) == ("GateFn", "encoder.1.gate")


def test_a_failing_module_check_leads_to_the_wrong_node():
    x, target = data()
    model = planted(PLANTS[5])  # only the weight's gradient is wrong, in encoder.0.lin
    before = [p.numpy().copy() for p in model.parameters()]
    result = mg.gradcheck_module(model, x, target, return_result=True)
    assert result.verdict == "failed" and result.by_input()["encoder.0.lin.weight"] == "failed"
    wrong = result.graph_check().first_wrong
    assert (wrong.module_path, wrong.wrong_inputs) == ("encoder.0.lin", ["input 1"])
    assert all(np.array_equal(a, p.numpy()) for a, p in zip(before, model.parameters()))

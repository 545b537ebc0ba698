"""gradcheck_module: inputs and every parameter by dotted name, in a meaningful state,
with the module left exactly as it was."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from minigrad.autograd import Function
from minigrad.gradcheck import GradcheckError, GradcheckWarning, gradcheck_module
from minigrad.tensor import Tensor
from tests.gradcheck.handmade import scale_with_wrong_weight_grad

# Tests that expect a GradcheckWarning say so with pytest.warns; the others' are noise.
pytestmark = pytest.mark.filterwarnings("ignore::minigrad.gradcheck.report.GradcheckWarning")


def randn(*shape, seed=0):
    return mg.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def state(module):
    """Everything gradcheck_module must leave untouched."""
    return (
        [(n, p.numpy(), p.numpy().copy(), p.grad) for n, p in module.named_parameters()],
        [(n, b.numpy(), b.numpy().copy()) for n, b in module.named_buffers()],
        [m.training for m in module.modules()],
    )


def assert_same_state(module, before):
    params, buffers, modes = state(module)
    for (n, data, copy, grad), (n2, data2, _, grad2) in zip(before[0], params):
        assert n == n2 and data2 is data and np.array_equal(data2, copy) and grad2 is grad
    for (n, data, copy), (n2, data2, _) in zip(before[1], buffers):
        assert n == n2 and data2 is data and np.array_equal(data2, copy)
    assert modes == before[2]


def test_linear_inputs_and_parameters_by_name():
    layer = nn.Linear(3, 2)
    before = state(layer)
    result = gradcheck_module(layer, randn(4, 3), return_result=True)
    assert result.verdict == "passed"
    assert result.summary() == "input 0: ok\nweight: ok\nbias: ok"
    assert_same_state(layer, before)
    assert layer.weight.dtype == np.float32  # checked in float64, restored as it was


def test_nested_names_and_a_wrong_parameter_gradient_is_named():
    BadScale = scale_with_wrong_weight_grad(2.0)  # the weight's gradient is doubled

    class Scale(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.weight = nn.Parameter(mg.ones(n))

        def forward(self, x):
            return BadScale.apply(x, self.weight)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1 = nn.LayerNorm(4)
            self.scale = Scale(4)

        def forward(self, x):
            return self.scale(self.norm1(x))

    model = nn.Sequential(nn.Linear(3, 4))
    model.layers = nn.ModuleList([Block()])
    model.forward = lambda x: model.layers[0](model[0](x))
    result = gradcheck_module(model, randn(5, 3), return_result=True)
    verdicts = result.by_input()
    assert verdicts["layers.0.norm1.weight"] == "passed"
    assert verdicts["layers.0.scale.weight"] == "failed"
    assert "layers.0.norm1.weight: ok" in result.summary()
    assert "layers.0.scale.weight: FAILED" in result.summary()
    with pytest.raises(GradcheckError, match=r"input \d+ \(layers\.0\.scale\.weight\)"):
        gradcheck_module(model, randn(5, 3))


def test_batchnorm_uses_batch_statistics_and_leaves_running_stats_untouched():
    bn = nn.BatchNorm1d(3)
    bn.running_mean.numpy()[...] = [0.1, -0.2, 0.3]
    before = state(bn)
    result = gradcheck_module(bn, randn(6, 3), return_result=True)
    assert result.verdict == "passed"
    assert_same_state(bn, before)
    assert int(bn.num_batches_tracked.numpy()) == 0


def test_training_mode_is_the_default_because_batch_coupling_is_what_breaks():
    """A BatchNorm whose backward ignores the batch coupling: wrong in training mode
    (batch statistics), invisible in eval mode (running statistics)."""

    class UncoupledBatchNorm(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.rstd = 1.0 / np.sqrt(x.numpy().var(0) + 1e-5)
            return (x.numpy() - x.numpy().mean(0)) * ctx.rstd

        @staticmethod
        def backward(ctx, g):
            return g * Tensor._make(ctx.rstd, False, None)  # treats the statistics as constants

    class MyBatchNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("running_var", mg.ones(2))

        def forward(self, x):
            if self.training:
                return UncoupledBatchNorm.apply(x)
            return x / (self.running_var + 1e-5).sqrt()

    bn = MyBatchNorm().eval()
    with pytest.raises(GradcheckError, match="with respect to input 0"):
        gradcheck_module(bn, randn(4, 2))
    assert gradcheck_module(bn, randn(4, 2), train=False)
    assert not bn.training


def test_dropout_is_off_unless_asked_and_the_random_state_is_kept():
    model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Linear(4, 2))
    mg.manual_seed(7)
    expected = mg.randn(3).numpy()
    mg.manual_seed(7)
    before = state(model)
    result = gradcheck_module(model, randn(5, 3), return_result=True)
    assert result.verdict == "passed"
    assert_same_state(model, before)
    assert model[1].training  # back in training mode
    np.testing.assert_array_equal(mg.randn(3).numpy(), expected)  # generator untouched


def test_dropout_kept_on_checks_the_gradient_for_a_frozen_mask():
    seen = []

    class SpyDropout(nn.Dropout):
        def forward(self, x):
            seen.append(self.training)
            return super().forward(x)

    model = nn.Sequential(nn.Linear(3, 6), SpyDropout(0.5))
    assert gradcheck_module(model, randn(5, 3), dropout=True)  # random, yet deterministic
    assert seen and all(seen)
    seen.clear()
    assert gradcheck_module(model, randn(5, 3))
    assert seen and not any(seen)


def test_randomness_inside_a_layer_is_frozen_too():
    attn = nn.MultiheadAttention(4, 2, dropout=0.5, batch_first=True)
    x = randn(2, 3, 4)
    result = gradcheck_module(attn, x, x, x, return_result=True)
    assert result.verdict == "passed", str(result)
    names = set(result.by_input())
    assert {"in_proj_weight", "out_proj.weight", "input 0", "input 2"} <= names


def test_transformer_encoder_layer_every_parameter_by_dotted_name():
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.1, batch_first=True)
    encoder = nn.TransformerEncoder(layer, num_layers=1)
    before = state(encoder)
    result = gradcheck_module(encoder, randn(2, 3, 4), return_result=True)
    assert result.verdict == "passed", str(result)
    assert "layers.0.norm1.weight: ok" in result.summary()
    assert "layers.0.self_attn.in_proj_weight: ok" in result.summary()
    assert_same_state(encoder, before)


def test_integer_inputs_are_passed_through_and_frozen_parameters_skipped():
    emb = nn.Embedding(5, 3)
    idx = mg.tensor(np.array([[0, 4], [4, 2]]))
    assert gradcheck_module(emb, idx, return_result=True).summary() == "weight: ok"
    lin = nn.Linear(2, 2)
    lin.bias.requires_grad = False
    assert "bias" not in gradcheck_module(lin, randn(3, 2), return_result=True).by_input()


def test_dtype_none_checks_the_module_as_it_is():
    layer = nn.Linear(3, 2)
    with pytest.warns(GradcheckWarning, match="not float64"):
        result = gradcheck_module(layer, randn(4, 3), dtype=None, return_result=True)
    assert result.verdict == "inconclusive"
    assert result.pairs[0].dtype == np.float32


def test_a_duck_typed_module_is_enough():
    """Only the documented Module API is used: named_parameters, named_buffers,
    modules, train, training, to, __call__."""

    class Tiny:
        def __init__(self):
            self.w = Tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
            self.training = False

        def named_parameters(self):
            return iter([("w", self.w)])

        def named_buffers(self):
            return iter([])

        def modules(self):
            return iter([self])

        def train(self, mode=True):
            self.training = mode
            return self

        def to(self, dtype):
            return self

        def __call__(self, x):
            return (x * self.w).tanh()

    tiny = Tiny()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = gradcheck_module(tiny, randn(2, 3), return_result=True)
    assert result.summary() == "input 0: ok\nw: ok"
    assert tiny.training is False

"""gradcheck's contract (API.md) and the verdicts of issue 7.

The contract: True, or GradcheckError naming the output and the input and listing the
worst entries; False with raise_exception=False; a warning for inputs that are not
float64. The verdicts: passed, failed, inconclusive, vacuous, non-differentiable, each
shown on a function built to produce it.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import Function
from minigrad.gradcheck import (
    GradcheckError,
    GradcheckResult,
    GradcheckWarning,
    gradcheck,
    gradgradcheck,
)
from minigrad.tensor import Tensor

# Tests that expect a GradcheckWarning say so with pytest.warns; the others' are noise.
pytestmark = pytest.mark.filterwarnings("ignore::minigrad.gradcheck.report.GradcheckWarning")


def leaf(*shape, seed=0, dtype=np.float64):
    return mg.tensor(
        np.random.default_rng(seed).standard_normal(shape).astype(dtype), requires_grad=True
    )


def const(array):
    return Tensor._make(np.asarray(array), False, None)


class ScaledTanh(Function):
    """tanh(x) * scale, with a backward whose error is chosen by the test."""

    @staticmethod
    def forward(ctx, x, error):
        y = np.tanh(x.numpy())
        ctx.save_for_backward(y)
        ctx.error = error
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1.0 - y * y) * (1.0 + ctx.error), None


def layer_norm(x):
    mu = x.mean(-1, keepdim=True)
    xc = x - mu
    return xc * ((xc * xc).mean(-1, keepdim=True) + 1e-5).rsqrt()


# ---------------------------------------------------------------------------- contract
def test_returns_true_for_a_correct_function():
    assert (
        gradcheck(lambda x, w: (x @ w).tanh() * x.sum(), (leaf(3, 4), leaf(4, 4, seed=1))) is True
    )


def test_is_exported_as_mg_gradcheck():
    assert mg.gradcheck is gradcheck and mg.gradgradcheck is gradgradcheck
    assert mg.autograd.GradcheckError is GradcheckError


def test_failure_raises_a_runtime_error_naming_output_and_input_and_worst_entries():
    x, w = leaf(3, 4), leaf(4, seed=1)

    def fn(x, w):
        return x * 2.0, ScaledTanh.apply(w, 0.5) * x  # output 1 is wrong w.r.t. input 1

    with pytest.raises(GradcheckError) as info:
        gradcheck(fn, (x, w))
    assert isinstance(info.value, RuntimeError)
    message = str(info.value)
    assert "for output 1 with respect to input 1," in message
    assert "with respect to input 0," not in message
    header = "output index  input index  numerical  analytical  abs err  rel err  tolerance"
    assert re.sub(r"\s+", " ", header) in re.sub(r"\s+", " ", message)
    # the worst entry: output [i, k] depends on w[k]; analytical = 1.5 x numerical
    entry = info.value.result.pair(1, 1).worst[0]
    assert entry.output_index[1] == entry.input_index[0]
    assert entry.analytical == pytest.approx(1.5 * entry.numerical)
    assert entry.rel_error == pytest.approx(0.5, rel=1e-6)
    assert entry.tolerance == pytest.approx(1e-5 + 1e-3 * abs(entry.numerical))
    assert f"{entry.numerical:.6g}" in message


def test_raise_exception_false_returns_false():
    assert (
        gradcheck(lambda x: ScaledTanh.apply(x, 0.01), (leaf(5),), raise_exception=False) is False
    )


def test_a_small_error_above_tolerance_is_caught_and_one_below_is_not():
    x = leaf(4, 3)
    assert not gradcheck(lambda x: ScaledTanh.apply(x, 3e-3), (x,), raise_exception=False)
    assert gradcheck(lambda x: ScaledTanh.apply(x, 3e-4), (x,))


def test_non_float_outputs_and_non_tensor_inputs_are_handled():
    x = leaf(3, 4)
    frozen = mg.tensor(np.arange(4.0))  # a tensor that does not require grad

    def fn(x, scale, frozen, flag):
        assert flag == "yes"
        values, indices = (x * scale + frozen).max(1)
        return values, indices  # indices are int64: ignored

    result = gradcheck(fn, (x, 2.0, frozen, "yes"), return_result=True)
    assert result.verdict in ("passed", "non-differentiable")
    assert [(p.output, p.input) for p in result.pairs] == [(0, 0)]


def test_a_single_tensor_may_be_passed_as_inputs():
    assert gradcheck(lambda x: x.exp(), leaf(3))


def test_no_input_requiring_grad_is_an_error():
    with pytest.raises(ValueError, match="requires_grad"):
        gradcheck(lambda x: x * 2, (mg.tensor([1.0, 2.0]),))


def test_inputs_are_restored_exactly_and_read_only_arrays_are_fine():
    data = np.random.default_rng(0).standard_normal((3, 4))
    view = np.broadcast_to(data[0], (3, 4))  # read-only, not contiguous
    x = Tensor._make(view, True, None)
    original = x.numpy()
    gradcheck(lambda x: x.sin(), (x,))
    assert x.numpy() is original and np.array_equal(x.numpy(), np.broadcast_to(data[0], (3, 4)))
    assert x.grad is None  # gradcheck never accumulates into .grad


# ---------------------------------------------------------------------------- precision
def test_float32_inputs_get_a_warning_that_says_why():
    x = leaf(3, 4, dtype=np.float32)
    with pytest.warns(GradcheckWarning, match="not float64.*rounding"):
        assert gradcheck(lambda x: x.tanh(), (x,))


def test_float32_check_is_inconclusive_not_failed_and_explains():
    x = leaf(4, 8, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GradcheckWarning)
        result = gradcheck(layer_norm, (x,), return_result=True)
    assert result.verdict == "inconclusive" and bool(result)
    assert "float32 rounding" in result.pairs[0].reason


def test_float32_check_passes_at_float32_tolerances_and_still_catches_bugs():
    x = leaf(4, 8, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GradcheckWarning)
        good = gradcheck(lambda x: x.tanh(), (x,), atol=1e-3, rtol=1e-2, return_result=True)
        bad = gradcheck(lambda x: ScaledTanh.apply(x, 0.05), (x,), return_result=True)
    assert good.verdict == "passed"
    assert bad.verdict == "failed"


def test_the_step_follows_the_dtype_unless_eps_is_given():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GradcheckWarning)
        r64 = gradcheck(lambda x: x.exp(), (leaf(3),), return_result=True)
        r32 = gradcheck(lambda x: x.exp(), (leaf(3, dtype=np.float32),), return_result=True)
        given = gradcheck(
            lambda x: x.exp(), (leaf(3, dtype=np.float32),), eps=1e-2, return_result=True
        )
        tiny = gradcheck(
            lambda x: x.exp(), (leaf(3, dtype=np.float32),), eps=1e-6, return_result=True
        )
    assert r64.pairs[0].step == 1e-6
    assert r32.pairs[0].step == 2.0**-8
    assert given.pairs[0].step == 1e-2
    # the contract's 1e-6 passed explicitly in float32: noise, so never a failure
    assert tiny.pairs[0].step == 1e-6 and tiny.verdict == "inconclusive"


def test_large_outputs_limit_resolution_and_a_larger_eps_fixes_it():
    # One rounding unit of 1e9 over the step 1e-6 is 0.06: more than rtol allows.
    x = mg.tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    result = gradcheck(lambda x: x + 1e9, (x,), return_result=True)
    assert result.verdict == "inconclusive"
    assert "pass a larger eps" in result.pairs[0].reason
    assert gradcheck(lambda x: x + 1e9, (x,), eps=1e-3, return_result=True).verdict == "passed"


def test_large_outputs_whose_derivatives_are_as_large_are_decided():
    # exp at 14-15: outputs of 1e6, derivatives of the same size; the zeros off the
    # diagonal hide no slope that matters against them.
    x = mg.tensor(np.array([14.0, 15.0, -1.0]), requires_grad=True)
    assert gradcheck(lambda x: x.exp(), (x,), return_result=True).verdict == "passed"


# ---------------------------------------------------------------------------- vacuous
def test_a_normalized_output_summed_is_vacuous_and_warned():
    x = leaf(4, 8)
    with pytest.warns(GradcheckWarning, match="vacuous"):
        result = gradcheck(lambda x: layer_norm(x).sum(), (x,), return_result=True)
    assert result.verdict == "vacuous" and bool(result)
    assert "random weights" in result.pairs[0].reason


def test_a_backward_returning_zeros_is_not_mistaken_for_vacuous():
    class Zero(Function):
        @staticmethod
        def forward(ctx, x):
            return np.sin(x.numpy())

        @staticmethod
        def backward(ctx, g):
            return g * 0.0

    assert gradcheck(lambda x: Zero.apply(x), (leaf(5),), return_result=True).verdict == "failed"


def test_an_unused_input_is_a_vacuous_pair_and_the_others_are_checked():
    x, unused = leaf(3), leaf(2, seed=1)
    with pytest.warns(GradcheckWarning, match="input 1"):
        result = gradcheck(lambda x, u: x.exp(), (x, unused), return_result=True)
    assert result.pair(0, 0).verdict == "passed"
    assert result.pair(0, 1).verdict == "vacuous"
    assert result.verdict == "passed"


def test_blind_cotangent_in_gradgradcheck_is_detected():
    x = leaf(4, 8)
    ones = mg.ones(4, 8, dtype=mg.float64)  # constant along the softmax axis: J^T v = 0
    with pytest.warns(GradcheckWarning, match="blind"):
        result = gradgradcheck(
            lambda x: x.softmax(-1), (x,), grad_outputs=(ones,), return_result=True
        )
    # Nothing can be learnt at that v, so the check is made with a random one instead.
    assert result.verdict == "passed"
    assert "blind" in result.notes[0] and "random cotangent instead: passed" in result.notes[0]
    # the default cotangent is random and non-uniform: a real second-order check
    assert gradgradcheck(lambda x: x.softmax(-1), (x,), return_result=True).verdict == "passed"


# ---------------------------------------------------------------------------- kinks
def test_relu_abs_and_ties_at_kinks_are_non_differentiable_not_wrong():
    x = mg.tensor(np.array([-1.0, 0.0, 0.5, 0.0, 2.0]), requires_grad=True)
    ties = mg.tensor(np.array([[1.0, 3.0, 3.0], [0.5, 0.2, -1.0]]), requires_grad=True)
    with pytest.warns(GradcheckWarning, match="not differentiable"):
        for fn, inp in (
            (lambda x: x.relu(), x),
            (lambda x: x.abs(), x),
            (lambda t: t.amax(-1), ties),
        ):
            result = gradcheck(fn, (inp,), return_result=True)
            assert result.verdict == "non-differentiable", str(result)
            pair = result.pairs[0]
            assert pair.counts["non-differentiable"] == 2
            assert all(e.status == "non-differentiable" for e in pair.worst)
    assert {
        e.input_index
        for e in gradcheck(lambda x: x.relu(), (x,), return_result=True).pairs[0].worst
    } == {(1,), (3,)}


def test_a_gradient_outside_the_one_sided_derivatives_fails_at_a_kink():
    class BadRelu(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return np.maximum(x.numpy(), 0)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * const((x.numpy() > 0) + 2.0 * (x.numpy() == 0))  # 2 at 0: not in [0, 1]

    x = mg.tensor(np.array([-1.0, 0.0, 0.5]), requires_grad=True)
    result = gradcheck(BadRelu.apply, (x,), return_result=True)
    assert result.verdict == "failed"
    assert result.pairs[0].worst[0].input_index == (1,)


# ---------------------------------------------------------------------------- backward behaviour
def test_nondeterministic_backward_is_reported_and_nondet_tol_allows_it():
    rng = np.random.default_rng(0)

    class Noisy(Function):
        @staticmethod
        def forward(ctx, x):
            return x.numpy() * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0 + const(rng.standard_normal(g.shape) * 1e-9)

    with pytest.raises(GradcheckError, match="not deterministic"):
        gradcheck(Noisy.apply, (leaf(4),))
    assert gradcheck(Noisy.apply, (leaf(4),), nondet_tol=1e-6)


def test_nondeterministic_forward_is_reported():
    rng = np.random.default_rng(0)
    with pytest.raises(GradcheckError, match="function is not deterministic"):
        gradcheck(lambda x: x * const(rng.random(3)), (leaf(3),))


def test_a_backward_not_linear_in_its_incoming_gradient_is_caught():
    class SignOfGrad(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.numpy() ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return const(np.sign(g.numpy())) * 3 * x * x  # right for unit cotangents only

    with pytest.raises(GradcheckError, match="not linear in its incoming gradient"):
        gradcheck(SignOfGrad.apply, (leaf(2, 3),))


def test_a_backward_that_raises_is_a_failure_with_its_message():
    class WrongShape(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a.numpy() + b.numpy()

        @staticmethod
        def backward(ctx, g):
            return g, g  # b's gradient not reduced over the broadcast rows

    with pytest.raises(GradcheckError, match="Backward raised.*index 1.*shape"):
        gradcheck(WrongShape.apply, (leaf(3, 4), leaf(4, seed=1)))


def test_a_detached_output_that_depends_on_the_input_fails():
    with pytest.raises(GradcheckError, match="does not require grad"):
        gradcheck(lambda x: (x.detach() * 2, x * 1.0)[0], (leaf(3),))


def test_a_transposed_gradient_is_attributed_exactly_despite_row_compression():
    """Rows of an elementwise Jacobian share one backward; a gradient written to the
    wrong element must still be reported where it really is."""

    class TransposedGrad(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return np.sin(x.numpy())

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return (g * x.cos()).T  # the gradient of x[i, j] lands on x[j, i]

    fn = TransposedGrad.apply
    x = leaf(3, 3)
    result = gradcheck(fn, (x,), return_result=True)
    pair = result.pair(0, 0)
    assert pair.verdict == "failed"
    assert all(e.output_index != e.input_index for e in pair.worst if e.analytical != 0)
    assert pair.counts["failed"] == 12  # 6 off-diagonal entries claimed, 6 missing


def test_compression_uses_few_backward_passes_and_two_calls_per_element():
    x, w, b = leaf(16, 64), leaf(64, seed=1), leaf(64, seed=2)
    result = gradcheck(lambda x, w, b: layer_norm(x) * w + b, (x, w, b), return_result=True)
    assert result.verdict == "passed"
    n_in = 16 * 64 + 64 + 64
    assert result.cost["function_calls"] <= 2 * n_in + 3 * 4 * 16 + 8  # + calibration
    assert result.cost["backward_passes"] <= 64 + 3  # one per colour, plus the probes


def test_too_large_for_a_full_check_points_to_fast_mode():
    with pytest.raises(ValueError, match="fast_mode=True"):
        gradcheck(lambda x: x * 2, (leaf(2048, 2048),))


# ---------------------------------------------------------------------------- fast mode
def test_fast_mode_passes_a_correct_function_on_a_large_input():
    x = leaf(128, 128)
    result = gradcheck(lambda x: layer_norm(x).tanh(), (x,), fast_mode=True, return_result=True)
    assert result.verdict == "passed" and result.fast_mode
    assert result.cost["backward_passes"] <= 5  # one per direction, plus the nondet rerun
    assert result.cost["function_calls"] <= 4 * 4 + 4


def test_fast_mode_catches_an_error_and_cannot_pinpoint_it():
    x = leaf(64, 64)
    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda x: ScaledTanh.apply(x, 0.01), (x,), fast_mode=True)
    assert "direction" in str(info.value)


# ---------------------------------------------------------------------------- gradgradcheck
def test_gradgradcheck_passes_composites_and_checks_grad_outputs():
    x, y = leaf(3, 4), leaf(4, 2, seed=1)
    result = gradgradcheck(lambda x, y: (x @ y).tanh() * 2, (x, y), return_result=True)
    assert result.verdict == "passed"
    names = {p.input_name for p in result.pairs}
    assert names == {"input 0", "input 1", "grad_outputs[0]"}


def test_gradgradcheck_catches_a_backward_that_is_right_only_to_first_order():
    class DetachedTanh(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.y = np.tanh(x.numpy())  # a constant: the backward's graph misses d y / d x
            return ctx.y

        @staticmethod
        def backward(ctx, g):
            return g * const(1.0 - ctx.y**2)

    x = leaf(5)
    assert gradcheck(DetachedTanh.apply, (x,))
    with pytest.raises(
        GradcheckError, match=r"output 0 \(grad\[input 0\]\) with respect to input 0"
    ):
        gradgradcheck(DetachedTanh.apply, (x,))


def test_gradgradcheck_validates_grad_outputs():
    with pytest.raises(ValueError, match="shape"):
        gradgradcheck(lambda x: x.exp(), (leaf(3),), grad_outputs=(mg.ones(4, dtype=mg.float64),))


# ---------------------------------------------------------------------------- the report
def test_result_report_is_a_compact_table_not_whole_jacobians():
    x = leaf(16, 16)
    result = gradcheck(lambda x: ScaledTanh.apply(x, 0.5), (x,), return_result=True)
    assert isinstance(result, GradcheckResult) and not result
    text = str(result)
    assert len(text.splitlines()) < 20  # a 256 x 256 Jacobian is not printed
    assert "input 0  [16, 16]  FAILED" in text
    pair = result.pairs[0]
    assert pair.counts["failed"] == 256 and len(pair.worst) == 5
    assert pair.step == 1e-6 and 0 < pair.fd_error < 1e-6


def test_result_summary_lists_inputs_by_name():
    x, w = leaf(3), leaf(3, seed=1)
    result = gradcheck(lambda x, w: x * ScaledTanh.apply(w, 0.2), (x, w), return_result=True)
    assert result.summary() == "input 0: ok\ninput 1: FAILED"
    assert result.by_input() == {"input 0": "passed", "input 1": "failed"}

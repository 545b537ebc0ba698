"""Custom differentiable functions (minigrad/autograd/function.py)."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import Function


class Cube(Function):  # the example of API.md, verbatim
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x * x


class ExpSavingOutput(Function):
    """Saves its own output (y = exp(x), dy/dx = y)."""

    @staticmethod
    def forward(ctx, x):
        y = np.exp(x.numpy())
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class ScaleShift(Function):
    """a * x + b * y with non-tensor a and b, recording which gradients were computed."""

    calls = []

    @staticmethod
    def forward(ctx, x, a, y, b):
        ctx.a, ctx.b = a, b
        return x.numpy() * a + y.numpy() * b

    @staticmethod
    def backward(ctx, g):
        ScaleShift.calls.append(ctx.needs_input_grad)
        gx = g * ctx.a if ctx.needs_input_grad[0] else None
        gy = g * ctx.b if ctx.needs_input_grad[2] else None
        return gx, None, gy, None


def _leaf(shape=(3,), seed=0, requires_grad=True):
    data = np.random.default_rng(seed).uniform(0.5, 1.5, shape)
    return mg.tensor(data, requires_grad=requires_grad)


def test_cube_example_values_and_gradcheck():
    x = _leaf()
    y = Cube.apply(x)
    np.testing.assert_allclose(y.numpy(), x.numpy() ** 3)
    assert isinstance(y.grad_fn, Cube) and y.grad_fn.name() == "Cube"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.numpy() ** 2)
    assert mg.gradcheck(Cube.apply, (_leaf(),))


def test_cube_is_twice_differentiable():
    assert mg.gradgradcheck(Cube.apply, (_leaf(),))
    x = _leaf()
    (g,) = mg.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * x.numpy())


def test_needs_input_grad_is_a_tuple_of_bools_per_argument():
    ScaleShift.calls.clear()
    x, y = _leaf(), _leaf(seed=1, requires_grad=False)
    ScaleShift.apply(x, 2.0, y, 3.0).sum().backward()
    assert ScaleShift.calls == [(True, False, False, False)]
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    assert y.grad is None
    ScaleShift.calls.clear()
    y.requires_grad_()
    ScaleShift.apply(x, 2.0, y, 3.0).sum().backward()
    assert ScaleShift.calls == [(True, False, True, False)]
    np.testing.assert_array_equal(y.grad.numpy(), [3.0, 3.0, 3.0])


def test_non_tensor_arguments_gradcheck():
    x, y = _leaf(), _leaf(seed=1)
    assert mg.gradcheck(lambda s, t: ScaleShift.apply(s, -1.5, t, 0.25), (x, y))


def test_saving_the_output():
    x = _leaf()
    y = ExpSavingOutput.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.numpy()))
    assert mg.gradcheck(ExpSavingOutput.apply, (_leaf(),))
    # the saved output keeps its place in the graph, so second order is right too
    assert mg.gradgradcheck(ExpSavingOutput.apply, (_leaf(),))


def test_returning_none_for_an_input_that_requires_grad_leaves_it_without_grad():
    class FirstOnly(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a.numpy() + b.numpy()

        @staticmethod
        def backward(ctx, g):
            return g, None

    a, b = _leaf(), _leaf(seed=1)
    FirstOnly.apply(a, b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 1.0, 1.0])
    assert b.grad is None


def test_a_function_used_twice_in_one_graph():
    x = _leaf()
    y = Cube.apply(Cube.apply(x)) + Cube.apply(x)  # x^9 + x^3, three separate nodes
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 9 * x.numpy() ** 8 + 3 * x.numpy() ** 2)
    assert mg.gradcheck(lambda t: Cube.apply(Cube.apply(t)) * Cube.apply(t), (_leaf(),))


def test_forward_may_return_an_array_or_a_tensor_and_backward_an_array():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0  # a Tensor (computed with recording off)

        @staticmethod
        def backward(ctx, g):
            return g.numpy() * 2.0  # a bare array is accepted

    x = _leaf()
    y = Double.apply(x)
    assert y.requires_grad and isinstance(y.grad_fn, Double)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_forward_runs_with_recording_off():
    seen = []

    class Spy(Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(mg.is_grad_enabled())
            return x.numpy().copy()

        @staticmethod
        def backward(ctx, g):
            return g

    Spy.apply(_leaf())
    assert seen == [False] and mg.is_grad_enabled()


def test_apply_under_no_grad_or_on_constants_builds_no_graph():
    with mg.no_grad():
        y = Cube.apply(_leaf())
    assert not y.requires_grad and y.grad_fn is None
    z = Cube.apply(_leaf(requires_grad=False))
    assert not z.requires_grad and z.grad_fn is None


def test_integer_output_carries_no_gradient():
    class Floor(Function):
        @staticmethod
        def forward(ctx, x):
            return np.floor(x.numpy()).astype(np.int64)

        @staticmethod
        def backward(ctx, g):
            raise AssertionError("never called")

    y = Floor.apply(_leaf())
    assert y.dtype == mg.int64 and not y.requires_grad


def test_saved_tensors_are_freed_after_backward():
    x = _leaf()
    y = Cube.apply(x)
    node = y.grad_fn
    y.sum().backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        _ = node.saved_tensors


def test_backward_returning_too_few_gradients_is_an_error():
    class TwoInputs(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a.numpy() * b.numpy()

        @staticmethod
        def backward(ctx, g):
            return g  # one gradient for two inputs

    with pytest.raises(RuntimeError, match=r"TwoInputs.*1 gradient.*2 argument"):
        TwoInputs.apply(_leaf(), _leaf(seed=1)).sum().backward()


def test_backward_returning_a_non_tensor_is_an_error():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            return x.numpy() * 1.0

        @staticmethod
        def backward(ctx, g):
            return "oops"

    with pytest.raises(TypeError, match="Bad"):
        Bad.apply(_leaf()).sum().backward()


def test_missing_backward_raises_not_implemented():
    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x.numpy() * 1.0

    with pytest.raises(NotImplementedError, match="backward"):
        NoBackward.apply(_leaf()).sum().backward()


def test_backward_returning_extra_non_none_gradients_is_an_error():
    class Extra(Function):
        @staticmethod
        def forward(ctx, x):
            return x.numpy() * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0, g

    with pytest.raises(RuntimeError, match="Extra"):
        Extra.apply(_leaf()).sum().backward()

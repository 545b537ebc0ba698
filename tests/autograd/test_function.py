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


# ------------------------------------ backward and backward_array: the same derivative
def _graph_nodes(t):
    """Every node of the graph behind ``t``."""
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen or isinstance(node, mg.Tensor):
            continue
        seen.add(node)
        stack.extend(node.next_functions)
    return seen


def _pos(shape, seed):
    return mg.tensor(np.random.default_rng(seed).uniform(0.5, 2.0, shape), requires_grad=True)


def _normal(shape, seed):
    return mg.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)


def _second_order_graph(f, x):
    """The graph of d(sum f(x))/dx, recorded: its nodes are the backwards' own Functions."""
    (g,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)
    return g


def _in_place_graph(x, v):
    """Overwrite (an in-place change through a view) and IndexPut (t[idx] = v)."""
    h = x * 1.0
    h[:, 0].mul_(v)
    h[:, np.array([1, 1])] = v
    return h


def _examples():
    """One expression per Function that defines both backwards (float64 leaves)."""
    import minigrad.nn.functional as F
    from minigrad.amp.rounding import RoundTo

    a, b, c = _normal((3, 1), 1), _normal((4,), 2), _normal((2, 3, 4), 3)
    p, q = _pos((3, 4), 4), _pos((4,), 5)
    m, n = _normal((2, 3, 4), 6), _normal((4, 5), 7)
    tie = mg.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    other = mg.tensor(np.array([1.0, 0.0, 4.0]), requires_grad=True)
    idx = np.array([0, 2, 2])
    yield from [
        a + b,
        a - b,
        a * b,
        a / (q + 1.0),
        p**q,
        c + 2.0,
        c * 3.0,
        c / 2.0,
        2.0 - c,
        2.0 / p,
        p**3.0,
        p**2,
        p**0,
        2.0**c,
        0.0**p,
        -c,
        m @ n,
        c.float(),
        c.clone(),
        p.exp(),
        p.log(),
        p.sqrt(),
        p.rsqrt(),
        c.tanh(),
        c.sigmoid(),
        c.relu(),
        c.abs(),
        c.clamp(-0.5, 0.5),
        tie.maximum(other),
        tie.minimum(other),
        c.sin(),
        c.cos(),
        c.sum(1),
        c.mean((0, 2)),
        c.var(1),
        c.std(1),
        c.amax(1),
        c.amin(0),
        c.logsumexp(1),
        c.softmax(1),
        c.log_softmax(2),
        c.reshape(6, 4),
        c.view(6, 4),
        c.as_strided((3, 4), (2, 1), 1),  # overlapping reads: their gradients add
        a.expand(3, 4).as_strided((2, 2), (1, 1)),  # an overlapping input
        c.permute(2, 0, 1),
        a.expand(2, 3, 4),
        mg.cat([a, a * 2.0], 0),
        c[:, idx],
        c[:, 1:],
        c.gather(2, np.array([[[3, 0, 3]] * 3] * 2)),
        mg.where(c.numpy() > 0, c, b),
        c.masked_fill(c.numpy() > 0, 1.0),
        c.scatter(2, mg.tensor(np.array([[[3, 0]] * 3] * 2)), m[:, :, :2]),
        mg.scatter_reduce(c, 2, mg.tensor(np.array([[[3, 3]] * 3] * 2)), m[:, :, :2], "prod"),
        mg.scatter_reduce(c, 2, mg.tensor(np.array([[[1, 1]] * 3] * 2)), m[:, :, :2], "amax"),
        c.diagonal(1, 1, 2),
        c.unfold(2, 2, 1),
        _second_order_graph(lambda x: x.diagonal() * x.diagonal(), p),
        _second_order_graph(lambda x: x.unfold(1, 2, 1) ** 2, p),
        mg.linalg.inv(n[:, :4] + 3.0),
        mg.linalg.det(n[:, :4]),
        mg.linalg.solve(n[:, :4] + 3.0, m[0].mT),
        mg.linalg.vector_norm(c, 3, dim=1),
        mg.linalg.vector_norm(c, 0.5),
        mg.linalg.vector_norm(c, float("inf"), dim=(0, 2)),
        mg.linalg.vector_norm(c, 1, dim=2, keepdim=True),
        mg.cholesky_solve(m[0].mT, mg.linalg.cholesky(n[:, :4] @ n[:, :4].mT + 4.0)),
        mg.cholesky_solve(m[0].mT, mg.linalg.cholesky(n[:, :4] @ n[:, :4].mT + 4.0).mT, True),
        _second_order_graph(lambda x: x[idx] * x[idx], p),
        _in_place_graph(c, b),
        _second_order_graph(lambda x: x.gather(1, np.array([[0, 0]] * 3)) ** 2, p),
        # nn's Functions (they count once they define backward_array)
        F.gelu(c),
        F.gelu(c, approximate="tanh"),
        F.silu(c),
        F.softmax(c, -1),
        F.layer_norm(c, (4,), _pos((4,), 8), _normal((4,), 9)),
        F.rms_norm(c, (4,), _pos((4,), 10)),
        F.group_norm(_normal((2, 4, 3), 11), 2, _pos((4,), 12), _normal((4,), 13)),
        F.batch_norm(_normal((5, 4), 14), None, None, _pos((4,), 15), None, training=True),
        F.cross_entropy(_normal((5, 4), 16), mg.tensor(np.array([0, 3, 1, 1, 2]))),
        F.cross_entropy(
            _normal((5, 4), 23),
            _normal((5, 4), 24).softmax(1),
            label_smoothing=0.1,
            weight=mg.tensor(np.array([1.0, 2.0, 0.5, 1.0])),
        ),
        F.scaled_dot_product_attention(
            _normal((2, 3, 4), 17), _normal((2, 5, 4), 18), _normal((2, 5, 4), 19)
        ),
        F.linear(_normal((2, 3, 4), 20), _normal((5, 4), 21), _normal((5,), 22)),
        RoundTo.apply(c.float(), "bfloat16"),  # autocast's rounding (float32 only)
    ]


def _function_classes():
    import minigrad.nn  # noqa: F401  (its Functions register as subclasses)

    found, stack = set(), [Function]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in found:
                found.add(sub)
                stack.append(sub)
    return {c for c in found if c.__module__.startswith("minigrad.")}


def test_every_backward_array_agrees_with_its_backward():
    """For every node of every example, both backwards of its Function on the same
    cotangent give the same gradients (None in the same places), and the array one
    leaves its input untouched. Every minigrad Function that defines both is covered."""
    rng = np.random.default_rng(0)
    covered = set()
    with np.errstate(invalid="ignore", divide="ignore"):  # 0 ** x: 0 * -inf, then masked
        examples = list(_examples())
    for out in examples:
        for node in _graph_nodes(out):
            cls = type(node)
            if cls.backward_array is None:
                continue
            covered.add(cls)
            g = rng.standard_normal(node._shape).astype(node._dtype)
            g_before = g.copy()
            with mg.no_grad(), np.errstate(invalid="ignore"):
                by_tensor = node.backward(node, mg.tensor(g))
                by_array = node.backward_array(node, g)
            np.testing.assert_array_equal(g, g_before, err_msg=f"{cls.__name__} wrote into g")
            by_tensor = by_tensor if isinstance(by_tensor, tuple) else (by_tensor,)
            by_array = by_array if isinstance(by_array, tuple) else (by_array,)
            assert len(by_tensor) == len(by_array), cls.__name__
            for i, (t, arr) in enumerate(zip(by_tensor, by_array)):
                assert (t is None) == (arr is None), f"{cls.__name__} input {i}"
                if t is None:
                    continue
                t = t.numpy() if isinstance(t, mg.Tensor) else np.asarray(t)
                assert isinstance(arr, np.ndarray), f"{cls.__name__} input {i}: {type(arr)}"
                assert arr.shape == t.shape and arr.dtype == t.dtype, f"{cls.__name__} {i}"
                np.testing.assert_allclose(
                    arr, t, rtol=1e-12, atol=1e-14, err_msg=f"{cls.__name__} input {i}"
                )
    # The elementwise table's classes are checked entry by entry in test_opinfo.py.
    both = {
        c
        for c in _function_classes()
        if c.backward_array is not None and c.__module__ != "minigrad.functions.pointwise"
    }
    missing = sorted(c.__qualname__ for c in both - covered if not c.__subclasses__())
    assert not missing, f"add an example to _examples() for: {missing}"
    assert len(covered) >= 40


def test_engine_uses_backward_array_unless_the_backward_is_recorded():
    calls = []

    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            return x.numpy() * 2.0

        @staticmethod
        def backward(ctx, g):
            calls.append("backward")
            return g * 2.0

        @staticmethod
        def backward_array(ctx, g):
            calls.append("backward_array")
            assert isinstance(g, np.ndarray)
            return g * 2.0

    x = _leaf()
    Twice.apply(x).sum().backward()
    assert calls == ["backward_array"]
    (gx,) = mg.autograd.grad(Twice.apply(x).sum(), x, create_graph=True)
    assert calls == ["backward_array", "backward"]
    np.testing.assert_array_equal(x.grad.numpy(), gx.numpy())

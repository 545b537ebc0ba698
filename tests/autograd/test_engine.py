"""The backward pass (minigrad/autograd/engine.py, api.py): order, accumulation,
retain_graph, retain_grad, errors, and the shapes, dtypes and independence of gradients."""

import time
import weakref

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import Function


def _leaf(*values):
    return mg.tensor(np.array(values, dtype=np.float64), requires_grad=True)


# ------------------------------------------------------------------------ deep graphs
def test_100k_node_chain_runs_without_recursion(record_property):
    x = mg.tensor(np.array([1.0]), requires_grad=True)
    start = time.perf_counter()
    y = x
    for _ in range(100_000):
        y = y * 1.0
    forward = time.perf_counter() - start
    y.backward(mg.ones(1, dtype=mg.float64))
    total = time.perf_counter() - start
    # reported, not asserted: timing on a shared machine is not a pass/fail criterion
    record_property("chain_100k_forward_s", round(forward, 3))
    record_property("chain_100k_forward_backward_s", round(total, 3))
    assert x.grad.item() == 1.0
    del y  # freeing a 100k-long graph must not recurse either


def test_deep_chain_with_retain_graph_and_create_graph():
    x = _leaf(2.0)
    y = x
    for _ in range(5_000):
        y = y * 1.0 + x * x * 1e-4  # dy/dx = 1 + 5000 * 2e-4 * x = 1 + x
    (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
    assert g.grad_fn is not None
    np.testing.assert_allclose(g.item(), 3.0)
    (h,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.item(), 1.0)


# ------------------------------------------------------------------------ accumulation
def test_two_backward_calls_accumulate_into_leaves():
    x = _leaf(1.0, 2.0)
    (x * x).sum().backward()
    (x * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0 + 3.0, 4.0 + 3.0])


def test_grad_none_resets_accumulation():
    x = _leaf(1.0, 2.0)
    (x * x).sum().backward()
    x.grad = None
    (x * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_diamond_graph_sums_both_paths():
    x = _leaf(0.5, -1.0)
    a = x.exp()
    y = (a * 2.0 + a * a).sum()  # a is used by two branches
    y.backward()
    e = np.exp(x.numpy())
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * e + 2.0 * e * e)


def test_tensor_used_twice_in_one_op():
    x = _leaf(3.0, -2.0)
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, -4.0])
    x.grad = None
    (x + x + x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_leaf_used_in_two_branches_and_several_outputs():
    w = _leaf(2.0)
    a = w * 3.0
    b = w.tanh()
    mg.autograd.backward([a.sum(), b.sum()])
    np.testing.assert_allclose(w.grad.numpy(), 3.0 + (1 - np.tanh(2.0) ** 2))


def test_multiple_roots_with_gradients():
    x = _leaf(1.0, 2.0)
    y1, y2 = x * 2.0, x * x
    mg.autograd.backward(
        [y1, y2], [mg.tensor(np.array([1.0, 0.0])), mg.tensor(np.array([0.0, 1.0]))]
    )
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def test_backward_on_a_leaf_gives_the_seed():
    x = _leaf(1.0, 2.0)
    x.backward(mg.tensor(np.array([5.0, 6.0])))
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 6.0])


def test_unused_branch_and_constant_inputs():
    x, c = _leaf(1.0), mg.tensor(np.array([4.0]))
    unused = _leaf(7.0)
    _ = unused * 2.0  # part of another graph
    (x * c).sum().backward()
    assert c.grad is None and unused.grad is None
    assert x.grad.item() == 4.0


# ------------------------------------------------------------------------ retain_graph
def test_second_backward_without_retain_graph_raises_clearly():
    x = _leaf(1.0, 2.0)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_retain_graph_allows_a_second_backward_that_doubles_the_grads():
    x = _leaf(1.0, 2.0)
    y = (x * x).exp().sum()
    y.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first)
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_grad_without_retain_graph_frees_the_graph():
    x = _leaf(1.0)
    y = (x * x).sum()
    mg.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="retain_graph"):
        mg.autograd.grad(y, x)


# ------------------------------------------------------------------------ retain_grad
def test_retain_grad_on_a_non_leaf():
    x = _leaf(1.0, 2.0)
    h = x * 3.0
    h.retain_grad()
    other = x * 2.0  # a non-leaf without retain_grad keeps no .grad
    (h * h + other).sum().backward()
    np.testing.assert_array_equal(h.grad.numpy(), 2 * h.numpy())
    assert other.grad is None
    assert h.grad.grad_fn is None
    np.testing.assert_array_equal(x.grad.numpy(), 3 * 2 * h.numpy() + 2.0)


def test_retain_grad_accumulates_and_is_a_no_op_on_leaves():
    x = _leaf(1.0)
    x.retain_grad()
    h = x * 2.0
    h.retain_grad()
    y = (h * h).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert h.grad.item() == 2 * (2 * 2.0)
    assert x.grad.item() == 2 * 8.0
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.tensor([1.0]).retain_grad()


# ------------------------------------------------------------------------ errors
def test_non_scalar_backward_without_gradient_says_what_to_do():
    x = _leaf(1.0, 2.0)
    with pytest.raises(RuntimeError, match=r"scalar.*\[2\].*gradient=.*sum\(\)"):
        (x * 2.0).backward()


def test_backward_from_a_tensor_without_grad_says_what_to_do():
    with pytest.raises(RuntimeError, match="requires_grad=True"):
        mg.tensor([1.0, 2.0]).sum().backward()
    with mg.no_grad():
        y = (_leaf(1.0) * 2.0).sum()
    with pytest.raises(RuntimeError, match="no_grad"):
        y.backward()


def test_gradient_with_wrong_shape_is_refused():
    x = _leaf(1.0, 2.0)
    with pytest.raises(RuntimeError, match=r"\[3\].*\[2\]"):
        (x * 2.0).backward(mg.ones(3))


def test_requires_grad_on_int_tensor_raises():
    with pytest.raises(RuntimeError, match="floating point"):
        mg.tensor([1, 2], requires_grad=True)


def test_wrong_gradient_shape_from_a_function_names_it():
    class Squash(Function):
        @staticmethod
        def forward(ctx, x):
            return x.numpy() * 2.0

        @staticmethod
        def backward(ctx, g):
            return g.sum()  # wrong: a scalar for a (3,) input

    x = mg.tensor(np.ones(3), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Squash.*shape \[\].*\[3\]"):
        Squash.apply(x).sum().backward()
    h = x * 1.0  # the same check for a gradient flowing into a non-leaf
    with pytest.raises(RuntimeError, match=r"Squash.*\[3\]"):
        Squash.apply(h).sum().backward()


def test_grad_api_errors():
    x, unused = _leaf(1.0), _leaf(2.0)
    y = (x * 2.0).sum()
    with pytest.raises(RuntimeError, match="not used"):
        mg.autograd.grad(y, [x, unused], retain_graph=True)
    gx, gu = mg.autograd.grad(y, [x, unused], allow_unused=True)
    assert gx.item() == 2.0 and gu is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.autograd.grad((x * 2.0).sum(), mg.tensor([1.0]))


# ------------------------------------------------------------------------ grad shapes, dtypes
def test_grad_returns_without_accumulating_and_works_for_non_leaves():
    x = _leaf(1.0, 2.0)
    h = x * x
    y = (h * 3.0).sum()
    gh, gx = mg.autograd.grad(y, [h, x])
    np.testing.assert_array_equal(gh.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(gx.numpy(), [6.0, 12.0])
    assert x.grad is None and h.grad is None


def test_gradients_have_their_tensors_shape_and_dtype():
    x32 = mg.ones(2, 3, requires_grad=True)
    b32 = mg.ones(3, requires_grad=True)
    s32 = mg.tensor(2.0, requires_grad=True)
    ((x32 * b32 + s32) ** 2).mean().backward()
    for t in (x32, b32, s32):
        assert t.grad.shape == t.shape and t.grad.dtype == mg.float32
    x64 = mg.ones(2, dtype=mg.float64, requires_grad=True)
    (x64.float() * 2.0).sum().backward()  # the graph is float32; the leaf is float64
    assert x64.grad.dtype == mg.float64


def test_grads_of_two_leaves_are_not_aliased():
    a, b = _leaf(1.0, 2.0), _leaf(3.0, 4.0)
    (a + b).sum().backward()  # add hands the same gradient to both inputs
    with mg.no_grad():
        a.grad.add_(10.0)
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())


def test_leaf_grad_is_writable_and_independent_of_the_seed():
    x = _leaf(1.0, 2.0)
    seed = mg.tensor(np.array([1.0, 1.0]))
    x.backward(seed)
    x.grad.numpy()[0] = 99.0
    np.testing.assert_array_equal(seed.numpy(), [1.0, 1.0])
    y = _leaf(1.0, 2.0)
    y.expand(3, 2).sum().backward()  # a broadcast view upstream
    assert y.grad.numpy().flags.writeable
    y.grad.numpy()[0] = 0.0


def _two_leaves():
    return _leaf(1.0, 2.0), _leaf(3.0, 4.0)


def _two_retaining_non_leaves():
    p, q = _leaf(1.0, 2.0) * 1.0, _leaf(3.0, 4.0) * 1.0
    p.retain_grad()
    q.retain_grad()
    return p, q


@pytest.mark.parametrize(
    "two_inputs", [_two_leaves, _two_retaining_non_leaves], ids=["leaves", "retained"]
)
def test_grads_are_not_aliased_with_create_graph(two_inputs):
    a, b = two_inputs()
    (a + b).sum().backward(create_graph=True)  # add hands the same gradient to both
    assert a.grad is not b.grad
    with mg.no_grad():
        a.grad.numpy()[0] = 10.0
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])


def test_backward_without_create_graph_builds_no_graph():
    x = _leaf(1.0, 2.0)
    y = (x.tanh() * x).sum()
    y.backward()
    assert x.grad.grad_fn is None and not x.grad.requires_grad
    assert mg.is_grad_enabled()  # the engine restored the mode


# ------------------------------------------------- a leaf's gradient is its own buffer
class _Fresh(Function):
    """y = 3 x; its array backward returns a new array and remembers it (weakly)."""

    made = []

    @staticmethod
    def forward(ctx, x):
        return x.numpy() * 3.0

    @staticmethod
    def backward(ctx, g):
        return g * 3.0

    @staticmethod
    def backward_array(ctx, g):
        out = g * 3.0
        _Fresh.made.append(weakref.ref(out))
        return out


class _Keeps(Function):
    """y = x; its array backward returns an array the node keeps (``ctx.kept``)."""

    @staticmethod
    def forward(ctx, x):
        ctx.kept = np.full(x.shape, 2.0)
        return x.numpy() * 2.0

    @staticmethod
    def backward(ctx, g):
        return g * 2.0

    @staticmethod
    def backward_array(ctx, g):
        return ctx.kept  # (g is all ones in the test)


def test_a_leafs_first_gradient_is_its_own_copy_and_later_ones_add_into_it():
    _Fresh.made.clear()
    x = _leaf(1.0, 2.0)
    _Fresh.apply(x).sum().backward()
    first = x.grad.numpy()
    np.testing.assert_array_equal(first, [3.0, 3.0])
    (made,) = _Fresh.made
    assert made() is None or made() is not first  # never the array a backward returned
    _Fresh.apply(x).sum().backward()  # the second pass accumulates into the same array
    assert x.grad.numpy() is first
    np.testing.assert_array_equal(first, [6.0, 6.0])


def _bump(t):
    with mg.no_grad():
        t.grad.add_(100.0)


@pytest.mark.parametrize("n", [2, 70_000])  # the sum's backward: a new array / a view
def test_one_array_handed_to_two_leaves_is_not_shared(n):
    a = mg.tensor(np.arange(n, dtype=np.float64), requires_grad=True)
    b = mg.tensor(np.ones(n), requires_grad=True)
    (a + b).sum().backward()  # add hands the sum's gradient to both inputs
    _bump(a)
    np.testing.assert_array_equal(b.grad.numpy(), np.ones(n))
    np.testing.assert_array_equal(a.grad.numpy(), np.full(n, 101.0))
    assert b.grad.numpy().flags.writeable


def test_in_place_updates_of_one_grad_change_nothing_else():
    # add hands one array to both inputs (here as two views of it, through reshape)
    a, b = _leaf(1.0, 2.0), _leaf(3.0, 4.0)
    (a.reshape(2, 1) + b.reshape(2, 1)).sum().backward()
    _bump(a)
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])
    _bump(b)
    np.testing.assert_array_equal(a.grad.numpy(), [101.0, 101.0])

    # the caller's gradient= passes through AddScalar untouched
    x = _leaf(1.0, 2.0)
    seed = mg.tensor(np.array([1.0, 2.0]))
    (x + 1.0).backward(seed)
    _bump(x)
    np.testing.assert_array_equal(seed.numpy(), [1.0, 2.0])

    # an array the Function keeps (the graph is retained, so the node is still used)
    k = _leaf(1.0, 2.0)
    y = _Keeps.apply(k)
    y.sum().backward(retain_graph=True)
    _bump(k)
    np.testing.assert_array_equal(y.grad_fn.kept, [2.0, 2.0])
    y.sum().backward()
    np.testing.assert_array_equal(k.grad.numpy(), [104.0, 104.0])

    # a saved array: Mul's gradient for a is b's own data when the cotangent is 1
    p, q = _leaf(1.0, 2.0), _leaf(5.0, 6.0)
    (p * q).backward(mg.ones(2, dtype=mg.float64))
    _bump(p)
    np.testing.assert_array_equal(q.numpy(), [5.0, 6.0])
    np.testing.assert_array_equal(q.grad.numpy(), [1.0, 2.0])

    # one leaf used twice, and a leaf that is itself an output
    s = _leaf(1.0, 2.0)
    t = _leaf(3.0, 4.0)
    mg.autograd.backward([(s * 1.0 + t).sum(), t], [None, mg.ones(2, dtype=mg.float64)])
    _bump(s)
    np.testing.assert_array_equal(t.grad.numpy(), [2.0, 2.0])


def test_a_retained_gradient_accumulates_into_a_new_tensor():
    # PyTorch: a non-leaf's retained .grad is `old + new`, a new tensor, so a .grad taken
    # after the first backward keeps its values (a leaf's is added into in place).
    x = mg.ones(3, requires_grad=True)
    y = x * 2.0
    y.retain_grad()
    (y * 3.0).sum().backward(retain_graph=True)
    first = y.grad
    (y * 3.0).sum().backward()
    np.testing.assert_array_equal(first.numpy(), [3.0, 3.0, 3.0])
    np.testing.assert_array_equal(y.grad.numpy(), [6.0, 6.0, 6.0])
    assert y.grad is not first

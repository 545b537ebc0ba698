"""Activations: values and gradients against PyTorch (float32 and float64), gradcheck,
second derivatives, erf against math.erf, modules and reprs."""

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import grad, gradcheck, gradgradcheck

CASES = [
    ("relu", lambda F_, x: F_.relu(x)),
    ("gelu", lambda F_, x: F_.gelu(x)),
    ("gelu_tanh", lambda F_, x: F_.gelu(x, approximate="tanh")),
    ("silu", lambda F_, x: F_.silu(x)),
    ("tanh", lambda F_, x: F_.tanh(x) if F_ is F else x.tanh()),
    ("sigmoid", lambda F_, x: F_.sigmoid(x) if F_ is F else x.sigmoid()),
    ("leaky_relu", lambda F_, x: F_.leaky_relu(x, 0.2)),
    ("softmax", lambda F_, x: F_.softmax(x, dim=-1)),
    ("log_softmax", lambda F_, x: F_.log_softmax(x, dim=1)),
]


def _inputs(rng, dtype):
    x = rng.standard_normal((6, 7)) * 3
    x[0, :4] = [0.0, -30.0, 30.0, 1e-8]  # zero, saturation, tiny
    return x.astype(dtype)


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_pytorch(torch, rng, name, fn, dtype):
    x = _inputs(rng, dtype)
    g = rng.standard_normal(x.shape).astype(dtype)
    tx = torch.tensor(x, requires_grad=True)
    ty = fn(torch.nn.functional, tx)
    ty.backward(torch.tensor(g))
    mx = mg.tensor(x, requires_grad=True)
    my = fn(F, mx)
    my.backward(mg.tensor(g))
    assert my.dtype == dtype and mx.grad.dtype == dtype
    tol = dict(rtol=2e-6, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(my.numpy(), ty.detach().numpy(), **tol)
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), **tol)


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_gradcheck_and_gradgradcheck(rng, name, fn):
    x = rng.standard_normal((3, 4))
    x[np.abs(x) < 0.05] = 0.3  # keep away from relu's kink
    xt = mg.tensor(x, requires_grad=True)
    assert gradcheck(lambda t: fn(F, t), (xt,))
    if name in ("relu", "leaky_relu"):  # piecewise linear: test second order through a square
        assert gradgradcheck(lambda t: fn(F, t) ** 2, (xt,))
    else:
        assert gradgradcheck(lambda t: fn(F, t), (xt,))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_second_derivative_matches_pytorch(torch, rng, approximate):
    x = rng.standard_normal(50) * 2
    tx = torch.tensor(x, requires_grad=True)
    (tg,) = torch.autograd.grad(
        torch.nn.functional.gelu(tx, approximate=approximate).sum(), tx, create_graph=True
    )
    (tgg,) = torch.autograd.grad(tg.sum(), tx)
    mx = mg.tensor(x, requires_grad=True)
    (mgr,) = grad(F.gelu(mx, approximate=approximate).sum(), mx, create_graph=True)
    (mgg,) = grad(mgr.sum(), mx)
    np.testing.assert_allclose(mgr.numpy(), tg.detach().numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(mgg.numpy(), tgg.numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("fn", [F.gelu, F.silu, lambda t: F.gelu(t, approximate="tanh")])
def test_fused_and_differentiable_backward_agree(rng, fn):
    """The plain backward uses the forward's fused derivative; create_graph rebuilds it
    from Tensor ops. Both must give the same first derivative."""
    x = mg.tensor(rng.standard_normal(100) * 4, requires_grad=True)
    (fast,) = grad(fn(x).sum(), x)
    (slow,) = grad(fn(x).sum(), x, create_graph=True)
    assert slow.requires_grad and not fast.requires_grad
    # atol: gelu_tanh's 1 - tanh(u)^2 cancels for large |x| (both ways lose ~1e-15)
    np.testing.assert_allclose(fast.numpy(), slow.numpy(), rtol=1e-13, atol=1e-14)


def test_erf_matches_math_erf_and_has_its_derivative(rng):
    x = np.concatenate([rng.standard_normal(200) * 3, [0.0, -6.0, 6.0, 1e-300, -1e-10]])
    y = F.erf(mg.tensor(x))
    np.testing.assert_allclose(y.numpy(), [math.erf(v) for v in x], rtol=1e-15, atol=0)
    y32 = F.erf(mg.tensor(x.astype(np.float32)))
    assert y32.dtype == np.float32
    np.testing.assert_allclose(
        y32.numpy(), [math.erf(float(np.float32(v))) for v in x], rtol=1e-7, atol=1e-7
    )
    xt = mg.tensor(rng.standard_normal(5), requires_grad=True)
    assert gradcheck(F.erf, (xt,)) and gradgradcheck(F.erf, (xt,))


def test_gelu_float16_and_no_grad_path():
    x = mg.tensor(np.linspace(-3, 3, 7), dtype=mg.float16)
    y = F.gelu(x)
    assert y.dtype == np.float16
    expected = [v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in np.linspace(-3, 3, 7)]
    np.testing.assert_allclose(y.numpy().astype(np.float64), expected, rtol=2e-3, atol=2e-3)
    with mg.no_grad():
        w = mg.tensor([1.0], requires_grad=True)
        assert not F.silu(w).requires_grad


def test_bad_inputs():
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(mg.ones(2), approximate="fast")
    with pytest.raises(ValueError, match="approximate"):
        nn.GELU("erf")
    with pytest.raises(TypeError, match="floating-point"):
        F.gelu(mg.tensor([1, 2]))
    with pytest.raises(TypeError, match="dim"):
        F.softmax(mg.ones(2, 2))


def test_modules_match_functions_and_repr(rng):
    x = mg.tensor(rng.standard_normal((2, 5)))
    pairs = [
        (nn.ReLU(), F.relu(x), "ReLU()"),
        (nn.GELU(), F.gelu(x), "GELU(approximate='none')"),
        (nn.GELU("tanh"), F.gelu(x, "tanh"), "GELU(approximate='tanh')"),
        (nn.SiLU(), F.silu(x), "SiLU()"),
        (nn.Tanh(), F.tanh(x), "Tanh()"),
        (nn.Sigmoid(), F.sigmoid(x), "Sigmoid()"),
        (nn.LeakyReLU(0.1), F.leaky_relu(x, 0.1), "LeakyReLU(negative_slope=0.1)"),
        (nn.Softmax(dim=1), F.softmax(x, 1), "Softmax(dim=1)"),
        (nn.LogSoftmax(dim=0), F.log_softmax(x, 0), "LogSoftmax(dim=0)"),
    ]
    for module, expected, text in pairs:
        np.testing.assert_array_equal(module(x).numpy(), expected.numpy())
        assert repr(module) == text


def test_module_reprs_match_pytorch(torch):
    for ours, theirs in [
        (nn.ReLU(), torch.nn.ReLU()),
        (nn.GELU(), torch.nn.GELU()),
        (nn.SiLU(), torch.nn.SiLU()),
        (nn.Tanh(), torch.nn.Tanh()),
        (nn.Softmax(dim=-1), torch.nn.Softmax(dim=-1)),
    ]:
        assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("fn", [F.gelu, F.silu, lambda t: F.gelu(t, approximate="tanh")])
def test_large_inputs_split_over_threads_agree_with_small_ones(rng, fn):
    x = rng.standard_normal((300, 500)).astype(np.float32)  # above the threading threshold
    xt = mg.tensor(x, requires_grad=True)
    y = fn(xt)
    y.backward(mg.ones_like(y))
    pieces = [fn(mg.tensor(row[None], requires_grad=True)) for row in x[:3]]
    np.testing.assert_array_equal(y.numpy()[:3], np.concatenate([p.numpy() for p in pieces]))
    row = mg.tensor(x[-1:], requires_grad=True)
    fn(row).sum().backward()
    np.testing.assert_array_equal(xt.grad.numpy()[-1:], row.grad.numpy())


@pytest.mark.parametrize("fn", [F.gelu, F.silu, lambda t: F.gelu(t, approximate="tanh")])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_results_do_not_depend_on_the_thread_count(rng, fn, dtype):
    x = (rng.standard_normal((257, 301)) * 4).astype(dtype)  # odd size: uneven chunks
    g = rng.standard_normal(x.shape).astype(dtype)
    results = []
    previous = mg.get_num_threads()
    try:
        for threads in (1, 2, 3):
            mg.set_num_threads(threads)
            xt = mg.tensor(x, requires_grad=True)
            fn(xt).backward(mg.tensor(g))  # g contiguous: the threaded product
            results.append((fn(xt).numpy(), xt.grad.numpy()))
    finally:
        mg.set_num_threads(previous)
    for y, dx in results[1:]:
        np.testing.assert_array_equal(y, results[0][0])
        np.testing.assert_array_equal(dx, results[0][1])


def test_backward_with_a_broadcast_or_transposed_gradient(rng):
    """g from ``.sum()`` is a broadcast view, from ``.T`` a transposed one: NumPy's product."""
    x = mg.tensor(rng.standard_normal((300, 400)).astype(np.float32), requires_grad=True)
    y = F.gelu(x)
    y.backward(mg.ones_like(y))
    expected = x.grad.numpy().copy()
    x.grad = None
    F.gelu(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    x.grad = None
    g = rng.standard_normal((400, 300)).astype(np.float32)
    F.gelu(x).T.backward(mg.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), g.T * expected)


# --------------------------------------------------------- F.softmax's fused row kernel
def _special_rows(dtype):
    x = np.array(
        [
            [1.0, 2.0, 3.0, 4.0],
            [-np.inf, -np.inf, -np.inf, -np.inf],  # every key masked: NaN, as 0/0
            [0.0, -np.inf, 1.0, -np.inf],  # some masked: those get 0
            [np.inf, 0.0, 1.0, 2.0],  # inf - inf: NaN
            [np.nan, 0.0, 1.0, 2.0],
            [5.0, 5.0, 5.0, 5.0],
            [-1e4, 0.0, 1e4, 80.0],  # exp underflows to 0 for all but one
        ]
    )
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_softmax_matches_the_composite_on_special_rows(torch, dtype):
    x = _special_rows(dtype)
    g = np.arange(x.size, dtype=dtype).reshape(x.shape) / 10
    tx = torch.tensor(x, requires_grad=True)
    ty = torch.nn.functional.softmax(tx, dim=-1)
    ty.backward(torch.tensor(g))
    mx = mg.tensor(x, requires_grad=True)
    my = F.softmax(mx, dim=-1)
    assert type(my.grad_fn).__name__ == "RowSoftmax"  # the fused path ran
    my.backward(mg.tensor(g))
    tol = dict(rtol=1e-6, atol=1e-7) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(my.numpy(), ty.detach().numpy(), equal_nan=True, **tol)
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), equal_nan=True, **tol)
    composite = mg.tensor(x).softmax(-1).numpy()
    np.testing.assert_allclose(my.numpy(), composite, equal_nan=True, **tol)


@pytest.mark.parametrize("dim", [-1, 2, 1, 0])
def test_f_softmax_matches_the_formula_in_any_layout_and_dim(rng, dim):
    # The last dim runs the fused kernel, the others Tensor.softmax: both must give
    # y = exp(x - max) / sum and dx = y (g - sum(g y)), here computed in float64 NumPy.
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    x[0, 1, :] = -30.0
    for source in (x, x.transpose(0, 2, 1)):  # contiguous, and a transposed view
        g = rng.standard_normal(source.shape).astype(np.float32)
        t = mg.tensor(source, requires_grad=True)
        y = F.softmax(t, dim=dim)
        fused = dim in (-1, 2)
        assert (type(y.grad_fn).__name__ == "RowSoftmax") == fused
        y.backward(mg.tensor(g))
        x64, g64 = source.astype(np.float64), g.astype(np.float64)
        e = np.exp(x64 - x64.max(dim, keepdims=True))
        expected = e / e.sum(dim, keepdims=True)
        grad = expected * (g64 - (g64 * expected).sum(dim, keepdims=True))
        np.testing.assert_allclose(y.numpy(), expected, rtol=2e-6, atol=1e-7)
        np.testing.assert_allclose(t.grad.numpy(), grad, rtol=1e-5, atol=1e-6)


def test_fused_softmax_backward_leaves_a_shared_gradient_alone(rng):
    # Add's backward hands the same array to both inputs: the first softmax backward must
    # not write over it before the second one reads it.
    x1, x2 = (mg.tensor(rng.standard_normal((4, 6)), requires_grad=True) for _ in range(2))
    g = rng.standard_normal((4, 6))
    (F.softmax(x1, -1) + F.softmax(x2, -1)).backward(mg.tensor(g))
    for x in (x1, x2):
        e = np.exp(x.detach().numpy() - x.detach().numpy().max(-1, keepdims=True))
        y = e / e.sum(-1, keepdims=True)
        expected = y * (g - (g * y).sum(-1, keepdims=True))  # dx = y (dy - sum dy y)
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12, atol=1e-14)

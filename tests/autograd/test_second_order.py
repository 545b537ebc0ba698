"""Second-order gradients: backward formulas written with Tensor operations can be
differentiated again (create_graph=True)."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import grad


def _leaf(shape, seed=0, low=None, high=None):
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
    return mg.tensor(data, requires_grad=True)


# name -> (function of the inputs, input factories)
COMPOSITES = {
    "tanh": (lambda x: (x.tanh() * x).sum(-1), [lambda: _leaf((2, 3))]),
    "sigmoid_exp": (lambda x: x.sigmoid() * x.exp(), [lambda: _leaf((4,))]),
    "softmax": (lambda x: x.softmax(-1) * x, [lambda: _leaf((2, 4))]),
    "log_softmax": (lambda x: x.log_softmax(0), [lambda: _leaf((3, 2))]),
    "logsumexp": (lambda x: x.logsumexp(1), [lambda: _leaf((3, 4))]),
    "matmul_chain": (
        lambda a, w1, w2: (a @ w1).tanh() @ w2,
        [lambda: _leaf((2, 3)), lambda: _leaf((3, 4), 1), lambda: _leaf((4, 2), 2)],
    ),
    "var": (
        lambda x: x.var(1, keepdim=True) * x.var(0, keepdim=True, correction=0),
        [lambda: _leaf((3, 4))],
    ),
    "std": (lambda x: x.std(-1), [lambda: _leaf((2, 4))]),
    "pow_tensor": (
        lambda a, b: a**b,
        [lambda: _leaf((3,), 0, 0.5, 2.0), lambda: _leaf((3,), 1)],
    ),
    "pow_scalar": (lambda x: x**3 + x**-1.5 + 2.0**x, [lambda: _leaf((3,), 0, 0.5, 2.0)]),
    "div_log_sqrt": (
        lambda a, b: (a / b).log() + b.sqrt() * a.rsqrt(),
        [lambda: _leaf((3,), 0, 0.5, 2.0), lambda: _leaf((3,), 1, 0.5, 2.0)],
    ),
    "broadcast_mul": (
        lambda a, b: (a * b).sin() * b,
        [lambda: _leaf((2, 3)), lambda: _leaf((3,), 1)],
    ),
    "mean_cat_index": (
        lambda a, b: mg.cat([a, b * b], 0)[np.array([0, 0, 3])].mean(0).cos(),
        [lambda: _leaf((2, 3)), lambda: _leaf((2, 3), 1)],
    ),
    "views": (
        lambda x: (x.permute(1, 0).reshape(-1).expand(2, 6) * x.flatten().exp()).sum(0),
        [lambda: _leaf((2, 3))],
    ),
    "masked_fill_amax_max": (
        lambda x: (
            (x * x).masked_fill(np.array([True, False, False]), 0.0).amax(1)
            + (x * x.mT.sum(1)).max(0).values
        ),
        [lambda: _leaf((3, 3))],
    ),
    "where_gather": (
        lambda x: mg.where(x > 0, x * x, x.exp()).gather(1, np.array([[0, 0], [2, 1]])),
        [lambda: _leaf((2, 3))],
    ),
}


@pytest.mark.parametrize("name", COMPOSITES)
def test_gradgradcheck(name):
    fn, makers = COMPOSITES[name]
    assert mg.gradgradcheck(fn, tuple(m() for m in makers))


def test_hessian_vector_product_matches_finite_differences_of_gradients():
    def f(x):
        return (x.tanh() * x).sum() + (x**3).sum() * 0.1 + x.logsumexp(0) + x.softmax(0)[1]

    rng = np.random.default_rng(3)
    x0 = rng.standard_normal(5)
    v = rng.standard_normal(5)

    def gradient(x_data, create_graph=False):
        x = mg.tensor(x_data, requires_grad=True)
        (g,) = grad(f(x), x, create_graph=create_graph)
        return x, g

    x, g = gradient(x0, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    (hv,) = grad((g * mg.tensor(v)).sum(), x)  # H v = d/dx <grad f(x), v>
    eps = 1e-6
    numerical = (gradient(x0 + eps * v)[1].numpy() - gradient(x0 - eps * v)[1].numpy()) / (2 * eps)
    np.testing.assert_allclose(hv.numpy(), numerical, rtol=1e-5, atol=1e-7)


def test_backward_create_graph_gives_a_differentiable_grad():
    x = _leaf((3,))
    (x**3).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None and x.grad.requires_grad
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.numpy() ** 2)
    g = x.grad
    x.grad = None
    g.sum().backward()  # d/dx sum(3 x^2) = 6 x
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.numpy())


def test_without_create_graph_the_gradient_has_no_grad_fn():
    x = _leaf((3,))
    (x**3).sum().backward()
    assert x.grad.grad_fn is None and not x.grad.requires_grad
    (g,) = grad((x**3).sum(), x)
    assert g.grad_fn is None and not g.requires_grad


def test_third_derivative():
    x = _leaf((3,))
    (g1,) = grad((x**4).sum(), x, create_graph=True)
    (g2,) = grad(g1.sum(), x, create_graph=True)
    (g3,) = grad(g2.sum(), x)
    np.testing.assert_allclose(g3.numpy(), 24 * x.numpy())


def test_gradient_penalty_reaches_the_parameters(torch):
    rng = np.random.default_rng(5)
    w_np, x_np = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))

    w = mg.tensor(w_np, requires_grad=True)
    x = mg.tensor(x_np, requires_grad=True)
    out = (x @ w).tanh().sum()
    (gx,) = grad(out, x, create_graph=True)
    ((gx * gx).sum() + out).backward()

    wt = torch.tensor(w_np, requires_grad=True)
    xt = torch.tensor(x_np, requires_grad=True)
    out_t = (xt @ wt).tanh().sum()
    (gxt,) = torch.autograd.grad(out_t, xt, create_graph=True)
    ((gxt * gxt).sum() + out_t).backward()
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-10)


def test_create_graph_keeps_the_graph_for_another_backward():
    x = _leaf((2,))
    y = (x.exp() * x).sum()
    y.backward(create_graph=True)
    y.backward(create_graph=True)  # retain_graph defaults to create_graph
    np.testing.assert_allclose(x.grad.numpy(), 2 * (np.exp(x.numpy()) * (1 + x.numpy())))


@pytest.mark.parametrize(
    "fn, slope",
    [
        (lambda t: t.relu(), [0, 0, 1, 1]),
        (lambda t: t.abs(), [-1, -1, 1, 1]),
        (lambda t: t.clamp(-1, 1), [0, 1, 1, 0]),
        (lambda t: t.maximum(mg.tensor(0.1)), [0, 0, 1, 1]),
    ],
    ids=["relu", "abs", "clamp", "maximum"],
)
def test_second_derivative_through_piecewise_linear_ops(fn, slope):
    # f = sum(fn(x) * x): f' = fn(x) + x fn'(x), f'' = 2 fn'(x) (fn'' = 0 off the kinks)
    x = mg.tensor(np.array([-1.5, -0.3, 0.4, 2.0]), requires_grad=True)
    (g,) = grad((fn(x) * x).sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x)
    np.testing.assert_array_equal(h.numpy(), 2.0 * np.array(slope, dtype=float))

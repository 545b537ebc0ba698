"""Every norm x implementation x option against finite differences (float64).

First derivatives for the whole case table; second derivatives (``create_graph=True``
through the fused and reference Functions falls back to a formula in Tensor ops) for
one case per norm, BatchNorm's eval mode and a norm without affine parameters.
"""

import numpy as np
import pytest
from norm_cases import CASES, IMPLS, SECOND_ORDER, inputs

import minigrad as mg


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_gradcheck(case, impl):
    assert mg.gradcheck(case.mg_fn(impl), inputs(case, np.float64))


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("case", SECOND_ORDER, ids=repr)
def test_gradgradcheck(case, impl):
    assert mg.gradgradcheck(case.mg_fn(impl), inputs(case, np.float64))


@pytest.mark.parametrize("impl", ["fused", "reference"])
def test_create_graph_gives_the_same_first_derivative(impl):
    """The Tensor-op fallback used under create_graph computes what the kernel computes."""
    case = CASES[1]
    xs = inputs(case, np.float64)
    dy = mg.tensor(np.random.default_rng(3).standard_normal(case.shapes[0]))
    plain = mg.autograd.grad(case.mg_fn(impl)(*xs), xs, dy)
    graph = mg.autograd.grad(case.mg_fn(impl)(*xs), xs, dy, create_graph=True)
    assert plain[0].grad_fn is None and graph[0].grad_fn is not None  # dx is differentiable
    for a, b in zip(plain, graph):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-13)


def test_second_derivative_matches_composite_path():
    """d/dx of sum(dL/dx ** 2) through the fused Function equals autograd's own."""
    x = mg.tensor(np.random.default_rng(1).standard_normal((3, 6)), requires_grad=True)
    w = mg.tensor(np.linspace(0.5, 1.5, 6), requires_grad=True)
    results = []
    for impl in ("fused", "composite"):
        y = mg.nn.functional.layer_norm(x, 6, w, impl=impl)
        (gx,) = mg.autograd.grad((y * y * y).sum(), [x], create_graph=True)
        results.append(mg.autograd.grad((gx * gx).sum(), [x, w]))
    for a, b in zip(*results):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)

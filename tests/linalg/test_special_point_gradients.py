"""Gradients at the points where the textbook formula breaks down, in PyTorch's
convention (or, where PyTorch's is not the derivative, the derivative, checked by finite
differences)."""

import math

import numpy as np
import pytest

import minigrad as mg

ORDERS = [0, 0.5, 1, 1.5, 2, 3, math.inf, -math.inf, -1, -2.5]


@pytest.mark.parametrize("ord", ORDERS)
def test_vector_norm_at_zero_has_a_finite_gradient_for_every_order(ord):
    x = mg.zeros(5, dtype=mg.float64, requires_grad=True)
    mg.linalg.vector_norm(x, ord).backward()
    assert x.grad.tolist() == [0.0] * 5  # PyTorch's subgradient 0 (NaN before, but for 2)


@pytest.mark.parametrize("ord", ORDERS)
def test_vector_norm_with_zero_elements(ord):
    """Some elements 0, the norm not: p < 1 would divide by 0 there (PyTorch: 0)."""
    x = mg.tensor([0.0, -2.0, 0.0, 3.0], dtype=mg.float64, requires_grad=True)
    mg.linalg.vector_norm(x, ord).backward()
    assert np.isfinite(x.grad.numpy()).all()
    assert x.grad.numpy()[[0, 2]].tolist() == [0.0, 0.0] or ord in (0.5, -1, -2.5, -math.inf)


@pytest.mark.parametrize("ord", ORDERS)
def test_vector_norms_match_pytorch_at_and_away_from_zero(torch, ord):
    for values in ([0.0] * 4, [0.0, -2.0, 0.0, 3.0], [1.5, -2.0, 0.5, 3.0], [2.0, -2.0, 1.0, 0.5]):
        grads = []
        for lib in (mg, torch):
            x = lib.tensor(np.array(values), requires_grad=True)
            y = lib.linalg.vector_norm(x, ord)
            y.backward()
            grad = np.zeros(4) if x.grad is None else x.grad.numpy()  # PyTorch: None for 0
            grads.append((float(y), grad))
        assert grads[0][0] == pytest.approx(grads[1][0], rel=1e-12)
        np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12, atol=1e-15)


def test_the_matrix_2_norm_shares_its_gradient_among_tied_singular_values():
    a = mg.tensor(2.0 * np.eye(3), requires_grad=True)  # singular values 2, 2, 2
    mg.linalg.matrix_norm(a, 2).backward()
    np.testing.assert_allclose(a.grad.numpy(), np.eye(3) / 3, atol=1e-15)


def test_empty_matrices_have_norm_zero_for_the_largest_orders():
    for ord in ("fro", "nuc", 1, 2, math.inf):
        assert mg.linalg.matrix_norm(mg.zeros(0, 5), ord).item() == 0.0
    with pytest.raises(RuntimeError):
        mg.linalg.matrix_norm(mg.zeros(0, 0), -2)


@pytest.mark.parametrize(
    "matrix, cofactors",
    [
        ([[1.0, 2.0], [2.0, 4.0]], [[4.0, -2.0], [-2.0, 1.0]]),
        # rank 2: only the cofactors of a 2x2 minor that is not singular survive
        (
            [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
            [[4.0, 4.0, -4.0], [-2.0, -2.0, 2.0], [0.0, 0.0, 0.0]],
        ),
        (np.zeros((3, 3)), np.zeros((3, 3))),
    ],
)
def test_det_of_a_singular_matrix_has_the_cofactor_gradient(matrix, cofactors):
    """d det(A) / dA is the cofactor matrix, which exists for singular A too (the
    gradient raised, needing A^-1)."""
    a = mg.tensor(np.array(matrix), requires_grad=True)
    d = mg.linalg.det(a)
    assert d.item() == pytest.approx(0.0, abs=1e-12)
    d.backward()
    np.testing.assert_allclose(a.grad.numpy(), cofactors, atol=1e-12)


def test_det_of_a_numerically_singular_matrix_matches_pytorch(torch):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 2)) @ rng.standard_normal((2, 3))  # rank 2, det ~ 1e-17
    grads = []
    for lib in (mg, torch):
        t = lib.tensor(a, requires_grad=True)
        lib.linalg.det(t).backward()
        grads.append(t.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-12)


def test_quantile_is_differentiable_in_q():
    x = mg.tensor([0.0, 1.0, 2.0, 10.0], dtype=mg.float64)
    q = mg.tensor(0.4, dtype=mg.float64, requires_grad=True)  # rank 1.2: between 1 and 2
    y = mg.quantile(x, q)
    assert y.item() == pytest.approx(1.2)
    y.backward()
    assert q.grad.item() == pytest.approx((2.0 - 1.0) * 3)  # (v_hi - v_lo) (n - 1)
    q = mg.tensor([0.1, 0.9], dtype=mg.float64, requires_grad=True)
    mg.nanquantile(mg.tensor([1.0, float("nan"), 3.0, 7.0], dtype=mg.float64), q).sum().backward()
    assert q.grad.tolist() == pytest.approx([2.0 * 2, 4.0 * 2])


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse_gradients_are_pytorchs(torch, upper):
    rng = np.random.default_rng(1)
    f = np.tril(rng.standard_normal((4, 4))) + 3 * np.eye(4)
    f = f.T if upper else f
    b = rng.standard_normal((4, 2))
    results = []
    for lib in (mg, torch):
        ft, bt = lib.tensor(f, requires_grad=True), lib.tensor(b, requires_grad=True)
        (
            lib.cholesky_solve(bt, ft, upper=upper).sum()
            + lib.cholesky_inverse(ft, upper=upper).sum()
        ).backward()
        results.append((ft.grad.numpy(), bt.grad.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_as_strided_scatter_gradient_is_the_derivative():
    """The input's gradient is g where src did not overwrite it (PyTorch 2.13 gives the
    opposite: g at the overwritten positions, 0 elsewhere, which fails gradcheck)."""
    x = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64, requires_grad=True)
    s = mg.tensor([9.0], dtype=mg.float64, requires_grad=True)
    mg.as_strided_scatter(x, s, (1,), (1,), 0).backward(mg.tensor([10.0, 20.0, 30.0]))
    assert x.grad.tolist() == [0.0, 20.0, 30.0] and s.grad.tolist() == [10.0]
    assert mg.gradcheck(lambda a, b: mg.as_strided_scatter(a, b, (2, 2), (1, 2), 1),
                        (mg.tensor(np.arange(9.0).reshape(3, 3), requires_grad=True),
                         mg.tensor(np.ones((2, 2)), requires_grad=True)))  # fmt: skip


def test_the_sign_of_slogdet_and_an_empty_householder_product_stay_in_the_graph():
    a = mg.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=mg.float64, requires_grad=True)
    sign, logabsdet = mg.linalg.slogdet(a)
    assert sign.requires_grad and logabsdet.requires_grad
    (sign + logabsdet).backward()
    np.testing.assert_allclose(a.grad.numpy(), np.linalg.inv(a.numpy()).T)
    h = mg.linalg.householder_product(a, mg.zeros(0, dtype=mg.float64))
    assert h.tolist() == [[1.0, 0.0], [0.0, 1.0]] and h.requires_grad


def test_det_at_a_singular_matrix_is_differentiable_twice():
    """The cofactor gradient at det A = 0 stays in the graph: the second derivative
    (the Hessian of det) is the one finite differences give, not dropped."""
    from minigrad.gradcheck import gradgradcheck

    singular = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 5.0]]
    a = mg.tensor([singular, np.eye(3) * 2.0], dtype=mg.float64, requires_grad=True)
    assert gradgradcheck(mg.linalg.det, (a,))
    (g,) = mg.autograd.grad(mg.linalg.det(a[0]), a, create_graph=True)
    assert g.requires_grad

"""minigrad/surface/linalg_names.py: what the OpInfo table does not reach (lobpcg's pairs and
their gradient, the torch-level spellings' argument orders)."""

import numpy as np
import pytest

import minigrad as mg


def _spd(rng, n, shift=0.0):
    a = rng.standard_normal((n, n))
    return a @ a.T + shift * np.eye(n)


@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_matches_pytorch(largest, torch, rng):
    a, b = _spd(rng, 12), _spd(rng, 12, 12.0)
    for B in (None, b):
        x = mg.tensor(a, requires_grad=True)
        t = torch.tensor(a, requires_grad=True)
        mB = None if B is None else mg.tensor(B)
        tB = None if B is None else torch.tensor(B)
        E, X = mg.lobpcg(x, k=2, B=mB, largest=largest)
        Et, Xt = torch.lobpcg(t, k=2, B=tB, largest=largest)
        np.testing.assert_allclose(E.numpy(), Et.detach().numpy(), rtol=1e-6)
        np.testing.assert_allclose(np.abs(X.numpy()), np.abs(Xt.detach().numpy()), atol=1e-5)
        if B is None:  # PyTorch differentiates lobpcg for B = I only
            E.sum().backward()
            Et.sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-6)


def test_lobpcg_refuses_too_many_pairs():
    with pytest.raises(ValueError, match="smaller than 3 x"):
        mg.lobpcg(mg.eye(5), k=2)


def test_lobpcg_gradcheck(rng):
    a = rng.standard_normal((6, 6))
    b = _spd(rng, 6, 6.0)

    def fn(x, y):
        E, X = mg.lobpcg(x + x.mT, k=2, B=y @ y.mT + mg.eye(6, dtype=mg.float64))
        return E.sum() + (X * X).sum()  # (X * X) does not depend on the vectors' signs

    assert mg.gradcheck(fn, [mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)])


def test_torch_level_argument_orders(rng):
    a = _spd(rng, 3, 1.0)
    b = rng.standard_normal((3, 2))
    L = np.linalg.cholesky(a)
    x = mg.cholesky_solve(mg.tensor(b), mg.tensor(L))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b))
    np.testing.assert_allclose(mg.cholesky_inverse(mg.tensor(L)).numpy(), np.linalg.inv(a))
    X, A = mg.triangular_solve(mg.tensor(b), mg.tensor(L.T))
    np.testing.assert_allclose(X.numpy(), np.linalg.solve(L.T, b))
    np.testing.assert_array_equal(A.numpy(), L.T)
    LU, pivots = mg.tensor(a).lu()
    np.testing.assert_allclose(mg.tensor(b).lu_solve(LU, pivots).numpy(), np.linalg.solve(a, b))
    U, S, V = mg.svd(mg.tensor(b))
    np.testing.assert_allclose((U * S @ V.mT).numpy(), b)

"""minigrad/linalg/lu.py and householder.py: the factorizations written on NumPy give
LAPACK's compact forms (PyTorch's LU, pivots, geqrf results), and rebuild their input."""

import numpy as np
import pytest

import minigrad as mg

SHAPES = [(4, 4), (3, 5, 5), (5, 3), (2, 3, 5), (0, 3, 3), (1, 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_lu_rebuilds_its_input(shape, rng):
    a = rng.standard_normal(shape)
    P, L, U = mg.linalg.lu(mg.tensor(a))
    np.testing.assert_allclose((P @ L @ U).numpy(), a, atol=1e-12)
    np.testing.assert_allclose(np.tril(L.numpy()), L.numpy())
    np.testing.assert_allclose(np.triu(U.numpy()), U.numpy())
    assert np.all(np.abs(np.tril(L.numpy(), -1)) <= 1)  # partial pivoting


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_lu_factor_matches_pytorch(shape, torch, rng):
    a = rng.standard_normal(shape)
    LU, pivots, info = mg.linalg.lu_factor_ex(mg.tensor(a))
    ref = torch.linalg.lu_factor_ex(torch.tensor(a))
    np.testing.assert_array_equal(pivots.numpy(), ref.pivots.numpy())
    assert pivots.dtype == np.int32 and info.dtype == np.int32
    np.testing.assert_allclose(LU.numpy(), ref.LU.numpy(), atol=1e-12)
    for mine, other in zip(mg.lu_unpack(LU, pivots), torch.lu_unpack(ref.LU, ref.pivots)):
        np.testing.assert_allclose(mine.numpy(), other.numpy(), atol=1e-12)


def test_singular_matrices(torch):
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]]])
    _, _, info = mg.linalg.lu_factor_ex(mg.tensor(a))
    np.testing.assert_array_equal(info.numpy(), torch.linalg.lu_factor_ex(torch.tensor(a)).info)
    with pytest.raises(mg.linalg.LinAlgError):
        mg.linalg.lu_factor(mg.tensor(a))
    with pytest.raises(RuntimeError):
        torch.linalg.lu_factor(torch.tensor(a))
    P, L, U = mg.linalg.lu(mg.tensor(a))  # factored all the same
    np.testing.assert_allclose((P @ L @ U).numpy(), a)


def test_lu_without_pivoting_is_refused():
    with pytest.raises(RuntimeError, match="without pivoting"):
        mg.linalg.lu_factor(mg.eye(2), pivot=False)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 2)], ids=str)
def test_geqrf_matches_pytorch_and_gives_q(shape, torch, rng):
    a = rng.standard_normal(shape)
    ours, theirs = mg.geqrf(mg.tensor(a)), torch.geqrf(torch.tensor(a))
    np.testing.assert_allclose(ours.a.numpy(), theirs.a.numpy(), atol=1e-12)
    np.testing.assert_allclose(ours.tau.numpy(), theirs.tau.numpy(), atol=1e-12)
    Q = mg.linalg.householder_product(*ours)
    np.testing.assert_allclose(Q.numpy(), np.linalg.qr(a)[0], atol=1e-12)


def test_geqrf_leaves_a_zero_column_alone():
    a, tau = mg.geqrf(mg.tensor([[1.0, 2.0], [0.0, 3.0]]))
    assert tau.tolist()[0] == 0.0
    np.testing.assert_allclose(a.numpy()[:, 0], [1.0, 0.0])


def _symmetric_indefinite(rng, shape):
    a = rng.standard_normal(shape)
    return a + a.swapaxes(-1, -2)


LDL_CASES = [
    np.array([[0.1, 1.0, 2.0], [1.0, -3.0, 0.5], [2.0, 0.5, 5.0]]),  # 1 x 1 interchanges
    np.array([[0.0, 1.0], [1.0, 0.0]]),  # a 2 x 2 block
    np.array(
        [[1e-3, 2.0, 0.1, 0.0], [2.0, 1e-3, 0.3, 1.0], [0.1, 0.3, 4.0, 0.2], [0.0, 1.0, 0.2, -1.0]]
    ),
]


@pytest.mark.parametrize("case", range(len(LDL_CASES) + 2))
def test_ldl_factor_and_solve_match_pytorch(case, torch, rng):
    if case < len(LDL_CASES):
        a = LDL_CASES[case]
    else:
        a = _symmetric_indefinite(rng, (3, 5, 5) if case == len(LDL_CASES) else (6, 6))
    ours = mg.linalg.ldl_factor_ex(mg.tensor(a))
    theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), atol=1e-12)
    b = rng.standard_normal(a.shape[:-1] + (2,))
    x = mg.linalg.ldl_solve(ours.LD, ours.pivots, mg.tensor(b))
    np.testing.assert_allclose(a @ x.numpy(), b, atol=1e-10)
    ref = torch.linalg.ldl_solve(theirs.LD, theirs.pivots, torch.tensor(b))
    np.testing.assert_allclose(x.numpy(), ref.numpy(), atol=1e-10)


def test_ldl_solves_without_pytorch(rng):
    a = _symmetric_indefinite(rng, (4, 6, 6))
    b = rng.standard_normal((4, 6, 3))
    LD, pivots = mg.linalg.ldl_factor(mg.tensor(a))
    assert (pivots.numpy() < 0).any() or (pivots.numpy() > 0).all()
    x = mg.linalg.ldl_solve(LD, pivots, mg.tensor(b))
    np.testing.assert_allclose(a @ x.numpy(), b, atol=1e-10)
    with pytest.raises(NotImplementedError, match="derivative"):
        mg.linalg.ldl_factor(mg.tensor(a, requires_grad=True))
    with pytest.raises(mg.linalg.LinAlgError):
        mg.linalg.ldl_factor(mg.zeros(3, 3))

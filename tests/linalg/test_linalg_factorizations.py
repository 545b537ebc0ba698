"""minigrad/linalg/decompositions.py and solvers.py: results rebuild their input, the
named tuples read both ways, and what the OpInfo table cannot show (rank cut-offs,
lstsq's extra results, gradients at repeated eigenvalues) matches PyTorch.

Values and gradients of every function against PyTorch and finite differences are in
the OpInfo table (tests/functions/opinfo.py, ``LINALG``)."""

import numpy as np
import pytest

import minigrad as mg


def _t(a):
    return mg.tensor(np.asarray(a, dtype=np.float64))


@pytest.fixture
def A(rng):
    return rng.standard_normal((2, 4, 3))


def test_factors_rebuild_their_input(A, rng):
    x = _t(A)
    Q, R = mg.linalg.qr(x)
    np.testing.assert_allclose((Q @ R).numpy(), A, atol=1e-12)
    np.testing.assert_allclose(np.triu(R.numpy()), R.numpy())
    U, S, Vh = mg.linalg.svd(x, full_matrices=False)
    np.testing.assert_allclose((U * S.unsqueeze(-2) @ Vh).numpy(), A, atol=1e-12)
    assert mg.linalg.svd(x).U.shape == (2, 4, 4) and mg.linalg.svd(x).Vh.shape == (2, 3, 3)
    spd = A.swapaxes(-1, -2) @ A + np.eye(3)
    L = mg.linalg.cholesky(_t(spd))
    np.testing.assert_allclose((L @ L.mT).numpy(), spd, atol=1e-12)
    values, vectors = mg.linalg.eigh(_t(spd))
    np.testing.assert_allclose((vectors * values.unsqueeze(-2) @ vectors.mT).numpy(), spd)
    assert np.all(np.diff(values.numpy(), axis=-1) >= 0)  # ascending


def test_named_tuples_read_by_name_and_by_position(A):
    x = _t(A)
    eig = mg.linalg.eigh(x @ x.mT)
    assert type(eig).__name__ == "linalg_eigh"
    assert eig.eigenvalues is eig[0] and eig.eigenvectors is eig[1]
    assert mg.linalg.svd(x)._fields == ("U", "S", "Vh")
    assert mg.linalg.qr(x)._fields == ("Q", "R")
    assert mg.svd(x)._fields == ("U", "S", "V")
    assert mg.linalg.lstsq(x, x)._fields == ("solution", "residuals", "rank", "singular_values")
    assert mg.linalg.lu(x)._fields == ("P", "L", "U")
    assert mg.linalg.cholesky_ex(x.mT @ x)._fields == ("L", "info")
    assert mg.linalg.slogdet(x[0, :3])._fields == ("sign", "logabsdet")


def test_qr_mode_r_gives_r_only_and_no_gradient(A):
    x = _t(A).requires_grad_()
    Q, R = mg.linalg.qr(x, mode="r")
    assert Q.shape == (0,)
    np.testing.assert_allclose(np.abs(R.numpy()), np.abs(mg.linalg.qr(x).R.numpy()))
    with pytest.raises(RuntimeError, match="mode='r'"):
        R.sum().backward()


def test_qr_complete_of_a_tall_matrix_has_no_gradient(A):
    x = _t(A).requires_grad_()
    Q, R = mg.linalg.qr(x, mode="complete")
    assert Q.shape == (2, 4, 4) and R.shape == (2, 4, 3)
    with pytest.raises(RuntimeError, match="not differentiable"):
        Q.sum().backward()


def test_eigenvalue_and_singular_value_gradients_are_finite_at_repeated_values():
    x = mg.eye(3, dtype=mg.float64).requires_grad_()
    mg.linalg.eigvalsh(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.eye(3))  # d tr(A) / dA = I
    x.grad = None
    mg.linalg.svdvals(x).sum().backward()  # the nuclear norm of I
    np.testing.assert_allclose(x.grad.numpy(), np.eye(3))


def test_matrix_exp_of_known_matrices():
    np.testing.assert_allclose(
        mg.linalg.matrix_exp(_t(np.diag([0.0, 1.0, -2.0]))).numpy(),
        np.diag(np.exp([0.0, 1.0, -2.0])),
    )
    rotation = mg.linalg.matrix_exp(_t([[0.0, -30.0], [30.0, 0.0]])).numpy()  # s > 0
    np.testing.assert_allclose(
        rotation, [[np.cos(30), -np.sin(30)], [np.sin(30), np.cos(30)]], atol=1e-10
    )
    assert mg.matrix_exp(mg.zeros(2, 0, 0)).shape == (2, 0, 0)


def test_matrix_rank_pinv_and_lstsq_match_pytorch(torch, rng):
    B = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))  # rank 2
    batch = np.stack([B, rng.standard_normal((5, 4))])
    for a in (batch, batch.astype(np.float32)):
        x, t = mg.tensor(a), torch.tensor(a)
        for kw in ({}, {"atol": 1.0}, {"rtol": 0.5}, {"atol": 0.1, "rtol": 0.2}):
            np.testing.assert_array_equal(
                mg.linalg.matrix_rank(x, **kw).numpy(), torch.linalg.matrix_rank(t, **kw).numpy()
            )
            np.testing.assert_allclose(
                mg.linalg.pinv(x, **kw).numpy(),
                torch.linalg.pinv(t, **kw).numpy(),
                rtol=1e-4,
                atol=1e-5,
            )
        sym = a @ a.swapaxes(-1, -2)
        np.testing.assert_array_equal(
            mg.linalg.matrix_rank(mg.tensor(sym), hermitian=True).numpy(),
            torch.linalg.matrix_rank(torch.tensor(sym), hermitian=True).numpy(),
        )
    a, b = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2))
    for driver in (None, "gelsy", "gelsd", "gelss", "gels"):
        ours = mg.linalg.lstsq(mg.tensor(a), mg.tensor(b), driver=driver)
        theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
        for mine, other in zip(ours, theirs):
            assert mine.shape == tuple(other.shape), driver
            assert str(mine.dtype) == str(other.dtype).replace("torch.", "")
            np.testing.assert_allclose(mine.numpy(), other.numpy(), rtol=1e-8, atol=1e-10)


def test_cholesky_ex_reports_the_failing_minor(torch):
    a = np.array([[[4.0, 2.0], [2.0, 5.0]], [[1.0, 2.0], [2.0, 1.0]]])
    L, info = mg.linalg.cholesky_ex(mg.tensor(a))
    np.testing.assert_array_equal(info.numpy(), torch.linalg.cholesky_ex(torch.tensor(a)).info)
    assert info.dtype == np.int32
    np.testing.assert_allclose(L[0].numpy(), np.linalg.cholesky(a[0]))
    with pytest.raises(mg.linalg.LinAlgError, match=r"Batch element 1.*order 2"):
        mg.linalg.cholesky(mg.tensor(a))


def test_inv_ex_and_solve_ex_report_singular_matrices(torch):
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]]])
    b = np.ones((2, 2, 1))
    inverse, info = mg.linalg.inv_ex(mg.tensor(a))
    assert info.tolist() == torch.linalg.inv_ex(torch.tensor(a)).info.tolist()
    np.testing.assert_allclose(inverse[1].numpy(), np.linalg.inv(a[1]))
    result, info = mg.linalg.solve_ex(mg.tensor(a), mg.tensor(b))
    assert info.tolist() == torch.linalg.solve_ex(torch.tensor(a), torch.tensor(b)).info.tolist()
    np.testing.assert_allclose(result[1].numpy(), np.linalg.solve(a[1], b[1]))
    with pytest.raises(mg.linalg.LinAlgError):
        mg.linalg.inv_ex(mg.tensor(a), check_errors=True)


def test_svd_lowrank_and_pca_lowrank_recover_a_low_rank_matrix(rng):
    a = rng.standard_normal((20, 3)) @ rng.standard_normal((3, 8))
    U, S, V = mg.svd_lowrank(mg.tensor(a), q=4)
    assert U.shape == (20, 4) and S.shape == (4,) and V.shape == (8, 4)
    np.testing.assert_allclose((U * S @ V.mT).numpy(), a, atol=1e-8)
    np.testing.assert_allclose(S.numpy()[:3], np.linalg.svd(a, compute_uv=False)[:3])
    U, S, V = mg.pca_lowrank(mg.tensor(a), q=3)
    centered = a - a.mean(0)
    np.testing.assert_allclose((U * S @ V.mT).numpy(), centered, atol=1e-8)


def test_torch_svd_without_uv_gives_zeros(torch, rng):
    a = rng.standard_normal((4, 3))
    ours, theirs = (
        mg.svd(mg.tensor(a), compute_uv=False),
        torch.svd(torch.tensor(a), compute_uv=False),
    )
    for mine, other in zip(ours, theirs):
        assert mine.shape == tuple(other.shape)
        np.testing.assert_allclose(mine.numpy(), other.numpy())


SYMMETRIC_INPUT = {  # functions that read one triangle: the leaf gradient is PyTorch's too
    "cholesky": lambda lib, x: lib.linalg.cholesky(x),
    "cholesky-upper": lambda lib, x: lib.linalg.cholesky(x, upper=True),
    "eigvalsh": lambda lib, x: lib.linalg.eigvalsh(x),
    "eigh-L": lambda lib, x: lib.linalg.eigh(x)[1].abs(),
    "eigh-U": lambda lib, x: lib.linalg.eigh(x, "U")[1].abs(),
    "pinv-hermitian": lambda lib, x: lib.linalg.pinv(x, hermitian=True),
}


@pytest.mark.parametrize("name", SYMMETRIC_INPUT)
def test_gradients_on_a_symmetric_leaf_match_pytorch(name, torch, rng):
    """The OpInfo entries reach these through x + x^T (the symmetric part of the
    gradient); here A itself is the leaf, so the whole gradient is compared."""
    a = rng.standard_normal((4, 4))
    spd = a @ a.T + np.eye(4)
    fn = SYMMETRIC_INPUT[name]
    x, t = mg.tensor(spd, requires_grad=True), torch.tensor(spd, requires_grad=True)
    y, yt = fn(mg, x), fn(torch, t)
    g = rng.standard_normal(y.shape)
    y.backward(mg.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-10)

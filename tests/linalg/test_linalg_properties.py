"""Properties of the factorizations written on NumPy (LU, LDL^T, geqrf), on matrices
chosen to hit their branches: small integers (ties between pivot candidates), zero
columns and rows (zero pivots, reflectors with tau = 0), rectangular shapes."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg

SHAPES = st.tuples(st.integers(1, 5), st.integers(1, 5))
ENTRIES = st.integers(-2, 2).map(float)  # ties and exact zeros are common


def matrices(shapes=SHAPES):
    return shapes.flatmap(lambda s: hnp.arrays(np.float64, s, elements=ENTRIES))


@settings(max_examples=60, deadline=None)
@given(matrices())
def test_lu_rebuilds_any_matrix_with_bounded_multipliers(a):
    P, L, U = mg.linalg.lu(mg.tensor(a))
    np.testing.assert_allclose((P @ L @ U).numpy(), a, atol=1e-12)
    assert np.all(np.abs(np.tril(L.numpy(), -1)) <= 1 + 1e-12)
    perm = P.numpy()
    assert np.array_equal(perm @ perm.T, np.eye(a.shape[0]))  # a permutation
    _, _, info = mg.linalg.lu_factor_ex(mg.tensor(a))
    diagonal = np.diagonal(U.numpy())
    expected = int(np.flatnonzero(diagonal == 0)[0]) + 1 if (diagonal == 0).any() else 0
    assert int(info) == expected


@settings(max_examples=60, deadline=None)
@given(matrices())
def test_geqrf_gives_an_orthogonal_q_and_r(a):
    m, n = a.shape
    if m < n:
        a = a.T
    compact, tau = mg.geqrf(mg.tensor(a))
    Q = mg.linalg.householder_product(compact, tau).numpy()
    R = np.triu(compact.numpy())[: a.shape[1]]
    np.testing.assert_allclose(Q.T @ Q, np.eye(a.shape[1]), atol=1e-12)
    np.testing.assert_allclose(Q @ R, a, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(matrices(st.integers(1, 6).map(lambda n: (n, n))))
def test_ldl_solves_every_nonsingular_symmetric_matrix(a):
    sym = a + a.T
    LD, pivots, info = mg.linalg.ldl_factor_ex(mg.tensor(sym))
    if int(info) or abs(np.linalg.det(sym)) < 1e-9:
        return
    b = np.arange(sym.shape[0] * 2, dtype=np.float64).reshape(-1, 2)
    x = mg.linalg.ldl_solve(LD, pivots, mg.tensor(b)).numpy()
    np.testing.assert_allclose(sym @ x, b, atol=1e-8 * max(1.0, np.abs(x).max()))

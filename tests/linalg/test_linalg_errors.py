"""Bad input to mg.linalg raises PyTorch's exception classes with a clear message, and
``solve`` broadcasts a vector right-hand side the same way on every NumPy version."""

import numpy as np
import pytest

import minigrad as mg

SQUARE_ONLY = ["cholesky", "inv", "det", "eigh", "eigvalsh", "matrix_exp", "inv_ex", "cholesky_ex"]
MATRIX = ["qr", "svd", "svdvals", "pinv", "matrix_rank", "lu", "lu_factor", "cond"]


@pytest.mark.parametrize("name", SQUARE_ONLY)
def test_non_square_matrices_raise_runtime_error(name, torch):
    with pytest.raises(RuntimeError, match="square"):
        getattr(mg.linalg, name)(mg.ones(2, 3))
    with pytest.raises(RuntimeError):
        getattr(torch.linalg, name)(torch.ones(2, 3))


@pytest.mark.parametrize("name", SQUARE_ONLY + MATRIX)
def test_integer_input_raises_runtime_error(name, torch):
    with pytest.raises(RuntimeError, match="floating point"):
        getattr(mg.linalg, name)(mg.ones(3, 3, dtype=mg.int64))
    with pytest.raises(TypeError):  # what minigrad raised before
        getattr(mg.linalg, name)(mg.ones(3, 3, dtype=mg.int64))
    with pytest.raises(RuntimeError):
        getattr(torch.linalg, name)(torch.ones(3, 3, dtype=torch.int64))


@pytest.mark.parametrize("name", SQUARE_ONLY + MATRIX)
def test_vectors_raise_runtime_error(name):
    with pytest.raises(RuntimeError):
        getattr(mg.linalg, name)(mg.ones(3))


@pytest.mark.parametrize("b_dtype", ["float64", "int64"])
def test_solvers_do_not_promote_dtypes(b_dtype, torch):
    with pytest.raises(RuntimeError, match="same dtype.*Float and B of type"):
        mg.linalg.solve(mg.eye(2), mg.ones(2, dtype=getattr(mg, b_dtype)))
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.linalg.solve(torch.eye(2), torch.ones(2, dtype=getattr(torch, b_dtype)))
    with pytest.raises(RuntimeError, match="same dtype|floating point"):
        mg.linalg.solve_triangular(mg.eye(2), mg.ones(2, 1, dtype=getattr(mg, b_dtype)), upper=True)


def test_singular_and_indefinite_matrices_raise_linalg_error():
    assert issubclass(mg.linalg.LinAlgError, RuntimeError)
    singular = mg.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(mg.linalg.LinAlgError):
        mg.linalg.inv(singular)
    with pytest.raises(mg.linalg.LinAlgError):
        mg.linalg.solve(singular, mg.ones(2))
    with pytest.raises(mg.linalg.LinAlgError, match="not positive-definite"):
        mg.linalg.cholesky(mg.tensor([[1.0, 2.0], [2.0, 1.0]]))


SOLVE_SHAPES = [
    ((3, 3), (3,)),
    ((2, 3, 3), (3,)),
    ((2, 3, 3), (2, 3)),
    ((2, 3, 3), (3, 2)),
    ((3, 3), (2, 3, 1)),
    ((4, 2, 3, 3), (2, 3, 1)),
    ((1, 3, 3), (4, 3, 2)),
]


@pytest.mark.parametrize(("a_shape", "b_shape"), SOLVE_SHAPES, ids=str)
def test_solve_shapes_match_pytorch(a_shape, b_shape, torch, rng):
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    x = mg.linalg.solve(mg.tensor(a), mg.tensor(b))
    ref = torch.linalg.solve(torch.tensor(a), torch.tensor(b))
    assert x.shape == tuple(ref.shape)
    np.testing.assert_allclose(x.numpy(), ref.numpy(), rtol=1e-10)


@pytest.mark.parametrize(("a_shape", "b_shape"), [((4, 2, 3, 3), (2, 3)), ((3, 3), (2,))])
def test_solve_shape_errors_are_runtime_errors(a_shape, b_shape, torch):
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        mg.linalg.solve(mg.ones(*a_shape), mg.ones(*b_shape))
    with pytest.raises(RuntimeError):
        torch.linalg.solve(torch.ones(*a_shape), torch.ones(*b_shape))


def test_solve_of_a_vector_without_pytorch(rng):
    a, b = rng.standard_normal((2, 3, 3)), rng.standard_normal(3)
    x = mg.linalg.solve(mg.tensor(a), mg.tensor(b))
    assert x.shape == (2, 3)
    np.testing.assert_allclose(np.einsum("bij,bj->bi", a, x.numpy()), np.broadcast_to(b, (2, 3)))


def test_solve_arrays_never_hands_numpy_a_stack_of_vectors():
    """NumPy 1.x reads a ``b`` with one dim fewer than ``a`` as a stack of vectors; the
    helper broadcasts the batch dims first, so b is always a stack of matrices."""
    from minigrad.functions.linalg import solve_arrays

    a = np.eye(3)[None].repeat(2, 0) * 2.0
    b = np.ones((3, 1))  # ndim == a.ndim - 1
    np.testing.assert_allclose(solve_arrays(a, b), np.full((2, 3, 1), 0.5))

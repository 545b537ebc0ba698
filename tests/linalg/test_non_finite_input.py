"""Linear algebra on NaN input: LAPACK's failure to converge reaches the user as
``mg.linalg.LinAlgError`` with PyTorch's message, never as NumPy's exception, and the
factorizations that stop at a NaN pivot in PyTorch stop in minigrad too."""

import math

import numpy as np
import pytest

import minigrad as mg

A = [[1.0, 2.0], [math.nan, 4.0]]

SVD_BASED = {
    "svd": lambda a: mg.linalg.svd(a),
    "svdvals": lambda a: mg.linalg.svdvals(a),
    "torch.svd": lambda a: mg.svd(a),
    "pinv": lambda a: mg.linalg.pinv(a),
    "matrix_rank": lambda a: mg.linalg.matrix_rank(a),
    "cond": lambda a: mg.linalg.cond(a),
    "matrix_norm 2": lambda a: mg.linalg.matrix_norm(a, 2),
    "matrix_norm nuc": lambda a: mg.linalg.matrix_norm(a, "nuc"),
    "norm 2": lambda a: mg.linalg.norm(a, 2),
    "lstsq": lambda a: mg.linalg.lstsq(a, a),
}


@pytest.mark.parametrize("name", SVD_BASED)
def test_svd_of_a_nan_matrix_raises_linalg_error(name):
    with pytest.raises(mg.linalg.LinAlgError, match="contained non-finite values"):
        SVD_BASED[name](mg.tensor(A, dtype=mg.float64))


def test_linalg_error_is_a_runtime_error_and_not_numpys():
    with pytest.raises(RuntimeError) as info:
        mg.linalg.svdvals(mg.tensor(A))
    assert not isinstance(info.value, np.linalg.LinAlgError)


def test_svd_of_an_infinite_matrix_gives_nans_as_pytorch():
    s = mg.linalg.svdvals(mg.tensor([[1.0, 2.0], [math.inf, 4.0]], dtype=mg.float64))
    assert np.isnan(s.numpy()).all()


@pytest.mark.parametrize("matrix", [A, [[2.0, 1.0], [1.0, math.nan]]])
def test_cholesky_stops_at_a_nan_pivot(matrix):
    a = mg.tensor(matrix, dtype=mg.float64)
    with pytest.raises(mg.linalg.LinAlgError, match="leading minor of order 2"):
        mg.linalg.cholesky(a)
    out = mg.linalg.cholesky_ex(a)
    assert out.info.item() == 2
    batch = mg.stack([mg.eye(2, dtype=mg.float64), a])
    with pytest.raises(mg.linalg.LinAlgError, match=r"\(Batch element 1\)"):
        mg.linalg.cholesky(batch)
    assert mg.linalg.cholesky_ex(batch).info.tolist() == [0, 2]

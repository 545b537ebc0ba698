"""The embedding backward kernel: a scatter-add that accumulates repeated indices."""

import numpy as np
import pytest

import minigrad.kernels.embedding as K


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scatter_add_rows_matches_add_at(rng, dtype):
    idx = rng.integers(0, 7, 500)
    g = rng.standard_normal((500, 3)).astype(dtype)
    out = np.zeros((7, 3), dtype=dtype)
    K.scatter_add_rows(idx, g, out)
    expected = np.zeros((7, 3))
    np.add.at(expected, idx, g.astype(np.float64))
    np.testing.assert_allclose(
        out, expected, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5
    )

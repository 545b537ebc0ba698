"""``kernels.reduction.sum_leading`` against a float64 sum, on both of its paths."""

import numpy as np
import pytest

from minigrad.kernels.reduction import sum_leading


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize(
    "shape, k",
    [
        ((1024, 64), 1),  # the BLAS path (at least SUM_LEADING_BLAS_ELEMENTS)
        ((64, 32, 5), 2),
        ((4, 16, 5), 2),  # NumPy's sum below it
        ((3, 7), 2),
        ((0, 5), 1),
        ((2, 0, 3), 1),
    ],
)
def test_sum_leading_matches_numpy_sum(dtype, shape, k):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(shape) * 10).astype(dtype)
    out = sum_leading(a, k)
    expected = a.astype(np.float64).sum(tuple(range(k)))
    assert out.shape == expected.shape and out.dtype == dtype
    # a sum's rounding error is bounded by its terms' magnitudes, not by its value
    bound = 8 * np.finfo(np.float32 if dtype == np.float32 else np.float64).eps
    magnitude = np.abs(a.astype(np.float64)).sum(tuple(range(k)))
    assert np.all(np.abs(out - expected) <= bound * magnitude)


def test_sum_leading_of_a_strided_view_and_of_inf_nan():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((96, 128)).astype(np.float32)  # big enough for BLAS, but
    np.testing.assert_allclose(sum_leading(a.T, 1), a.T.sum(0), rtol=1e-5)  # not contiguous
    for rows in (2, 4096):  # NumPy's sum, the BLAS product
        b = np.zeros((rows, 3))
        b[0], b[1] = [np.inf, 1.0, np.nan], [-np.inf, 2.0, 0.0]
        with np.errstate(invalid="ignore"):
            out = sum_leading(b, 1)
        np.testing.assert_array_equal(out, [np.nan, 3.0, np.nan])

"""The kernel runtime's product rule: ``runtime.matmul`` computes ``np.matmul`` and leaves
NumPy's BLAS thread count as it found it, on small and large products alike."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.kernels import runtime

threadpoolctl = pytest.importorskip("threadpoolctl")


def _blas_threads() -> list:
    return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]


@pytest.fixture
def two_threads():
    previous = mg.get_num_threads()
    mg.set_num_threads(2)
    yield
    mg.set_num_threads(previous)


@pytest.mark.parametrize("m, k, n", [(4, 3, 5), (64, 128, 384), (2048, 128, 64)])
def test_matmul_is_numpys_product_and_keeps_the_thread_count(two_threads, m, k, n):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((n, k), dtype=np.float32).T  # a transposed view, as Linear's
    before = _blas_threads()
    np.testing.assert_allclose(runtime.matmul(a, b), a @ b, rtol=1e-5, atol=1e-5)
    assert _blas_threads() == before


def test_matmul_restores_the_thread_count_when_the_product_fails(two_threads):
    before = _blas_threads()
    with pytest.raises(ValueError):
        runtime.matmul(np.ones((2, 3)), np.ones((4, 2)))
    assert _blas_threads() == before

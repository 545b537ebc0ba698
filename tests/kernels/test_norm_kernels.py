"""The fused norm kernels (minigrad/kernels/{layer,rms,batch,group}_norm.py), through their
Python wrappers, at sizes where they run in parallel.

What the kernels promise beyond agreeing with the reference: numerically stable
statistics (float32 inputs on a large offset), bit-identical results from run to run
and on any number of threads (a fixed partition for the dweight / dbias sums), and
float64 accumulation of dweight / dbias for float32 inputs.
"""

import numpy as np
import pytest

import minigrad as mg
from minigrad.kernels import batch_norm as BN
from minigrad.kernels import group_norm as GN
from minigrad.kernels import layer_norm as LN
from minigrad.kernels import rms_norm as RMS
from minigrad.kernels import runtime
from minigrad.nn.norms import reference

RNG = np.random.default_rng(42)


def _ln(x, w, b, dy):
    y, mean, rstd = LN.forward(x, w, b, 1, 1e-5)
    return (y,) + LN.backward(dy, x, w, mean, rstd, 1)


def _rms(x, w, b, dy):
    y, _, rstd = RMS.forward(x, w, 1, 1e-6)
    return (y,) + RMS.backward(dy, x, w, None, rstd, 1)[:2]


def _bn(x, w, b, dy):
    y, mean, rstd, _ = BN.forward(x, w, b, None, None, True, 1e-5)
    return (y,) + BN.backward(dy, x, w, mean, rstd, True)


def _gn(x, w, b, dy):
    y, mean, rstd = GN.forward(x, w, b, 4, 1e-5)
    return (y,) + GN.backward(dy, x, w, mean, rstd, 4)


NORMS = {
    "layer_norm": (_ln, (700, 130), -1),
    "layer_norm-wide": (_ln, (150, 2100), -1),  # chunks of 10 rows: 4 at a time twice, then 2
    "rms_norm": (_rms, (700, 130), -1),
    "batch_norm-2d": (_bn, (1001, 37), 1),
    "batch_norm-3d": (_bn, (67, 12, 45), 1),
    "group_norm": (_gn, (9, 12, 350), 1),
}


def _inputs(shape, feature_axis, dtype, offset=0.0):
    n = shape[feature_axis]
    x = (offset + RNG.standard_normal(shape)).astype(dtype)
    w = (1 + 0.2 * RNG.standard_normal(n)).astype(dtype)
    b = (0.2 * RNG.standard_normal(n)).astype(dtype)
    dy = RNG.standard_normal(shape).astype(dtype)
    return x, w, b, dy


def _reference_of(name):
    """The same computation by the reference implementation (float64 in, float64 out)."""

    def run(x, w, b, dy):
        if name.startswith("layer"):
            y, mean, rstd = reference.layer_norm_forward(x, w, b, 1, 1e-5)
            return (y,) + reference.layer_norm_backward(dy, x, w, mean, rstd, 1)
        if name.startswith("rms"):
            y, _, rstd = reference.rms_norm_forward(x, w, 1, 1e-6)
            return (y,) + reference.rms_norm_backward(dy, x, w, None, rstd, 1)[:2]
        if name.startswith("batch"):
            y, mean, rstd, _ = reference.batch_norm_forward(x, w, b, None, None, True, 1e-5)
            return (y,) + reference.batch_norm_backward(dy, x, w, mean, rstd, True)
        y, mean, rstd = reference.group_norm_forward(x, w, b, 4, 1e-5)
        return (y,) + reference.group_norm_backward(dy, x, w, mean, rstd, 4)

    return run


@pytest.fixture
def parallel_from_small_sizes(monkeypatch):
    """The parallel kernels for these test shapes too (the threshold is far above them)."""
    monkeypatch.setattr(runtime, "PARALLEL_MIN_ELEMENTS", 1 << 12)


@pytest.mark.parametrize("name", NORMS)
def test_parallel_sizes_match_the_reference_in_float64(name, parallel_from_small_sizes):
    fn, shape, axis = NORMS[name]
    assert np.prod(shape) >= runtime.PARALLEL_MIN_ELEMENTS  # the multi-threaded path
    args = _inputs(shape, axis, np.float64)
    for got, want in zip(fn(*args), _reference_of(name)(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("name", NORMS)
def test_bit_identical_across_runs_and_thread_counts(name, parallel_from_small_sizes, monkeypatch):
    fn, shape, axis = NORMS[name]
    args = _inputs(shape, axis, np.float32)
    runs = [fn(*args), fn(*args)]
    previous = mg.get_num_threads()
    try:
        for threads in (1, 2, 3):
            mg.set_num_threads(threads)
            runs.append(fn(*args))
    finally:
        mg.set_num_threads(previous)
    monkeypatch.setattr(runtime, "PARALLEL_MIN_ELEMENTS", 1 << 62)  # the calling thread alone
    runs.append(fn(*args))
    for outputs in zip(*runs):
        assert len({a.tobytes() for a in outputs}) == 1


@pytest.mark.parametrize("name", ["layer_norm", "batch_norm-2d", "batch_norm-3d", "group_norm"])
def test_float32_statistics_survive_a_large_offset(name):
    """1e4 + N(0, 1) in float32: a one-pass E[x^2] - E[x]^2 in float32 loses the variance
    entirely (1e8 - 1e8 with 7 significant digits); the kernels must not."""
    fn, shape, axis = NORMS[name]
    x, w, b, dy = _inputs(shape, axis, np.float32, offset=1e4)
    y = fn(x, w, b, dy)[0]
    want = _reference_of(name)(x.astype(np.float64), w.astype(np.float64), b, dy)[0]
    # x itself is only given to ~5e-4 (float32 spacing at 1e4); y inherits that, no more
    np.testing.assert_allclose(y, want, atol=5e-3)
    naive = (x * x).mean() - x.mean() ** 2  # what a careless float32 one-pass gives
    assert abs(naive - x.astype(np.float64).var()) > 0.1


@pytest.mark.parametrize(
    "name, width",
    [("layer_norm", 64), ("layer_norm-wide", 2048), ("rms_norm", 64), ("batch_norm-2d", 64)],
)
def test_float32_dweight_and_dbias_are_accumulated_in_float64(name, width):
    """Sums over 8192 rows: within 1e-6 (norm-wise relative) of a float64 computation,
    tighter than float32 accumulation can reach on these inputs."""
    fn, _, axis = NORMS[name]
    shape = (8192, width)
    x, w, b, _ = _inputs(shape, axis, np.float32)
    dy = (0.1 + 0.01 * RNG.standard_normal(shape)).astype(np.float32)  # sums that grow
    got = fn(x, w, b, dy)[2:]
    want = _reference_of(name)(*(a.astype(np.float64) for a in (x, w, b, dy)))[2:]
    for g, r in zip(got, want):
        assert g.dtype == np.float32
        assert np.abs(g - r).max() / np.abs(r).max() < 1e-6
    float32_sum = np.cumsum(dy, axis=0, dtype=np.float32)[-1]  # sequential float32
    exact = dy.astype(np.float64).sum(0)
    assert np.abs(float32_sum - exact).max() / np.abs(exact).max() > 1e-6


def test_non_contiguous_inputs():
    x = RNG.standard_normal((130, 700)).T  # a transposed view, (700, 130)
    dy = RNG.standard_normal((130, 700)).T
    w, b = np.ones(130), np.zeros(130)
    got = _ln(x, w, b, dy)
    want = _reference_of("layer_norm")(x, w, b, dy)
    for g, r in zip(got, want):
        np.testing.assert_allclose(g, r, rtol=1e-11, atol=1e-11)


def test_kernel_writes_into_its_out_arguments():
    from minigrad.kernels.layer_norm import layer_norm_forward

    for dtype in (np.float32, np.float64):
        x = RNG.standard_normal((4, 6)).astype(dtype)
        y = np.full_like(x, np.nan)
        mean = np.empty(4, dtype)
        rstd = np.empty(4, dtype)
        layer_norm_forward(x, np.ones(6, dtype), np.zeros(6, dtype), 1e-5, y, mean, rstd)
        np.testing.assert_allclose(mean, x.mean(1), rtol=1e-6)
        np.testing.assert_allclose(rstd, 1 / np.sqrt(x.var(1) + 1e-5), rtol=1e-5)
        np.testing.assert_allclose(y, (x - x.mean(1, keepdims=True)) * rstd[:, None], atol=1e-5)

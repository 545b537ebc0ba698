"""The activation kernels: the float32 (vectorised, arithmetic-only) kernels against the
float64 libm ones rounded to float32, and their building blocks against NumPy / math."""

import math

import numpy as np
import pytest

K = pytest.importorskip("minigrad.kernels.activation")


def _ulp_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in float32 ulps (same-sign finite values)."""
    ia = a.view(np.int32).astype(np.int64)
    ib = b.view(np.int32).astype(np.int64)
    return np.abs(ia - ib)


def test_exp_neg_matches_numpy_exp():
    y = -np.concatenate([np.linspace(0, 110, 200_001), np.geomspace(1e-12, 1e-3, 1000)])
    y[0] = -0.0
    out = np.empty_like(y)
    K.exp_neg_reference(y, out)
    np.testing.assert_allclose(out, np.exp(y), rtol=1e-12, atol=0)
    low = np.array([-110.5, -1000.0, -np.inf])
    K.exp_neg_reference(low, out := np.empty(3))
    np.testing.assert_array_equal(out, 0.0)


def test_erfcx_fit_accuracy():
    z = np.linspace(0, 10.5, 100_001)
    out = np.empty_like(z)
    K.erfcx_reference(z, out)
    exact = np.array([math.erfc(v) * math.exp(v * v) for v in z])
    assert np.max(np.abs(out / exact - 1)) < 5e-10


@pytest.mark.parametrize("name", ["gelu", "gelu_tanh", "silu"])
def test_float32_kernels_are_correctly_rounded_almost_everywhere(rng, name):
    x32 = np.concatenate(
        [
            (rng.standard_normal(300_000) * 4).astype(np.float32),
            np.linspace(-20, 20, 40_001, dtype=np.float32),
            np.array([0.0, -0.0, 1e-30, -1e-30, 3.4e38, -3.4e38], dtype=np.float32),
        ]
    )
    x64 = x32.astype(np.float64)
    ref_y, ref_d = np.empty_like(x64), np.empty_like(x64)
    getattr(K, f"{name}64")(x64, ref_y, ref_d)
    y, d = np.empty_like(x32), np.empty_like(x32)
    getattr(K, f"{name}32")(x32, y, d)
    y_only = np.empty_like(x32)
    getattr(K, f"{name}32")(x32, y_only, x32[:0])
    np.testing.assert_array_equal(y_only, y)
    for got, ref in ((y, ref_y), (d, ref_d)):
        ref32 = ref.astype(np.float32)
        finite = np.isfinite(ref32) & (np.abs(ref32) > 1e-37)  # skip subnormal tails
        ulps = _ulp_diff(got[finite], ref32[finite])
        # Where a derivative crosses zero (gelu' at x = -0.75) it is a difference of O(1)
        # terms: there the error is judged against those terms (3e-8 = 0.5 ulp of 0.25).
        near_zero = np.abs(got[finite].astype(np.float64) - ref[finite]) <= 3e-8
        bad = (ulps > 1) & ~near_zero
        assert not bad.any(), (name, x32[finite][bad][:5])
        assert np.mean(ulps == 0) > 0.99
        tiny = ~finite & np.isfinite(ref32)
        np.testing.assert_allclose(got[tiny], ref32[tiny], atol=1e-37)


def test_float64_kernels_match_math(rng):
    """Relative accuracy everywhere, including the far negative tail (no 1 + erf cancellation)."""
    x = rng.standard_normal(2000) * 5
    y, d = np.empty_like(x), np.empty_like(x)
    K.gelu64(x, y, d)
    exact = np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x])
    np.testing.assert_allclose(y, exact, rtol=1e-13, atol=1e-300)
    dexact = np.array(
        [
            0.5 * math.erfc(-v / math.sqrt(2)) + v * math.exp(-v * v / 2) / math.sqrt(2 * math.pi)
            for v in x
        ]
    )
    np.testing.assert_allclose(d, dexact, rtol=1e-12, atol=1e-15)  # zero at -0.75
    K.gelu_tanh64(x, y, d)
    u = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
    s = np.array([1 / (1 + math.exp(-2 * v)) if v > -300 else 0.0 for v in u])
    np.testing.assert_allclose(y, x * s, rtol=1e-13, atol=1e-300)
    K.silu64(x, y, d)
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(y, x * s, rtol=1e-14)
    np.testing.assert_allclose(d, s * (1 + x * (1 - s)), rtol=1e-13, atol=1e-15)  # zero at -1.28


def test_nan_propagates(rng):
    for name in ("gelu", "gelu_tanh", "silu"):
        x = np.array([np.nan, 1.0], dtype=np.float32)
        y, d = np.empty_like(x), np.empty_like(x)
        getattr(K, f"{name}32")(x, y, d)
        assert np.isnan(y[0]) and np.isnan(d[0]) and np.isfinite(y[1])

"""The activation kernels: the float32 (vectorised, arithmetic-only) kernels against
float64 references built from ``math.erfc`` / ``numpy.exp`` (not from the kernels), their
building blocks, special values, and the float64 (libm) kernels against ``math``."""

import math

import numba
import numpy as np
import pytest

import minigrad.kernels.activation as K

TINY = 2.0**-126  # smallest normal float32
ZERO_OF_DERIVATIVE = {"gelu": -0.7517915, "silu": -1.2784645, "gelu_tanh": -0.7524614}

# Measured on 24 million inputs (see the module docstring); the bounds leave ~15% margin.
MAX_ULPS = {"gelu": (4.5, 5.0), "silu": (4.0, 6.5), "gelu_tanh": (4.0, 7.5)}  # (y, dy/dx)


def _erfc(x: np.ndarray) -> np.ndarray:
    return np.array([math.erfc(v) for v in x.tolist()])


def reference(name: str, x: np.ndarray):
    """(y, dy/dx) in float64, with tails that do not cancel (erfc, e / (1 + e))."""
    if name == "gelu":
        cdf = 0.5 * _erfc(-x / math.sqrt(2.0))
        return x * cdf, cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    z = x if name == "silu" else 2.0 * math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)
    e = np.exp(-np.abs(z))
    s = np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    s_c = np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))  # 1 - s
    if name == "silu":
        return x * s, s * (1.0 + x * s_c)
    du = math.sqrt(2.0 / math.pi) * (1.0 + 3.0 * 0.044715 * x * x)
    return x * s, s + 2.0 * x * s * s_c * du


def _ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in units of the float32 spacing at ref."""
    spacing = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - ref) / spacing


@pytest.fixture(scope="module")
def inputs():
    """Finite float32 inputs: dense over [-16, 16] (every tail), N(0, 9), and random bit
    patterns (every magnitude, 1e-45 to 3e38)."""
    rng = np.random.default_rng(5)
    bits = rng.integers(0, 2**32, 40_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.concatenate(
        [
            np.linspace(-16, 16, 120_001, dtype=np.float32),
            (rng.standard_normal(100_000) * 3).astype(np.float32),
            bits[np.isfinite(bits)],
        ]
    )
    return x


@pytest.mark.parametrize("name", ["gelu", "silu", "gelu_tanh"])
def test_float32_kernels_are_within_a_few_ulps(inputs, name):
    x32 = inputs
    y, d = np.empty_like(x32), np.empty_like(x32)
    getattr(K, f"{name}32")(x32, y, d)
    assert not np.isnan(y).any() and not np.isnan(d).any()  # no inf * 0 for any finite x
    x = x32.astype(np.float64)
    ref_y, ref_d = reference(name, x)
    near_zero = np.abs(x - ZERO_OF_DERIVATIVE[name]) < 0.5
    for got, ref, bound, skip in (
        (y, ref_y, MAX_ULPS[name][0], False),
        (d, ref_d, MAX_ULPS[name][1], True),
    ):
        normal = np.abs(ref) >= TINY
        # dy/dx crosses zero as a difference of O(0.25) terms: judged in absolute terms there
        judged = normal & ~near_zero if skip else normal
        ulps = _ulps(got[judged], ref[judged])
        assert ulps.max() <= bound, (name, x32[judged][np.argmax(ulps)], ulps.max())
        assert ulps.mean() < 0.6 and np.mean(ulps > 2) < 0.05
        if skip:
            np.testing.assert_allclose(got[near_zero], ref[near_zero], rtol=0, atol=1e-7)
        # subnormal results (x < -13 for gelu): a few units of the smallest subnormal
        np.testing.assert_allclose(got[~normal], ref[~normal], rtol=0, atol=4 * 2.0**-149)


@pytest.mark.parametrize("name", ["gelu", "silu", "gelu_tanh"])
def test_float32_kernels_special_values(name):
    big = np.float32(3.4e38)
    x = np.array([0.0, -0.0, 1e-30, -1e-30, big, -big, 200.0, -200.0, np.inf, -np.inf, np.nan])
    x = x.astype(np.float32)
    y, d = np.empty_like(x), np.empty_like(x)
    getattr(K, f"{name}32")(x, y, d)
    np.testing.assert_array_equal(y[:4], x[:4] / 2)  # x * 1/2 to 1 part in 1e30
    assert np.signbit(y[1]) and np.signbit(y[3])
    np.testing.assert_array_equal(d[:4], 0.5)
    # -> x and 1 for large x; -> -0 (not +0, not NaN) for large negative x
    np.testing.assert_array_equal(y[[4, 6, 8]], x[[4, 6, 8]])
    np.testing.assert_array_equal(y[[5, 7, 9]], 0.0)
    assert np.signbit(y[[5, 7, 9]]).all()
    np.testing.assert_array_equal(d[[4, 6]], 1.0)
    np.testing.assert_array_equal(d[[5, 7]], 0.0)
    assert np.isnan(y[10]) and np.isnan(d[10])
    y_only = np.empty_like(x)
    getattr(K, f"{name}32")(x, y_only, x[:0])  # the output-only loop gives the same bits
    np.testing.assert_array_equal(y_only, y)


@numba.njit(error_model="numpy", fastmath={"contract"})
def exp32(t, out):
    """The kernels' ``_exp_parts`` over an array of float32 t <= 0."""
    for i in range(t.size):
        p, s1, s2 = K._exp_parts(t[i])
        out[i] = (p * s1) * s2


@numba.njit(error_model="numpy", fastmath={"contract"})
def mills32(a, out):
    """The kernels' ``_mills`` over a float32 array."""
    for i in range(a.size):
        out[i] = K._mills(a[i])


def test_exp_building_block_is_faithful_down_to_subnormals():
    t = -np.linspace(0, 110, 400_001).astype(np.float32)
    out = np.empty_like(t)
    exp32(t, out)
    exact = np.exp(t.astype(np.float64))
    normal = exact >= TINY
    assert _ulps(out[normal], exact[normal]).max() <= 1.0  # measured 0.86
    # below 2^-126 the last product rounds once to the subnormal grid; 0 past -103.97
    np.testing.assert_allclose(out[~normal], exact[~normal], rtol=0, atol=2.0**-149)
    assert out[-1] == 0.0


def test_mills_ratio_building_block():
    a = np.linspace(0, 15, 150_001).astype(np.float32)
    out = np.empty_like(a)
    mills32(a, out)
    av = a.astype(np.float64)
    # Phi(-a) / phi(a) = sqrt(pi / 2) erfcx(a / sqrt 2), computed with exp(a^2 / 2) erfc
    exact = math.sqrt(math.pi / 2) * _erfc(av / math.sqrt(2)) * np.exp(0.5 * av * av)
    assert _ulps(out, exact).max() <= 2.5  # measured 2.0


def test_mul_kernel():
    a = np.arange(10, dtype=np.float32)
    out = np.empty_like(a)
    K.mul(a, a, out)
    np.testing.assert_array_equal(out, a * a)


@pytest.mark.parametrize("name", ["gelu32", "silu32", "gelu_tanh32"])
@pytest.mark.parametrize("with_derivative", [True, False])
def test_each_serial_twin_writes_the_bits_of_its_parallel_kernel(name, with_derivative, rng):
    x = (rng.standard_normal(70_000) * 6).astype(np.float32)
    x[:4] = [np.nan, np.inf, -np.inf, -0.0]
    outs = []
    for kernel in (getattr(K, name), getattr(K, name).serial):
        y = np.empty_like(x)
        d = np.empty_like(x) if with_derivative else x[:0]
        kernel(x, y, d)
        outs.append((y, d))
    for got, want in zip(outs[1], outs[0]):
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)  # a NaN's sign bit may differ
        np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))


def test_run_calls_the_serial_twin_when_the_runtime_says_serial(monkeypatch):
    from minigrad.kernels import runtime

    calls = []
    monkeypatch.setattr(K.mul, "serial", lambda *arrays: calls.append("serial"))
    a = np.ones(runtime.PARALLEL_MIN_ELEMENTS, dtype=np.float32)
    out = np.empty_like(a)
    monkeypatch.setattr(runtime, "parallel", lambda size: False)
    K.mul.for_size(a.size)(a, a, out)
    assert calls == ["serial"]
    monkeypatch.setattr(runtime, "parallel", lambda size: True)
    out[:] = 0
    K.mul.for_size(a.size)(a, a, out)  # the parallel kernel itself
    assert calls == ["serial"] and (out == 1).all()


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
    du = math.sqrt(2 / math.pi) * (1 + 3 * 0.044715 * x * x)
    np.testing.assert_allclose(d, s + 2 * x * s * (1 - s) * du, rtol=1e-11, atol=1e-15)
    K.silu64(x, y, d)
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(y, x * s, rtol=1e-14)
    np.testing.assert_allclose(d, s * (1 + x * (1 - s)), rtol=1e-13, atol=1e-15)  # zero at -1.28


@pytest.mark.parametrize("name", ["gelu", "silu", "gelu_tanh"])
def test_float64_output_only_path_gives_the_same_output(name, rng):
    x = rng.standard_normal(1000) * 5
    y, d, y_only = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    kernel = getattr(K, f"{name}64")
    kernel(x, y, d)
    kernel(x, y_only, x[:0])  # an empty dydx: output only
    assert y_only.tobytes() == y.tobytes()

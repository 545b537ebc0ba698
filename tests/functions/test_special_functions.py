"""The special functions of ``torch.special`` (``minigrad/functions/bessel.py``,
``incomplete_gamma.py``, ``orthogonal_polynomials.py``, ``special_math.erfcx``): their
values against exact references and identities (always), and against PyTorch over wide
ranges in float64 and float32 (when it is installed).

The exact references are series summed in rational arithmetic (``fractions``) and
rounded once; PyTorch's own ``bessel_j0``/``j1``/``y0``/``y1`` and ``airy_ai`` are off
by up to 1e-6 (absolute) for 2 < |x| < 8, where minigrad matches the exact values to
1e-15, so the PyTorch sweeps compare those functions with an absolute tolerance there.
"""

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest

import minigrad as mg
from minigrad.functions import bessel, incomplete_gamma, orthogonal_polynomials, special_math

S = mg.special


def _decimal(q: Fraction) -> Decimal:
    return Decimal(q.numerator) / Decimal(q.denominator)


def _exact_j0(x: float) -> float:
    quarter = Fraction(x) ** 2 / 4
    term, total = Fraction(1), Fraction(1)
    for k in range(1, 150):
        term = -term * quarter / (k * k)
        total += term
    return float(total)


def _exact_airy(x: float) -> float:
    getcontext().prec = 40
    cube, x = Fraction(x) ** 3, Fraction(x)
    f_term, g_term, f, g = Fraction(1), x, Fraction(1), x
    for k in range(1, 200):
        f_term = f_term * cube / ((3 * k - 1) * (3 * k))
        g_term = g_term * cube / ((3 * k) * (3 * k + 1))
        f, g = f + f_term, g + g_term
    ai0 = Decimal("0.355028053887817239260063186004183176398")
    ai1 = Decimal("0.258819403792806798405183560189203963479")
    return float(ai0 * _decimal(f) - ai1 * _decimal(g))


@pytest.mark.parametrize("x", [3.0, 5.52, 7.0, 10.0, 15.0, 20.0, 40.0])
def test_bessel_j0_matches_its_exact_series(x):
    assert bessel.bessel_j0(np.array([x]))[0] == pytest.approx(_exact_j0(x), rel=1e-13, abs=1e-16)


@pytest.mark.parametrize("x", [-8.0, -5.0, -3.0, -2.5, -2.338, -1.5, 0.0, 0.5, 2.0, 5.0])
def test_airy_ai_matches_its_exact_series(x):
    assert bessel.airy_ai(np.array([x]))[0] == pytest.approx(_exact_airy(x), rel=1e-13, abs=1e-15)


def test_bessel_wronskians_hold_over_twelve_decades():
    x = np.logspace(-3, 3, 500)
    # J_1 Y_0 - J_0 Y_1 = 2 / (pi x)   and   I_0 K_1 + I_1 K_0 = 1 / x (DLMF 10.5.2, 10.28.2)
    jy = bessel.bessel_j1(x) * bessel.bessel_y0(x) - bessel.bessel_j0(x) * bessel.bessel_y1(x)
    np.testing.assert_allclose(jy * math.pi * x / 2, 1.0, rtol=1e-13)
    ik = bessel.i0e(x) * bessel.scaled_modified_bessel_k1(x)
    ik = ik + bessel.i1e(x) * bessel.scaled_modified_bessel_k0(x)
    np.testing.assert_allclose(ik * x, 1.0, rtol=1e-13)


def test_i0_matches_its_exact_series_across_the_switch_to_the_asymptotic_one():
    for x in (24.9, 25.0, 25.1, 60.0):
        quarter = Fraction(x) ** 2 / 4
        term, total = Fraction(1), Fraction(1)
        for k in range(1, 400):
            term = term * quarter / (k * k)
            total += term
        assert bessel.i0(np.array([x]))[0] == pytest.approx(float(total), rel=2e-15)


def test_gammainc_matches_its_exact_series_where_pytorch_drifts():
    getcontext().prec = 40
    a, x = 25, Fraction(20)
    term, total = Fraction(1, a), Fraction(1, a)
    for n in range(1, 300):
        term = term * x / (a + n)
        total += term
    exact = _decimal(total) * Decimal(20) ** a * Decimal(-20).exp() / math.factorial(a - 1)
    p = incomplete_gamma.gammainc(np.array([25.0]), np.array([20.0]))[0]
    q = incomplete_gamma.gammaincc(np.array([25.0]), np.array([20.0]))[0]
    assert p == pytest.approx(float(exact), rel=1e-14)
    assert q == pytest.approx(1 - float(exact), rel=1e-14)


def test_zeta_known_values():
    s = np.array([2.0, 4.0, 2.0, 3.0, 2.0])
    q = np.array([1.0, 1.0, 0.5, 2.0, 1e4])
    expected = [math.pi**2 / 6, math.pi**4 / 90, math.pi**2 / 2, 1.2020569031595942 - 1, None]
    out = incomplete_gamma.zeta(s, q)
    np.testing.assert_allclose(out[:4], expected[:4], rtol=1e-15)
    # zeta(2, q) ~ 1/q + 1/(2q^2) + 1/(6q^3) for large q
    assert out[4] == pytest.approx(1e-4 + 0.5e-8 + 1e-12 / 6, rel=1e-15)


def test_erfcx_follows_exp_x2_erfc_far_out():
    getcontext().prec = 40
    x = -26.259999999999998
    expected = 2 * (Decimal(x) ** 2).exp()  # erfc(x) = 2 - erfc(-x), erfc(26.26) ~ 1e-301
    assert special_math.erfcx(np.array([x]))[0] == pytest.approx(float(expected), rel=2e-16)
    big = np.array([1e3, 1e10, 1e50])
    np.testing.assert_allclose(special_math.erfcx(big), 1 / (big * math.sqrt(math.pi)) *
                               (1 - 1 / (2 * big**2) + 3 / (4 * big**4)), rtol=1e-11)  # fmt: skip


def test_orthogonal_polynomials_closed_forms():
    theta = np.linspace(0.1, 3.0, 30)
    x = np.cos(theta)
    for n in (0, 1, 5, 12):
        T = orthogonal_polynomials.chebyshev_polynomial_t(x, np.full_like(x, n))
        U = orthogonal_polynomials.chebyshev_polynomial_u(x, np.full_like(x, n))
        np.testing.assert_allclose(T, np.cos(n * theta), atol=1e-13)
        np.testing.assert_allclose(U, np.sin((n + 1) * theta) / np.sin(theta), atol=1e-12)
    y = np.linspace(-2, 2, 9)
    three = np.full_like(y, 3.0)
    np.testing.assert_allclose(
        orthogonal_polynomials.hermite_polynomial_h(y, three), 8 * y**3 - 12 * y
    )
    np.testing.assert_allclose(orthogonal_polynomials.hermite_polynomial_he(y, three), y**3 - 3 * y)
    laguerre = (-(y**3) + 9 * y**2 - 18 * y + 6) / 6
    np.testing.assert_allclose(orthogonal_polynomials.laguerre_polynomial_l(y, three), laguerre)
    np.testing.assert_allclose(
        orthogonal_polynomials.legendre_polynomial_p(y, three), (5 * y**3 - 3 * y) / 2
    )


def test_pytorch_conventions_for_the_degree():
    x = mg.tensor([0.3, -2.0, 1.5], dtype=mg.float64)
    for n, expected in ((-1.0, [0.0, 0.0, 0.0]), (2.7, [2 * 0.09 - 1, 7.0, 3.5])):
        out = S.chebyshev_polynomial_t(x, mg.tensor(n, dtype=mg.float64))
        np.testing.assert_allclose(out.numpy(), expected)
    assert S.chebyshev_polynomial_t(mg.tensor([1, 2]), 3).dtype == mg.float32
    out = S.legendre_polynomial_p(mg.tensor([0.5], dtype=mg.float64), n=3)  # PyTorch's keyword
    np.testing.assert_allclose(out.numpy(), [(5 * 0.125 - 1.5) / 2])


def test_integer_inputs_give_the_default_float_and_igamma_refuses_them():
    assert S.i0(mg.tensor([1, 2])).dtype == mg.float32
    assert S.zeta(mg.tensor([2, 3]), mg.tensor([1, 2])).dtype == mg.float32
    with pytest.raises(NotImplementedError):
        S.gammainc(mg.tensor([1, 2]), mg.tensor([1, 2]))


def test_derivatives_pytorch_refuses_raise_at_backward():
    a = mg.tensor([2.0, 3.0], dtype=mg.float64, requires_grad=True)
    x = mg.tensor([0.5, 2.0], dtype=mg.float64, requires_grad=True)
    for fn, name in ((S.gammainc, "igamma: input"), (S.gammaincc, "igammac: input"),
                     (S.zeta, "zeta")):  # fmt: skip
        y = fn(a, x).sum()
        with pytest.raises(NotImplementedError, match=name):
            y.backward()
    (gx,) = mg.autograd.grad(S.gammainc(a.detach(), x).sum(), x)  # the one in x is there
    expected = np.exp(-x.numpy()) * x.numpy() ** (a.numpy() - 1) / [1.0, 2.0]
    np.testing.assert_allclose(gx.numpy(), expected, rtol=1e-14)
    assert not S.bessel_j0(x).requires_grad  # as PyTorch: no derivative, no graph


# --------------------------------------------------------------- against PyTorch
UNARY = (
    "i0 i0e i1 i1e modified_bessel_i0 modified_bessel_i1 modified_bessel_k0 modified_bessel_k1 "
    "scaled_modified_bessel_k0 scaled_modified_bessel_k1 bessel_j0 bessel_j1 bessel_y0 "
    "bessel_y1 spherical_bessel_j0 airy_ai erfcx"
).split()
#: where PyTorch itself is off (absolute), see the module docstring
TORCH_ABSOLUTE = {"bessel_j0": 1e-6, "bessel_j1": 1e-6, "bessel_y0": 1e-6, "bessel_y1": 1e-6,
                  "airy_ai": 3e-6}  # fmt: skip


def _sweep():
    magnitudes = np.logspace(-300, 2.85, 700)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 700.0, 709.0]
    return np.concatenate([magnitudes, -magnitudes, np.linspace(-30, 30, 1201), special])


@pytest.mark.parametrize("name", UNARY)
def test_matches_pytorch_over_a_wide_sweep_in_float64(name, torch):
    x = _sweep()
    if name == "airy_ai":
        x = x[np.abs(x) < 1e3]  # the phase 2/3 |x|^1.5 loses digits in both libraries
    ours = getattr(S, name)(mg.tensor(x)).numpy()
    ref = getattr(torch.special, name)(torch.tensor(x)).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    np.testing.assert_array_equal(np.isinf(ours), np.isinf(ref))
    finite = np.isfinite(ref) & (np.abs(ref) > 1e-290)  # PyTorch flushes some subnormals
    atol = TORCH_ABSOLUTE.get(name, 0.0)
    # the phases x - pi/4 and 2/3 |x|^1.5 carry a rounding error of their own size
    rtol = 1e-13 if name in ("i0", "i1", "modified_bessel_i0", "modified_bessel_i1") else 2e-14
    rtol = max(rtol, 1e-12) if name in TORCH_ABSOLUTE or name == "erfcx" else rtol
    big = np.abs(x[finite]) > 30
    np.testing.assert_allclose(ours[finite][~big], ref[finite][~big], rtol=rtol, atol=atol)
    np.testing.assert_allclose(ours[finite][big], ref[finite][big], rtol=1e-9)


@pytest.mark.parametrize("name", UNARY)
def test_matches_pytorch_in_float32(name, torch):
    x = np.linspace(-20, 20, 801).astype(np.float32)
    ours = getattr(S, name)(mg.tensor(x))
    ref = getattr(torch.special, name)(torch.tensor(x)).numpy()
    assert ours.dtype == mg.float32
    finite = np.isfinite(ref) & (np.abs(ref) > 1e-30)
    np.testing.assert_allclose(ours.numpy()[finite], ref[finite], rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_matches_pytorch(name, torch):
    a, x = np.meshgrid(np.logspace(-3, 1.3, 40), np.logspace(-4, 3, 50))
    ours = getattr(S, name)(mg.tensor(a), mg.tensor(x)).numpy()
    ref = getattr(torch.special, name)(torch.tensor(a), torch.tensor(x)).numpy()
    keep = np.abs(ref) > 1e-290
    # Q = 1 - P (and P = 1 - Q) where one is small: both libraries lose digits alike
    np.testing.assert_allclose(ours[keep], ref[keep], rtol=1e-12, atol=1e-14)
    edges = np.array([[0.0, 1.0], [1.0, 0.0], [-1.0, 1.0], [1.0, -1.0], [np.inf, 1.0],
                      [1.0, np.inf], [0.0, 0.0], [np.nan, 0.0]])  # fmt: skip
    ours = getattr(S, name)(mg.tensor(edges[:, 0]), mg.tensor(edges[:, 1])).numpy()
    ref = getattr(torch.special, name)(torch.tensor(edges[:, 0]), torch.tensor(edges[:, 1]))
    np.testing.assert_array_equal(ours, ref.numpy())


def test_zeta_matches_pytorch(torch):
    s, q = np.meshgrid(np.concatenate([np.linspace(1.01, 60, 50), [1.0, 0.5, np.inf]]),
                       np.concatenate([np.logspace(-3, 4, 30), -np.linspace(0.25, 6.25, 25),
                                       [0.0, -1.0, 1.0]]))  # fmt: skip
    ours = S.zeta(mg.tensor(s), mg.tensor(q)).numpy()
    ref = torch.special.zeta(torch.tensor(s), torch.tensor(q)).numpy()
    keep = ~(np.abs(ref) < 1e-290)
    np.testing.assert_allclose(ours[keep], ref[keep], rtol=1e-12, equal_nan=True)


POLYNOMIALS = [n for n in S.__all__ if "polynomial" in n]


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_pytorch(name, torch):
    x, n = np.meshgrid(np.linspace(-3, 3, 121), [-3, -1, 0, 1, 2, 2.5, 5, 6, 7, 8, 20, 40, 64])
    ours = getattr(S, name)(mg.tensor(x), mg.tensor(n)).numpy()
    ref = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("name", [n for n in POLYNOMIALS if "chebyshev" in n])
def test_chebyshev_of_a_huge_degree_matches_pytorch_without_a_long_loop(name, torch):
    x = np.array([0.3, -0.7, 0.999, 1.5, -2.0])  # the closed form inside, overflow outside
    n = np.full_like(x, 1e6)
    ours = getattr(S, name)(mg.tensor(x), mg.tensor(n)).numpy()
    ref = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    # Inside (-1, 1) the value is a sine or cosine of (n + c) theta, theta = arccos(x),
    # divided by 1, sin(theta), cos(theta / 2) or sin(theta / 2): a rounding of theta or of
    # the product (a few ulps, in either library) moves the numerator by eps (n + 1) theta,
    # and the quotient by that over the divisor.
    arg = 2 * x - 1 if name.startswith("shifted") else x  # the shifted ones: T_n(2x - 1) ...
    inside = np.abs(arg) < 1
    theta = np.arccos(np.where(inside, arg, 0))
    divisor = {"t": 1.0, "u": np.sin(theta), "v": np.cos(theta / 2), "w": np.sin(theta / 2)}
    atol = 4 * np.finfo(np.float64).eps * (n + 1) * theta / np.abs(divisor[name[-1]])
    assert (np.abs(ours - ref)[inside] <= atol[inside]).all()
    np.testing.assert_array_equal(ours[~inside], ref[~inside])


def test_mvlgamma_is_a_sum_of_lgammas_and_refuses_pytorchs_bad_inputs():
    x = mg.tensor([1.5, 2.0, 7.25], dtype=mg.float64)
    p = 3
    expected = [
        p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(v - j / 2) for j in range(p))
        for v in x.tolist()
    ]
    np.testing.assert_allclose(mg.mvlgamma(x, p).numpy(), expected, rtol=1e-14)
    # PyTorch: "p has to be greater than or equal to 1"; an element <= (p-1)/2 is no
    # error in PyTorch 2.13 (lgamma(0) = inf comes through)
    for bad_p in (0, -1):
        with pytest.raises(RuntimeError, match="greater than or equal to 1"):
            x.mvlgamma(bad_p)
        with pytest.raises(RuntimeError, match="greater than or equal to 1"):
            x.clone().mvlgamma_(bad_p)
    assert mg.mvlgamma(mg.tensor([1.0, 0.0, 3.0]), 2).tolist()[1] == math.inf

"""Backwards that involve a power of the output (``rsqrt``: ``-g y^3 / 2``;
``reciprocal``: ``-g y^2``) stay right in float32 wherever the gradient itself is a
float32 number: the formula multiplies ``g`` in first, one factor at a time, so no
intermediate (``y^3`` alone) leaves the range when the result does not."""

import numpy as np
import pytest

import minigrad as mg

XS = np.array([1e-38, 1e-30, 1e-26, 1e-20, 1e-10, 1.0, 1e10, 1e15, 1e19, 1e26, 1e30, 1e36])
GS = (1e-20, 1.0, 1e20)

#: op -> its exact derivative d/dx at x
DERIVATIVES = {
    "rsqrt": lambda x: -0.5 * x**-1.5,
    "reciprocal": lambda x: -(x**-2.0),
}


def _float32_gradient(name: str, g: float) -> np.ndarray:
    x = mg.tensor(XS.astype(np.float32), requires_grad=True)
    getattr(x, name)().backward(mg.tensor(np.full(XS.shape, g, dtype=np.float32)))
    return x.grad.numpy()


def _as_float32(values: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return values.astype(np.float32)


@pytest.mark.parametrize("g", GS)
@pytest.mark.parametrize("name", sorted(DERIVATIVES))
def test_float32_gradient_is_the_exact_one_rounded(name, g):
    x64 = XS.astype(np.float32).astype(np.float64)
    want = _as_float32(g * DERIVATIVES[name](x64))
    got = _float32_gradient(name, g)
    # within float32 rounding where the answer is a normal number; inf, 0 and
    # subnormals (|w| < 1.2e-38, a few ulps of 1.4e-45) as they are
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-44)


@pytest.mark.parametrize("g", GS)
@pytest.mark.parametrize("name", sorted(DERIVATIVES))
def test_float32_gradient_matches_pytorch_float64(torch, name, g):
    x = torch.tensor(XS.astype(np.float32).astype(np.float64), requires_grad=True)
    getattr(x, name)().backward(torch.full(x.shape, g, dtype=torch.float64))
    want = _as_float32(x.grad.numpy())
    np.testing.assert_allclose(_float32_gradient(name, g), want, rtol=2e-6, atol=1e-44)

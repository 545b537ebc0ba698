"""Numerical derivatives and integrals (minigrad/surface/calculus.py) beyond the OpInfo
entries: NumPy's ``gradient`` / ``trapezoid`` as the reference without PyTorch,
integer inputs, and PyTorch's errors."""

import numpy as np
import pytest

import minigrad as mg

_trapezoid = getattr(np, "trapezoid", None) or np.trapz  # numpy < 2 has trapz only


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_numpy(edge_order, rng):
    a = rng.standard_normal((4, 5))
    x1 = np.array([0.0, 0.5, 1.7, 2.0, 3.5])
    got = mg.gradient(mg.tensor(a), spacing=(2.0, mg.tensor(x1)), edge_order=edge_order)
    ref = np.gradient(a, 2.0, x1, edge_order=edge_order)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-12)


def test_gradient_of_integers_is_float():
    (g,) = mg.gradient(mg.tensor([1, 4, 9, 16]))
    assert g.dtype == mg.float32 and g.tolist() == [3.0, 4.0, 6.0, 7.0]


def test_trapezoid_matches_numpy(rng):
    y = rng.standard_normal((3, 6))
    x = np.sort(rng.uniform(0, 5, 6))
    np.testing.assert_allclose(mg.trapezoid(mg.tensor(y), mg.tensor(x)).numpy(), _trapezoid(y, x))
    np.testing.assert_allclose(
        mg.trapz(mg.tensor(y), dx=0.5, dim=0).numpy(), _trapezoid(y, dx=0.5, axis=0)
    )
    running = mg.cumulative_trapezoid(mg.tensor(y), mg.tensor(x)).numpy()
    np.testing.assert_allclose(running[:, -1], _trapezoid(y, x))


@pytest.mark.parametrize(
    "text",
    [
        "lib.trapezoid(lib.tensor([1, 4, 9, 16]))",
        "lib.trapezoid(lib.tensor([], dtype=lib.float32))",
        "lib.cumulative_trapezoid(lib.tensor([1, 4, 9, 16]))",
        "lib.gradient(lib.tensor([1.0, 4.0, 9.0]), spacing=lib.tensor(2.0))[0]",
    ],
)
def test_edge_cases_as_pytorch(text, torch):
    got, ref = eval(text, {"lib": mg}), eval(text, {"lib": torch})
    assert str(got.dtype) == str(ref.dtype).replace("torch.", "")
    np.testing.assert_allclose(got.numpy(), ref.numpy())


@pytest.mark.parametrize(
    "text",
    [
        "mg.gradient(mg.tensor([1.0, 4.0]), edge_order=2)",
        "mg.gradient(mg.tensor([1.0, 4.0]), edge_order=3)",
        "mg.gradient(mg.zeros(3, 3), spacing=[1.0, 2.0, 3.0])",
        "mg.gradient(mg.zeros(3), spacing=(mg.tensor([0.0, 1.0]),))",
        "mg.trapezoid(mg.zeros(3), mg.zeros(4))",
    ],
)
def test_errors(text):
    with pytest.raises(RuntimeError):
        eval(text)

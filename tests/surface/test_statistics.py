"""Order statistics and moments (minigrad/surface/statistics.py) beyond the OpInfo entries
(``tests/functions/opinfo.py``: values and gradients against PyTorch, gradcheck):
the named-tuple returns, the gradient going to the selected elements, and PyTorch's
errors. Without PyTorch the expectations come from NumPy."""

import numpy as np
import pytest

import minigrad as mg


def test_mode_named_tuple_and_tie_rule():
    x = mg.tensor([[1, 2, 2, 3, 3], [4, 4, 5, 5, 4]])
    out = x.mode(1)
    assert out._fields == ("values", "indices") and type(out).__name__ == "mode"
    assert out.values.tolist() == [2, 4]  # a tie: the smaller value
    assert out.indices.tolist() == [2, 4]  # where it is (its last place)
    assert mg.mode(mg.tensor(3.0)).values.item() == 3.0


def test_mode_gradient_goes_to_the_selected_element():
    x = mg.tensor([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], dtype=mg.float64, requires_grad=True)
    m = x.mode(1)
    m.values.sum().backward()
    expected = np.zeros((2, 3))
    expected[0, m.indices[0].item()] = expected[1, m.indices[1].item()] = 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_nanmedian_without_torch():
    a = np.array([[1.0, np.nan, 3.0, 0.5], [np.nan] * 4])
    x = mg.tensor(a)
    np.testing.assert_allclose(x.nanmedian().item(), 1.0)  # lower median of 0.5 1 3
    values, indices = x.nanmedian(1)
    assert values[0].item() == 1.0 and np.isnan(values[1].item())
    assert indices[0].item() == 0


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_matches_numpy(interpolation, rng):
    a = rng.standard_normal((4, 7))
    q = np.array([0.0, 0.1, 0.5, 0.62, 1.0])
    got = mg.quantile(mg.tensor(a), mg.tensor(q), dim=1, interpolation=interpolation)
    ref = np.quantile(a, q, axis=1, method=interpolation)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    a[1, 3] = np.nan
    got = mg.nanquantile(mg.tensor(a), mg.tensor(q), dim=1, interpolation=interpolation)
    ref = np.nanquantile(a, q, axis=1, method=interpolation)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    assert np.isnan(mg.tensor(a).quantile(0.5, 1)[1].item())


def test_quantile_gradient_splits_between_neighbours():
    x = mg.tensor([3.0, 0.0, 1.0, 2.0], dtype=mg.float64, requires_grad=True)
    x.quantile(0.5).backward()  # rank 1.5: halfway between 1.0 and 2.0
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, 0.5, 0.5])


def test_quantile_errors():
    x = mg.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="range"):
        x.quantile(1.5)
    with pytest.raises(RuntimeError, match="float or double"):
        mg.tensor([1, 2]).quantile(0.5)
    with pytest.raises(RuntimeError, match="same dtype"):
        x.quantile(mg.tensor([0.5], dtype=mg.float64))
    with pytest.raises(RuntimeError, match="interpolation"):
        x.quantile(0.5, interpolation="cubic")
    with pytest.raises(RuntimeError, match="1D"):
        x.quantile(mg.tensor([[0.5]]))


def test_cov_and_corrcoef_match_numpy(rng):
    a = rng.standard_normal((3, 6))
    fw = np.array([1, 2, 1, 1, 3, 1])
    aw = rng.uniform(0.5, 2.0, 6)
    got = mg.cov(mg.tensor(a), correction=0, fweights=mg.tensor(fw), aweights=mg.tensor(aw))
    np.testing.assert_allclose(got.numpy(), np.cov(a, ddof=0, fweights=fw, aweights=aw))
    np.testing.assert_allclose(mg.tensor(a).corrcoef().numpy(), np.corrcoef(a))
    np.testing.assert_allclose(mg.cov(mg.tensor(a[0])).item(), np.cov(a[0]))


def test_cov_errors():
    with pytest.raises(RuntimeError, match="two or fewer"):
        mg.cov(mg.zeros(2, 2, 2))
    with pytest.raises(RuntimeError, match="integral"):
        mg.cov(mg.zeros(2, 3), fweights=mg.tensor([1.0, 1.0, 1.0]))
    with pytest.raises(RuntimeError, match="negative"):
        mg.cov(mg.zeros(2, 3), aweights=mg.tensor([1.0, -1.0, 1.0]))


def test_numpy_keyword_spellings(torch):
    a = np.arange(12.0).reshape(3, 4)
    for text in (
        "lib.quantile(x, 0.5, axis=1, keepdims=True)",
        "x.nanquantile(0.2, axis=0)",
        "x.mode(axis=1).values",
        "lib.nanmedian(x, axis=0, keepdims=True).values",
    ):
        got = eval(text, {"lib": mg, "x": mg.tensor(a)})
        ref = eval(text, {"lib": torch, "x": torch.tensor(a)})
        np.testing.assert_allclose(got.numpy(), ref.numpy())

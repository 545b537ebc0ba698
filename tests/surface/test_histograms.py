"""Histograms (minigrad/surface/histograms.py) beyond the OpInfo entries: NumPy's
``histogram`` / ``histogramdd`` as the reference without PyTorch, the ranges PyTorch
picks for constant or empty data, and its errors."""

import numpy as np
import pytest

import minigrad as mg


def test_histogram_matches_numpy(rng):
    a = rng.standard_normal(200)
    w = rng.uniform(0, 1, 200)
    hist, edges = mg.histogram(mg.tensor(a), 7, weight=mg.tensor(w), density=True)
    ref, ref_edges = np.histogram(a, 7, weights=w, density=True)
    np.testing.assert_allclose(edges.numpy(), ref_edges)
    np.testing.assert_allclose(hist.numpy(), ref)
    hist, _ = mg.tensor(a).histogram(mg.tensor([-1.0, 0.0, 0.3, 2.0], dtype=mg.float64))
    np.testing.assert_array_equal(hist.numpy(), np.histogram(a, [-1.0, 0.0, 0.3, 2.0])[0])


def test_histogramdd_matches_numpy(rng):
    pts = rng.standard_normal((100, 3))
    hist, edges = mg.histogramdd(mg.tensor(pts), [2, 3, 4], density=True)
    ref, ref_edges = np.histogramdd(pts, [2, 3, 4], density=True)
    np.testing.assert_allclose(hist.numpy(), ref)
    for e, r in zip(edges, ref_edges):
        np.testing.assert_allclose(e.numpy(), r)


def test_histc_counts_the_last_edge_and_leaves_out_the_rest():
    x = mg.tensor([0.0, 1.0, 2.0, 3.0, 4.0, -1.0])
    assert mg.histc(x, 4, min=0, max=4).tolist() == [1.0, 1.0, 1.0, 2.0]
    assert mg.histc(mg.tensor([1.0, 1.0]), 2).tolist() == [0.0, 2.0]  # range 0..2


@pytest.mark.parametrize(
    "text",
    [
        "lib.histc(lib.tensor([1.0, 1.0]), 3)",
        "lib.histogram(lib.tensor([1.0, 1.0]), 2)",
        "lib.histogram(lib.tensor([], dtype=lib.float32), 2)",
        "lib.histc(lib.tensor([], dtype=lib.float32), 3)",
        "lib.histogram(lib.tensor([0.0, 1.0, 2.0]), 2, range=(0.0, 1.0))",
    ],
)
def test_ranges_as_pytorch(text, torch):
    got, ref = eval(text, {"lib": mg}), eval(text, {"lib": torch})
    for g, r in zip(
        got if isinstance(got, tuple) else (got,), ref if isinstance(ref, tuple) else (ref,)
    ):
        np.testing.assert_allclose(g.numpy(), r.numpy())


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("mg.histc(mg.tensor([1, 2]), 3)", NotImplementedError),
        ("mg.histc(mg.tensor([1.0, 2.0]), 0)", RuntimeError),
        ("mg.histc(mg.tensor([1.0, 2.0]), 3, min=3, max=1)", RuntimeError),
        ("mg.histc(mg.tensor([1.0, float('nan')]), 3)", RuntimeError),
        ("mg.histc(mg.tensor([1.0, float('inf')]), 3)", RuntimeError),
        ("mg.histogramdd(mg.zeros(3, 2), [2, 2, 2])", RuntimeError),
    ],
)
def test_errors(text, error):
    with pytest.raises(error):
        eval(text)


def test_histogram_takes_pytorchs_default_of_100_bins(torch):
    """``torch.histogram(t, density=True)`` (makemore part 3): bins defaults to 100."""
    a = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    hist, edges = mg.histogram(mg.tensor(a), density=True)
    theirs = torch.histogram(torch.from_numpy(a), density=True)
    assert hist.shape == (100,) and edges.shape == (101,)
    np.testing.assert_allclose(hist.numpy(), theirs.hist.numpy(), rtol=1e-5)
    np.testing.assert_allclose(edges.numpy(), theirs.bin_edges.numpy(), rtol=1e-6)


def test_decreasing_edges_count_nothing_as_in_pytorch():
    """PyTorch does not check the order of given edges: a value is counted only between
    the first and the last edge, so edges whose first is above their last count none."""
    hist, _ = mg.histogram(mg.tensor([1.0, 1.5]), mg.tensor([2.0, 1.0]))
    assert hist.tolist() == [0.0]
    hist, _ = mg.histogramdd(
        mg.tensor([[1.0, 2.0]]), [mg.tensor([3.0, 0.0]), mg.tensor([0.0, 5.0])]
    )
    assert hist.tolist() == [[0.0]]

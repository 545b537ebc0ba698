"""Combinations, runs and flat positions (minigrad/surface/enumeration.py) beyond the OpInfo
entries: itertools and NumPy as the reference, the gradient of ``combinations``,
PyTorch's edge cases and errors."""

import itertools

import numpy as np
import pytest

import minigrad as mg


@pytest.mark.parametrize(("n", "r"), [(4, 2), (5, 3), (3, 1), (2, 3), (0, 2)])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations_match_itertools(n, r, with_replacement):
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    got = mg.combinations(mg.arange(n), r, with_replacement)
    assert got.shape == (len(list(pick(range(n), r))), r)
    assert got.tolist() == [list(c) for c in pick(range(n), r)]


def test_combinations_gradient_adds_up_repeats():
    x = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64, requires_grad=True)
    mg.combinations(x, 2, with_replacement=True).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0]  # each element appears 4 times


def test_combinations_edge_cases(torch):
    for text in (
        "lib.combinations(lib.tensor([1.0, 2.0]), 0)",
        "lib.combinations(lib.tensor([1.0, 2.0]), 3)",
    ):
        got, ref = eval(text, {"lib": mg}), eval(text, {"lib": torch})
        assert got.shape == tuple(ref.shape)
    with pytest.raises(RuntimeError):
        mg.combinations(mg.zeros(2, 2))


def test_unique_consecutive_without_torch():
    x = mg.tensor([[1, 1, 2], [2, 2, 1]])
    out, inverse, counts = mg.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert out.tolist() == [1, 2, 1] and counts.tolist() == [2, 3, 1]
    assert inverse.tolist() == [[0, 0, 1], [1, 1, 2]]
    out, inverse = x.unique_consecutive(return_inverse=True, dim=0)
    assert out.tolist() == [[1, 1, 2], [2, 2, 1]] and inverse.tolist() == [0, 1]


def test_unravel_index():
    rows, cols = mg.unravel_index(mg.tensor([[0, 5], [-1, 4]]), (2, 3))
    np.testing.assert_array_equal(rows.numpy(), [[0, 1], [1, 1]])
    np.testing.assert_array_equal(cols.numpy(), [[0, 2], [2, 1]])
    assert rows.dtype == mg.int64
    # out of range is an error here (PyTorch 2.13 wraps it around silently)
    with pytest.raises(RuntimeError, match="range"):
        mg.unravel_index(mg.tensor([6]), (2, 3))
    with pytest.raises(TypeError):
        mg.unravel_index(mg.tensor([1.0]), (2, 3))

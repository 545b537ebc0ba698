"""nn.init's orthogonal_, dirac_, sparse_ and the deprecated names without the trailing
underscore: properties that hold for every draw (random draws cannot match PyTorch's),
dirac_ equal to PyTorch's, errors with PyTorch's classes."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.nn import init


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (2, 3, 2)])
def test_orthogonal_rows_or_columns_are_orthonormal_times_gain(shape):
    w = init.orthogonal_(mg.empty(*shape, dtype=mg.float64), gain=1.5)
    flat = w.numpy().reshape(shape[0], -1)
    small = min(flat.shape)
    gram = flat @ flat.T if flat.shape[0] == small else flat.T @ flat
    np.testing.assert_allclose(gram, 2.25 * np.eye(small), atol=1e-12)


def test_orthogonal_uses_the_generator():
    a = init.orthogonal_(mg.empty(4, 4), generator=mg.Generator().manual_seed(3))
    b = init.orthogonal_(mg.empty(4, 4), generator=mg.Generator().manual_seed(3))
    assert np.array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("shape,groups", [((4, 4, 3), 1), ((6, 3, 3, 3), 2), ((2, 5, 1, 3, 3), 1)])
def test_dirac_matches_pytorch(torch, shape, groups):
    expected = torch.nn.init.dirac_(torch.empty(shape), groups).numpy()
    got = init.dirac_(mg.empty(*shape), groups).numpy()
    assert np.array_equal(got, expected)


def test_dirac_weight_passes_channels_through():
    w = init.dirac_(mg.empty(3, 3, 5)).numpy()
    assert w.sum() == 3 and all(w[c, c, 2] == 1 for c in range(3))


def test_sparse_zeroes_the_same_count_in_every_column():
    w = init.sparse_(mg.empty(10, 6, dtype=mg.float64), sparsity=0.25, std=0.5).numpy()
    assert ((w == 0).sum(0) == 3).all()
    assert 0.2 < w[w != 0].std() < 1.0


@pytest.mark.parametrize("name", ["uniform", "normal", "xavier_uniform", "kaiming_normal"])
def test_deprecated_names_warn_and_fill(name):
    w = mg.zeros(3, 4)
    with pytest.warns(FutureWarning, match=f"{name}_"):
        out = getattr(init, name)(w)
    assert out is w and (w.numpy() != 0).any()


@pytest.mark.parametrize(
    "call",
    [
        lambda: init.orthogonal_(mg.empty(3)),
        lambda: init.dirac_(mg.empty(3, 3)),
        lambda: init.dirac_(mg.empty(3, 3, 3), groups=2),
        lambda: init.sparse_(mg.empty(3, 3, 3), 0.1),
    ],
)
def test_bad_shapes_are_value_errors(call):
    with pytest.raises(ValueError):
        call()

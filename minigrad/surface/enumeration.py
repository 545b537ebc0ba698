"""Enumerating elements and positions, as PyTorch does: ``combinations``,
``unique_consecutive`` and ``unravel_index``.

``combinations`` is an index into its input (the gradient goes back to the picked
elements, adding up where an element is picked several times); the others return
values and positions without gradient.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from minigrad.functions import reduction as R
from minigrad.tensor import Tensor, as_tensor


def _const(array) -> Tensor:
    return Tensor._make(np.asarray(array), False, None)


def combinations(input, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of the elements of a 1-D tensor, one per row, in
    lexicographic order of positions (as ``itertools.combinations``, or
    ``combinations_with_replacement``).

    Shape: ``(n,) -> (C, r)`` with ``C = binom(n, r)`` (``binom(n + r - 1, r)`` with
    replacement).

    Example::

        >>> mg.combinations(mg.tensor([1, 2, 3]))
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
    """
    x = as_tensor(input)
    if x.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(x.shape)}")
    if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _const(np.empty((0,), x.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(x.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return x[idx]


def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """The input with each run of equal consecutive elements (or slices along ``dim``)
    kept once; with ``return_inverse`` also the run of each element, with
    ``return_counts`` the length of each run.

    Example::

        >>> mg.unique_consecutive(mg.tensor([1, 1, 2, 2, 3, 1, 1]))
        tensor([1, 2, 3, 1])
    """
    x = as_tensor(input)
    data = x._data
    if dim is None:
        flat = data.reshape(-1)
        starts = np.ones(flat.shape[0], bool)
        starts[1:] = flat[1:] != flat[:-1]
        out = flat[starts]
        inverse = (np.cumsum(starts) - 1).reshape(data.shape)
    else:
        (d,) = R.normalize_dims(dim, data.ndim)
        rest = int(np.prod([n for i, n in enumerate(data.shape) if i != d]))
        slices = np.moveaxis(data, d, 0).reshape(data.shape[d], rest)  # (-1 fails on size 0)
        starts = np.ones(slices.shape[0], bool)
        starts[1:] = np.any(slices[1:] != slices[:-1], axis=1)
        out = np.compress(starts, data, axis=d)
        inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), starts.shape[0]))
    result = [_const(out)]
    if return_inverse:
        result.append(_const(inverse.astype(np.int64)))
    if return_counts:
        result.append(_const(counts.astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)


def unravel_index(indices, shape) -> tuple:
    """The coordinates in a tensor of ``shape`` of the flat ``indices`` (negative ones
    count from the end): one int64 tensor per dim, each shaped like ``indices``."""
    idx = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if idx.dtype.kind not in "iu" or idx.dtype == np.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {idx.dtype}")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if any(int(s) < 0 for s in shape):
        raise RuntimeError("'shape' cannot have negative values, but got " + str(list(shape)))
    size = math.prod(shape)
    if idx.size and (idx.min() < -size or idx.max() >= size):
        raise RuntimeError(f"'indices' must be in range [{-size}, {size - 1}]")
    idx = np.where(idx < 0, idx + size, idx).astype(np.int64)
    coords = np.unravel_index(idx, shape) if shape else ()
    return tuple(_const(np.asarray(c, np.int64)) for c in coords)


METHODS = ["unique_consecutive"]
FUNCTIONS = ["combinations", "unique_consecutive", "unravel_index"]

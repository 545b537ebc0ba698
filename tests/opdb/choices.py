"""Outputs PyTorch documents as unique only up to a choice, compared up to that choice.

- **Indices of ties** (``topk``, ``sort``, ``kthvalue``, ``mode``, ``max(dim)`` ...): when
  equal values compete, PyTorch does not promise which index it returns. Minigrad's
  indices pass when they are valid and pick the same values PyTorch's pick.
- **Signs of singular and eigen vectors** (``svd``, ``linalg.svd``, ``linalg.eigh``):
  each vector is unique only up to its sign (the samples have distinct singular values
  and eigenvalues), and with ``full_matrices=True`` the columns past the rank are any
  orthonormal basis of the same subspace. Minigrad's vectors pass when, after each is
  given the sign that agrees with PyTorch's, they match, and the extra columns span the
  same subspace (their projectors match).

Each comparer takes ``(torch, got, want, sample, compare)`` where ``compare(got, want)``
is the plain comparison of :mod:`runner` (values within the tolerance), and returns
``None`` or the Result of the first mismatch.
"""

from __future__ import annotations

import numpy as np

import minigrad as mg


def _dim_of(sample, position: int, default):
    if "dim" in sample.kwargs:
        return sample.kwargs["dim"]
    if len(sample.args) > position:
        return sample.args[position]
    return default


def ties(position: int, default=-1, indices: int = 1):
    """Compare an op whose output number ``indices`` indexes the input along ``dim``
    (``sample.kwargs['dim']``, else ``sample.args[position]``, else ``default``); its
    other outputs (the values) are compared as usual."""

    def compare(torch, got, want, sample, plain):
        if not isinstance(want, (tuple, list)) and indices != 0:
            return plain(got, want)  # no indices in this form (median without dim)
        got_t = tuple(got) if isinstance(got, (tuple, list)) else (got,)
        want_t = tuple(want) if isinstance(want, (tuple, list)) else (want,)
        if len(got_t) != len(want_t):
            return plain(got, want)
        others = [i for i in range(len(want_t)) if i != indices]
        problem = plain(tuple(got_t[i] for i in others), tuple(want_t[i] for i in others))
        if problem is not None:
            return problem
        gi, wi = got_t[indices], want_t[indices]
        problem = plain(gi, wi, meta_only=True)
        if problem is not None:
            return problem
        x = sample.input.detach().numpy(force=True)
        g = gi.numpy()
        w = wi.detach().numpy(force=True)
        if x.ndim == 0:
            return plain(gi, wi)
        dim = _dim_of(sample, position, default)
        if dim is None:
            return plain(gi, wi)
        dim %= x.ndim
        if g.ndim < x.ndim:  # a reduction without keepdim: the dim comes back
            g, w = np.expand_dims(g, dim), np.expand_dims(w, dim)
        if g.size and (g.min() < 0 or g.max() >= x.shape[dim]):
            return plain(gi, wi)
        picked_g = np.take_along_axis(x, g, dim)
        picked_w = np.take_along_axis(x, w, dim)
        same = (picked_g == picked_w) | (np.isnan(picked_g) & np.isnan(picked_w))
        return None if same.all() else plain(gi, wi)

    return compare


def _align(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """``got``'s columns (last-but-one axis holds the rows) with the sign that agrees
    with ``want``'s: each column times the sign of its dot product with want's."""
    dots = np.sum(got * want, axis=-2, keepdims=True)
    return np.where(dots < 0, -got, got)


def _structure_and_values(plain, got, want, values: int):
    """The first mismatch of the outputs' dtypes and shapes, or of output number
    ``values`` (the singular values, the eigenvalues) compared as usual; None if none."""
    problem = plain(got, want, meta_only=True)
    if problem is None:
        problem = plain(got[values], want[values])
    return problem


def _plain_arrays(torch, plain, got: np.ndarray, want: np.ndarray):
    """The plain comparison of two NumPy arrays: minigrad's and PyTorch's."""
    return plain(mg.tensor(got), torch.from_numpy(np.ascontiguousarray(want)))


def svd_vectors(vh_is_transposed: bool):
    """``torch.svd`` returns ``(U, S, V)``; ``torch.linalg.svd`` returns ``(U, S, Vh)``
    (``vh_is_transposed``)."""

    def compare(torch, got, want, sample, plain):
        problem = _structure_and_values(plain, got, want, 1)
        if problem is not None:
            return problem
        k = want[1].shape[-1]
        gu, wu = got[0].numpy(), want[0].detach().numpy(force=True)
        gv, wv = got[2].numpy(), want[2].detach().numpy(force=True)
        if vh_is_transposed:
            gv, wv = np.swapaxes(gv, -1, -2), np.swapaxes(wv, -1, -2)
        flip = np.sum(gu[..., :k] * wu[..., :k], axis=-2, keepdims=True) < 0
        pairs = [
            (np.where(flip, -gu[..., :k], gu[..., :k]), wu[..., :k]),
            (np.where(flip, -gv[..., :k], gv[..., :k]), wv[..., :k]),
            (_projector(gu[..., k:]), _projector(wu[..., k:])),
            (_projector(gv[..., k:]), _projector(wv[..., k:])),
        ]
        for g, w in pairs:
            problem = _plain_arrays(torch, plain, g, w)
            if problem is not None:
                return problem
        return None

    return compare


def _projector(q: np.ndarray) -> np.ndarray:
    return q @ np.swapaxes(q, -1, -2)


def eigh_vectors(torch, got, want, sample, plain):
    """``linalg.eigh``: ``(eigenvalues, eigenvectors)``, each vector up to its sign."""
    problem = _structure_and_values(plain, got, want, 0)
    if problem is not None:
        return problem
    w = want[1].detach().numpy(force=True)
    return _plain_arrays(torch, plain, _align(got[1].numpy(), w), w)


#: OpInfo key -> its comparer.
CHOICES = {
    "topk": ties(1),
    "kthvalue": ties(1),
    "mode": ties(0),
    "median": ties(0, None),
    "nanmedian": ties(0, None),
    "max.reduction_with_dim": ties(0, None),
    "min.reduction_with_dim": ties(0, None),
    "sort": ties(0),
    "argsort": ties(0, indices=0),
    "cummax": ties(0, None),
    "cummin": ties(0, None),
    "svd": svd_vectors(vh_is_transposed=False),
    "linalg.svd": svd_vectors(vh_is_transposed=True),
    "linalg.eigh": eigh_vectors,
}

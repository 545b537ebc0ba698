"""``embedding_bag``: the sum, mean or max of the embeddings of each bag of indices,
without building the ``(bags, indices, dim)`` tensor of a plain lookup first.

Bags are the rows of a 2-D ``input`` ``(B, N)``, or, for a 1-D ``input``, the slices
``input[offsets[b]:offsets[b + 1]]`` (the last running to the end, unless
``include_last_offset``). Entries equal to ``padding_idx`` are left out (a mean divides by
the other entries' count); an empty bag gives zeros. ``per_sample_weights`` (mode
``'sum'`` only) scales each entry's vector. A sum (and a mean) is one product of a
bag-membership matrix with the looked-up rows, so autograd differentiates it.
"""

from __future__ import annotations

import numpy as np

from minigrad.functions.errors import DtypeError
from minigrad.nn.functional.linear import Embedding, grad_scale_by_freq, renorm_rows_
from minigrad.printing import torch_dtype_name
from minigrad.tensor import Tensor, as_tensor
from minigrad.unsupported import refused

__all__ = ["embedding_bag"]


def _bags(index: np.ndarray, offsets, include_last_offset: bool) -> list[tuple[int, int]]:
    """``(start, end)`` of each bag of a 1-D input."""
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    starts = [int(o) for o in np.asarray(as_tensor(offsets).numpy()).reshape(-1)]
    if include_last_offset:
        ends = starts[1:]
        starts = starts[:-1]
    else:
        ends = starts[1:] + [index.size]
    if starts and (starts[0] != 0 or any(b < a for a, b in zip(starts, ends))):
        raise ValueError("offsets[0] has to be 0 and offsets must be non-decreasing")
    return list(zip(starts, ends))


def embedding_bag(
    input,
    weight: Tensor,
    offsets=None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights=None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """Reduce each bag's embeddings (see the module docstring).

    Shape: ``input`` ``(B, N)`` (``offsets`` None) or ``(L,)`` with ``offsets`` ``(B,)``
    (``B + 1`` with ``include_last_offset``); ``weight`` ``(num_embeddings, D)`` ->
    ``(B, D)``.
    """
    if sparse:
        raise refused("embedding_bag(sparse=True), a sparse gradient,", "sparse")
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
    if scale_grad_by_freq and mode == "max":
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    w = as_tensor(weight)
    if w.dtype.kind != "f":
        raise DtypeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar "
            f"types: Half, Float, Double; but got {torch_dtype_name(w.dtype)} instead"
        )
    index = np.asarray(as_tensor(input).numpy())
    if index.dtype.kind not in "iu":
        raise TypeError(f"embedding_bag: input must hold integer indices, got {index.dtype}")
    if index.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None")
        n = index.shape[1]
        bags = [(b * n, (b + 1) * n) for b in range(index.shape[0])]
        index = index.reshape(-1)
    elif index.ndim == 1:
        bags = _bags(index, offsets, include_last_offset)
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {index.ndim}"
        )
    if index.size and (index.min() < 0 or index.max() >= w.shape[0]):
        raise IndexError(f"embedding_bag: an index is out of range for {w.shape[0]} embeddings")
    keep = np.ones(index.size, dtype=bool)
    if padding_idx is not None:
        keep = index != padding_idx % w.shape[0]
    if max_norm is not None:
        renorm_rows_(w, index, max_norm, norm_type)
    scale = grad_scale_by_freq(index, w.shape[0]) if scale_grad_by_freq else None
    rows = Embedding.apply(w, index, None, scale)  # (L, D)
    if per_sample_weights is not None:
        rows = rows * as_tensor(per_sample_weights).reshape(-1, 1)
    if mode == "max":
        from minigrad.ops import stack

        out = []
        for start, end in bags:
            members = np.nonzero(keep[start:end])[0] + start
            if members.size:
                out.append(rows[members].amax(0))
            else:
                out.append(Tensor(np.zeros(w.shape[1], dtype=w.dtype)))
        return stack(out) if out else Tensor(np.zeros((0, w.shape[1]), dtype=w.dtype))
    membership = np.zeros((len(bags), index.size), dtype=w.dtype)
    for b, (start, end) in enumerate(bags):
        membership[b, start:end] = keep[start:end]
    if mode == "mean":
        counts = membership.sum(1, keepdims=True)
        membership = membership / np.maximum(counts, 1)
    return Tensor(membership) @ rows

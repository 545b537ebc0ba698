"""``nn.utils.rnn``: batches of sequences of different lengths, padded or packed.

Every transformer program that batches variable-length sequences pads them
(``pad_sequence``); the packed form (``PackedSequence``) is what PyTorch's recurrent
layers read, and these functions build and undo it whether or not a recurrent layer
follows (minigrad has none: see ``unsupported.json``). All of them are made of tensor
operations (indexing, ``cat``, ``stack``), so gradients flow through them.

Layouts, for a batch of ``B`` sequences of lengths ``L_b`` (each of shape ``(L_b, *)``)
and ``T = max L_b``:

- padded: ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first=True``; each sequence is
  followed (``padding_side="right"``) or preceded (``"left"``) by ``padding_value``;
- packed: ``data`` of shape ``(sum L_b, *)`` holds the sequences time step by time step,
  the longest first: step 0 of every sequence, then step 1 of those that have one, ...;
  ``batch_sizes[t]`` is how many sequences have a step ``t``. Sequences are sorted by
  decreasing length first; ``sorted_indices`` says how (``None`` when the caller
  promised sorted input with ``enforce_sorted=True``), ``unsorted_indices`` undoes it.

Example::

    >>> a, b = mg.tensor([1.0, 2.0, 3.0]), mg.tensor([4.0, 5.0])
    >>> pad_sequence([a, b], batch_first=True)
    tensor([[1., 2., 3.],
            [4., 5., 0.]])
    >>> pack_sequence([a, b]).data
    tensor([1., 4., 2., 5., 3.])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from minigrad import dtypes
from minigrad.creation import full, tensor
from minigrad.ops import cat, stack
from minigrad.tensor import FloatCasts, Tensor, as_tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


class _PackedFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedFields, FloatCasts):
    """A packed batch of sequences (see the module docstring): a named tuple of ``data``,
    ``batch_sizes``, ``sorted_indices`` and ``unsorted_indices``. Build it with
    :func:`pack_padded_sequence` or :func:`pack_sequence`; ``to``, ``float`` ... convert
    ``data`` and keep the rest, as PyTorch's."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._replace(data=data)

    def long(self) -> PackedSequence:
        return self.to(dtypes.int64)

    def int(self) -> PackedSequence:
        return self.to(dtypes.int32)

    def cpu(self) -> PackedSequence:
        return self

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (``None`` stays ``None``)."""
    if permutation is None:
        return None
    inverse = np.empty_like(permutation.numpy())
    inverse[permutation.numpy()] = np.arange(len(inverse))
    return tensor(inverse)


def _lengths(lengths) -> np.ndarray:
    arr = np.asarray(lengths.numpy() if isinstance(lengths, Tensor) else lengths)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise RuntimeError(f"'lengths' argument should be a 1D int64 tensor or list, got {arr!r}")
    if arr.size and arr.min() <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    return arr.astype(np.int64)


def pad_sequence(
    sequences: Tensor | list[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of shapes ``(L_b, *)`` into one ``(T, B, *)`` tensor (``(B, T, *)``
    with ``batch_first``), each padded with ``padding_value`` on ``padding_side`` up to
    the longest length ``T``."""
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    tail = tuple(sequences[0].shape[1:])
    for s in sequences:
        if tuple(s.shape[1:]) != tail:
            raise RuntimeError(
                f"The size of tensor a ({tail}) must match the size of tensor b "
                f"({tuple(s.shape[1:])}) at non-singleton dimension 1"
            )
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        pad = full((longest - s.shape[0], *tail), padding_value, dtype=s.dtype)
        rows.append(cat([s, pad] if padding_side == "right" else [pad, s], 0))
    return stack(rows, 0 if batch_first else 1)  # (B, T, *) or (T, B, *)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list[Tensor]:
    """The sequences of a right-padded batch, each cut to its length."""
    padded = padded_sequences if batch_first else padded_sequences.transpose(0, 1)  # (B, T, *)
    return [padded[b, :n] for b, n in enumerate(_lengths(lengths).tolist())]


def pack_padded_sequence(
    input: Tensor,
    lengths,
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose
    sequences have ``lengths``; with ``enforce_sorted`` they must already be sorted by
    decreasing length."""
    n = _lengths(lengths)
    if enforce_sorted:
        if np.any(n[:-1] < n[1:]):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
        order = None
    else:
        order = np.argsort(-n, kind="stable")
        n = n[order]
    x = as_tensor(input)
    x = x.transpose(0, 1) if batch_first else x  # (T, B, *)
    if len(n) != x.shape[1]:
        raise ValueError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(n)} "
            f"(batch_size={x.shape[1]})"
        )
    if n.size and n[0] > x.shape[0]:
        raise RuntimeError(
            f"Expected the padded input to hold the longest sequence ({n[0]} steps), "
            f"got {x.shape[0]}"
        )
    if order is not None:
        x = x[:, order]
    batch_sizes = np.array([(n > t).sum() for t in range(int(n[0]) if n.size else 0)], np.int64)
    data = cat([x[t, :b] for t, b in enumerate(batch_sizes.tolist())], 0)
    sorted_indices = None if order is None else tensor(order.astype(np.int64))
    return PackedSequence(data, tensor(batch_sizes), sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo :func:`pack_padded_sequence`: the padded batch, in the caller's order, and the
    lengths (an int64 tensor), padded to ``total_length`` steps if given."""
    data, batch_sizes = sequence.data, sequence.batch_sizes.numpy()
    steps, batch = len(batch_sizes), int(batch_sizes[0]) if len(batch_sizes) else 0
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
    else:
        total_length = steps
    tail = tuple(data.shape[1:])
    rows, start = [], 0
    for b in batch_sizes.tolist():  # step t holds the first b sequences
        step = data[start : start + b]
        pad = full((batch - b, *tail), padding_value, dtype=data.dtype)
        rows.append(cat([step, pad], 0))
        start += b
    rows += [full((batch, *tail), padding_value, dtype=data.dtype)] * (total_length - steps)
    padded = stack(rows, 0)  # (T, B, *), sorted order
    lengths = np.array([(batch_sizes > i).sum() for i in range(batch)], np.int64)
    if sequence.unsorted_indices is not None:
        back = sequence.unsorted_indices.numpy()
        padded, lengths = padded[:, back], lengths[back]
    return (padded.transpose(0, 1) if batch_first else padded), tensor(lengths)


def pack_sequence(sequences: Iterable[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_b, *)``: :func:`pad_sequence` then
    :func:`pack_padded_sequence`."""
    sequences = list(sequences)
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """Undo :func:`pack_sequence`: the list of sequences, in the caller's order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)

"""``default_collate`` and ``default_convert``: how a ``DataLoader`` turns samples into
batches, as ``torch.utils.data.default_collate`` / ``default_convert``.

``default_collate(batch)`` looks at the first sample, ``batch[0]``, and recurses into
its structure; every sample must have the same structure:

===========================  ===================================================
first sample                 batch
===========================  ===================================================
Tensor                       the tensors stacked along a new first dim
NumPy array (numbers)        the arrays as tensors, stacked
NumPy scalar / 0-d array     a 1-d tensor
Python ``float``             a float64 tensor
Python ``int`` or ``bool``   a tensor of the promoted type (below)
``str`` / ``bytes``          the batch as it came (a list of strings)
Mapping                      the same mapping type, each key collated
named tuple                  the same named tuple, each field collated
tuple, list, other sequence  a list (a list: the same type) of collated fields
===========================  ===================================================

Type promotion across samples, as PyTorch's: a batch's dtype is the highest category
present (bool < integer < floating point < complex) and, within that category, the
widest dtype among the samples of that category (``uint8`` with ``int8`` gives
``int16``). A Python ``int`` counts as int64, a Python ``bool`` as bool, a Python
``float`` as float32 (PyTorch's default dtype) — except that a batch whose first sample
is a Python ``float`` is always float64. So ``[1, 2.5]`` is float32 ``[1.0, 2.5]``,
``[2.5, 1]`` float64, ``[True, 2]`` int64 ``[1, 2]``, ``[True, False]`` bool; and
float16 arrays with int64 arrays give float16.

Errors (PyTorch's classes): an empty batch is an ``IndexError``; samples of different
shapes (``stack expects each tensor to be equal size``) or sequences of different
lengths a ``RuntimeError``; a missing dict key a ``KeyError``; a Python int outside
int64 a ``ValueError``; a type that cannot be batched (``None``, a set, an object, an
array of strings or objects) or samples of different kinds a ``TypeError``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence

import numpy as np

from minigrad.tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_NUMERIC_KINDS = "biufc"  # bool, signed, unsigned, float, complex
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_INT64 = np.iinfo(np.int64)
_UNSUPPORTED = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def promote_types(dtypes) -> np.dtype:
    """PyTorch's promotion of several dtypes: the highest category wins, and within it
    NumPy's promotion of that category's dtypes (the same as PyTorch's there)."""
    dtypes = [np.dtype(d) for d in dtypes]
    top = max(_CATEGORY[d.kind] for d in dtypes)
    return np.result_type(*[d for d in dtypes if _CATEGORY[d.kind] == top])


def _is_numpy(x) -> bool:
    """A NumPy array or scalar (NumPy's strings count as strings, as in PyTorch)."""
    return isinstance(x, (np.ndarray, np.generic)) and not isinstance(x, (str, bytes))


def _scalar_dtype(x, i: int) -> np.dtype:
    """The dtype that sample ``i``, a number, brings to the promotion."""
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, (np.generic, np.ndarray)) and np.ndim(x) == 0:
        if x.dtype.kind not in _NUMERIC_KINDS:
            raise TypeError(_UNSUPPORTED.format(type(x)))
        return x.dtype
    if isinstance(x, int):
        if not _INT64.min <= x <= _INT64.max:
            raise ValueError(f"default_collate: the int {x} at entry {i} does not fit in int64")
        return np.dtype(np.int64)
    if isinstance(x, float):
        return np.dtype(np.float32)
    if x is None:
        raise RuntimeError(f"default_collate: could not infer the dtype of None at entry {i}")
    raise TypeError(
        f"default_collate: entry 0 of the batch is a number but entry {i} is a "
        f"{type(x).__name__}; every sample must have the same structure"
    )


def _collate_numbers(batch) -> Tensor:
    """Python numbers and NumPy scalars (the first sample says which)."""
    dtypes = [_scalar_dtype(x, i) for i, x in enumerate(batch)]
    if isinstance(batch[0], float) and not _is_numpy(batch[0]):
        dtype = np.dtype(np.float64)  # PyTorch: a batch led by a Python float is float64
        if any(d.kind == "c" for d in dtypes):
            raise TypeError("default_collate: a batch of floats cannot hold a complex number")
    else:
        dtype = promote_types(dtypes)
    return Tensor._make(np.array(list(batch), dtype=dtype), False, None)


def _as_batch_tensor(x, i: int, first_is_tensor: bool) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic)) and not first_is_tensor:
        if x.dtype.kind not in _NUMERIC_KINDS:
            raise TypeError(_UNSUPPORTED.format(x.dtype))
        return Tensor._make(np.asarray(x), False, None)
    expected = "a Tensor" if first_is_tensor else "a NumPy array or a Tensor"
    raise TypeError(
        f"default_collate: expected {expected} at entry {i} of the batch (like entry 0), "
        f"but got {type(x).__name__}"
    )


def _stack(batch) -> Tensor:
    """Tensors (or NumPy arrays) of one shape, stacked along a new first dim with the
    promoted dtype; differentiable through tensors that require grad."""
    from minigrad.ops import stack

    first_is_tensor = isinstance(batch[0], Tensor)
    tensors = [_as_batch_tensor(x, i, first_is_tensor) for i, x in enumerate(batch)]
    shape = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != shape:
            raise RuntimeError(
                f"default_collate: stack expects each tensor to be equal size, but got "
                f"{list(shape)} at entry 0 and {list(t.shape)} at entry {i}"
            )
    dtype = promote_types([t.dtype for t in tensors])
    return stack([t.to(dtype) for t in tensors], 0)


def _check_same_kind(batch, kind: type, what: str) -> None:
    for i, x in enumerate(batch):
        if not isinstance(x, kind) or isinstance(x, (str, bytes)):
            raise TypeError(
                f"default_collate: entry 0 of the batch is {what} but entry {i} is a "
                f"{type(x).__name__}; every sample must have the same structure"
            )


def _collate_mapping(batch):
    elem = batch[0]
    _check_same_kind(batch, Mapping, "a mapping")
    for i, d in enumerate(batch):
        for key in elem:
            if key not in d:
                raise KeyError(f"default_collate: key {key!r} of entry 0 is missing from entry {i}")
    return _mapping_like(elem, {key: default_collate([d[key] for d in batch]) for key in elem})


def _collate_sequence(batch):
    elem = batch[0]
    _check_same_kind(batch, Sequence, "a sequence")
    if any(len(x) != len(elem) for x in batch):
        raise RuntimeError("each element in list of batch should be of equal size")
    return _sequence_like(elem, [default_collate(samples) for samples in zip(*batch)])


def _mapping_like(like: Mapping, items: dict):
    """``items`` in a mapping of ``like``'s type: a copy of a mutable mapping (which keeps
    OrderedDict's or defaultdict's type and settings), another type built from the dict,
    or the dict itself if that fails."""
    if isinstance(like, MutableMapping):
        out = copy.copy(like)
        out.update(items)
        return out
    try:
        return type(like)(items)
    except TypeError:
        return items


def _sequence_like(like: Sequence, items: list):
    """``items`` in a sequence of ``like``'s type: the same named tuple; a list for a plain
    tuple (as PyTorch does); a copy of a mutable sequence; another type built from the
    list, or the list itself if that fails."""
    if isinstance(like, tuple) and hasattr(like, "_fields"):
        return type(like)(*items)
    if isinstance(like, tuple):
        return items
    if isinstance(like, MutableSequence):
        out = copy.copy(like)
        out[:] = items
        return out
    try:
        return type(like)(items)
    except TypeError:
        return items


def default_collate(batch):
    """Join a list of samples into a batch, as ``torch.utils.data.default_collate``.

    The rules (by the type of ``batch[0]``) and the type promotion across samples are
    in this module's docstring.

    Args:
        batch: a non-empty sequence of samples of one structure.

    Returns:
        The batch: a tensor with a new first dim of ``len(batch)``, or the samples'
        structure (dicts, named tuples, lists) with a tensor at each leaf.

    Example::

        >>> default_collate([(1, np.zeros(2)), (2.5, np.ones(2))])
        [tensor([1.0, 2.5]), tensor([[0., 0.], [1., 1.]], dtype=float64)]
    """
    if len(batch) == 0:
        raise IndexError("default_collate: the batch is empty (no samples to collate)")
    elem = batch[0]
    if isinstance(elem, Tensor) or (isinstance(elem, np.ndarray) and elem.ndim > 0):
        return _stack(batch)
    if _is_numpy(elem) or isinstance(elem, (bool, int, float)):
        if _is_numpy(elem) and elem.dtype.kind not in _NUMERIC_KINDS:
            raise TypeError(_UNSUPPORTED.format(elem.dtype if np.ndim(elem) else type(elem)))
        return _collate_numbers(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        return _collate_mapping(batch)
    if isinstance(elem, Sequence):
        return _collate_sequence(batch)
    raise TypeError(_UNSUPPORTED.format(type(elem)))


def default_convert(data):
    """Without batching (``batch_size=None``): NumPy arrays and scalars of numbers become
    tensors, inside dicts, named tuples and sequences too (a tuple becomes a list, as in
    PyTorch); everything else is returned as it is."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data):
        if data.dtype.kind in _NUMERIC_KINDS:
            return Tensor._make(np.asarray(data), False, None)
        return data
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, Mapping):
        return _mapping_like(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, Sequence):
        return _sequence_like(data, [default_convert(d) for d in data])
    return data

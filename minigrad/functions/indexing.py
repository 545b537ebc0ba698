"""Indexing, gather, where and masked_fill.

``x[idx]`` picks elements; its backward puts the gradient back where they came from,
into zeros of x's shape. With integer index arrays an element can be picked twice
(``x[[0, 0]]``), so the backward *adds* (``np.add.at``) rather than assigns.
"""

from __future__ import annotations

import warnings

import numpy as np

from minigrad.autograd import function as _function
from minigrad.autograd.function import _TENSOR_TYPES, Function
from minigrad.functions.broadcast import unbroadcast
from minigrad.functions.errors import ShapeError


def normalize_index(key):
    """Turn a Python index into one NumPy understands; say whether it is advanced.

    Tensors, arrays and Python sequences (lists, tuples inside the index, ``range``,
    nested lists) become integer or bool arrays, as ``torch.tensor(seq)`` would make
    them: anything that is an array makes the index "advanced" (it may repeat elements,
    and always copies). A list used as the whole index follows PyTorch's older NumPy
    rule (see :func:`_sequence_as_tuple`).
    """
    if not isinstance(key, tuple):
        if isinstance(key, (list, range)) and _sequence_as_tuple(key):
            key = tuple(key)
        else:
            key = (key,)
    out = []
    advanced = has_ellipsis = False
    for k in key:  # Ellipsis is checked by identity below, before the general cases
        if isinstance(k, _function.Tensor):
            k = k._data
        elif isinstance(k, (list, tuple, range)):
            k = _sequence_index(k)
        if isinstance(k, np.ndarray):
            if k.dtype.kind not in "iub":
                raise IndexError(
                    f"index: tensors used as indices must be integer or bool, got {k.dtype}"
                )
            advanced = True
        elif k is Ellipsis:
            has_ellipsis = True
        elif k is not None and not isinstance(k, (int, np.integer, slice)):
            raise IndexError(f"index: unsupported index element {k!r}")
        out.append(k)
    if not advanced and not has_ellipsis:
        out.append(Ellipsis)  # x[1] of a 1-d array is then a 0-d view, not a copied scalar
    return tuple(out), advanced


def _sequence_index(seq) -> np.ndarray:
    """A sequence used as an index element (``x[range(n), y]``, ``x[:, [[0, 1], [1, 2]]]``)
    as the integer or bool array ``torch.tensor(seq)`` would make: bools with integers
    count as integers, an empty sequence is an empty integer index."""
    items = [t._data if isinstance(t, _function.Tensor) else t for t in seq]
    try:
        arr = np.asarray(items)
    except ValueError:  # ragged nesting
        raise IndexError(f"index: a sequence of unequal lengths cannot index: {seq!r}") from None
    if arr.size == 0 and arr.dtype.kind == "f":
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iub":
        raise IndexError(
            "index: sequences used as indices must hold integers or bools, got "
            f"{arr.dtype} from {seq!r}"
        )
    return arr


def _sequence_as_tuple(seq) -> bool:
    """PyTorch's rule (NumPy's before 1.23): a list of fewer than 32 items that holds a
    slice, ``None``, ``...``, a tensor or another sequence is read as a tuple of indices,
    one per dim (``x[[0, [1, 2]]]`` is ``x[0, [1, 2]]``), with PyTorch's deprecation
    warning; any other list is one index array (``x[[0, 0, 2]]``)."""
    if isinstance(seq, range) or len(seq) >= 32:
        return False
    as_tuple = any(
        k is None or k is Ellipsis or isinstance(k, (slice, list, tuple, range, _function.Tensor))
        for k in seq
    )
    if as_tuple:
        warnings.warn(
            "Using a non-tuple sequence for multidimensional indexing is deprecated; use "
            "x[tuple(seq)] instead of x[seq] (as PyTorch warns)",
            UserWarning,
            stacklevel=4,
        )
    return as_tuple


def drop_leading_ones(value):
    """PyTorch's rule for ``t[key] = value``: the value's leading dims of size 1 are
    dropped before it is broadcast to ``t[key]`` (a ``(1, n)`` row goes into a ``(n,)``
    slot). A tensor keeps its history (the result is a view)."""
    shape = np.shape(value._data if isinstance(value, _function.Tensor) else value)
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    if k == 0:
        return value
    if isinstance(value, _function.Tensor):
        return value.reshape(shape[k:])
    return np.reshape(np.asarray(value), shape[k:])


def split_integers(key: tuple):
    """PyTorch's order for an index that mixes integers with index arrays.

    NumPy counts an integer as one more advanced index, so in ``x[0, :, [0, 1]]`` the
    broadcast dims of the advanced indices go first (shape (2, n)); PyTorch applies the
    integers first, as basic indexing, and then the arrays (shape (n, 2)). This returns
    the two keys of PyTorch's order, ``(integers, rest)``, or ``None`` when the key has
    no such mix (then NumPy and PyTorch agree).
    """
    ints = [isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in key]
    arrays = [isinstance(k, np.ndarray) for k in key]
    if not any(ints) or not any(arrays):
        return None
    first, rest = [], []
    for k, is_int in zip(key, ints):
        if is_int:
            first.append(k)  # consumes its dim; nothing left for the second step
        elif isinstance(k, np.ndarray):
            first.extend([slice(None)] * (k.ndim if k.dtype == np.bool_ else 1))
            rest.append(k)
        elif k is None:
            first.append(None)  # the new dim exists after the first step
            rest.append(slice(None))
        elif k is Ellipsis:
            first.append(Ellipsis)
            rest.append(Ellipsis)
        else:
            first.append(slice(None))
            rest.append(k)
    return tuple(first), tuple(rest)


class Index(Function):
    is_view = True  # a basic index (ints, slices, None, ...) gives a view

    @staticmethod
    def forward(ctx, x, key, advanced):
        ctx.in_shape = x._data.shape
        ctx.key, ctx.advanced = key, advanced
        try:
            return x._data[key]
        except IndexError as e:
            empty = _empty_selection(x._data, key) if advanced else None
            if empty is not None:  # PyTorch does not check the indices of an empty result
                ctx.key = tuple(np.zeros_like(k) if _is_int_array(k) else k for k in key)
                return empty
            raise IndexError(
                f"index {key!r} into a tensor of shape {list(x._data.shape)}: {e}"
            ) from None

    @staticmethod
    def backward(ctx, g):
        return IndexAdd.apply(g, ctx.in_shape, ctx.key, ctx.advanced), None, None

    @staticmethod
    def backward_array(ctx, g):
        return _index_add(g, ctx.in_shape, ctx.key, ctx.advanced), None, None


class IndexAdd(Function):
    """zeros(shape) with ``g`` added at ``key`` (the backward of ``Index``)."""

    @staticmethod
    def forward(ctx, g, shape, key, advanced):
        ctx.key, ctx.advanced = key, advanced
        return _index_add(g._data, shape, key, advanced)

    @staticmethod
    def backward(ctx, gg):
        return Index.apply(gg, ctx.key, ctx.advanced), None, None, None

    @staticmethod
    def backward_array(ctx, gg):
        return gg[ctx.key], None, None, None


class IndexPut(Function):
    """``x`` with ``x[key] = value``, out of place: what an assignment with index arrays
    writes (``t[idx] = v``). Backward: ``value`` gets the gradient at ``key``, ``x`` the
    rest (the elements it kept)."""

    @staticmethod
    def forward(ctx, x, key, value):
        v = value._data if type(value) in _TENSOR_TYPES else value
        out = x._data.copy()
        try:
            out[key] = v
        except (IndexError, ValueError) as e:
            where = f"index {key!r} into a tensor of shape {list(x._data.shape)}"
            raise type(e)(f"{where}: {e}") from None
        ctx.key, ctx.value_shape = key, np.shape(v)
        kept = np.ones(out.shape, dtype=bool)
        kept[key] = False
        ctx.kept = kept
        return out

    @staticmethod
    def backward(ctx, g):
        g_value = None
        if ctx.needs_input_grad[2]:
            g_value = unbroadcast(Index.apply(g, ctx.key, True), ctx.value_shape)
        return Where.apply(ctx.kept, g, 0.0), None, g_value

    @staticmethod
    def backward_array(ctx, g):
        _, _, value_needs = ctx.needs_input_grad
        g_value = unbroadcast(g[ctx.key], ctx.value_shape) if value_needs else None
        return np.where(ctx.kept, g, g.dtype.type(0)), None, g_value


def _is_int_array(k) -> bool:
    return isinstance(k, np.ndarray) and k.dtype != np.bool_


def _empty_selection(a: np.ndarray, key: tuple):
    """The (empty) result of ``a[key]`` when it selects nothing, whatever the index arrays
    hold (``x[0, 2:2, [0, 5]]``: PyTorch gives shape (0, 2), NumPy checks the 5); None when
    the result is not empty."""
    probe = tuple(np.zeros_like(k) if _is_int_array(k) else k for k in key)
    try:
        out = a[probe]
    except IndexError:
        return None
    return out if out.size == 0 else None


def _index_add(g: np.ndarray, shape: tuple, key, advanced: bool) -> np.ndarray:
    out = np.zeros(shape, dtype=g.dtype)
    if advanced:
        np.add.at(out, key, g)  # repeated indices accumulate
    else:
        out[key] = g  # a basic index never repeats an element
    return out


def _along_index(index: np.ndarray, dim: int) -> tuple:
    """The full advanced index that picks ``x[..., index[...], ...]`` along ``dim``."""
    grids = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


class Gather(Function):
    """out[i][j] = x[i][index[i][j]] (for dim = 1), as ``torch.gather``."""

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.in_shape = x._data.shape
        ctx.full = _along_index(index, dim)  # checked by Tensor.gather, the public entry
        return x._data[ctx.full]

    @staticmethod
    def backward(ctx, g):
        return IndexAdd.apply(g, ctx.in_shape, ctx.full, True), None, None

    @staticmethod
    def backward_array(ctx, g):
        return _index_add(g, ctx.in_shape, ctx.full, True), None, None


class Where(Function):
    """out = a where cond else b; the gradient goes to whichever was chosen."""

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.cond = cond
        a_data = a._data if type(a) in _TENSOR_TYPES else a
        b_data = b._data if type(b) in _TENSOR_TYPES else b
        ctx.shapes = (np.shape(a_data), np.shape(b_data))
        try:
            return np.where(cond, a_data, b_data)
        except ValueError:
            raise ShapeError(
                f"where: condition {list(np.shape(cond))}, input {list(np.shape(a_data))} and "
                f"other {list(np.shape(b_data))} cannot be broadcast together"
            ) from None

    @staticmethod
    def backward(ctx, g):
        _, a_needs, b_needs = ctx.needs_input_grad
        a_shape, b_shape = ctx.shapes
        ga = unbroadcast(Where.apply(ctx.cond, g, 0.0), a_shape) if a_needs else None
        gb = unbroadcast(Where.apply(ctx.cond, 0.0, g), b_shape) if b_needs else None
        return None, ga, gb

    @staticmethod
    def backward_array(ctx, g):
        _, a_needs, b_needs = ctx.needs_input_grad
        a_shape, b_shape = ctx.shapes
        zero = g.dtype.type(0)
        ga = unbroadcast(np.where(ctx.cond, g, zero), a_shape) if a_needs else None
        gb = unbroadcast(np.where(ctx.cond, zero, g), b_shape) if b_needs else None
        return None, ga, gb


class Put(Function):
    """out = x with the positions ``key`` picks replaced by ``src`` (broadcast to them).

    The replaced elements of x no longer reach the output, so x's gradient is ``g``
    with zeros there; ``src``'s gradient is what arrived at its places, ``g[key]``
    (summed back over broadcasting). Serves scatter, index_copy, index_put and
    masked_scatter.
    """

    @staticmethod
    def forward(ctx, x, src, key):
        ctx.key, ctx.src_shape = key, np.shape(src._data)
        out = x._data.copy()
        out[key] = src._data
        return out

    @staticmethod
    def backward(ctx, g):
        x_needs, src_needs, _ = ctx.needs_input_grad
        zero = _function.Tensor._make(np.zeros((), g._data.dtype), False, None)
        gx = Put.apply(g, zero, ctx.key) if x_needs else None
        gsrc = unbroadcast(Index.apply(g, ctx.key, True), ctx.src_shape) if src_needs else None
        return gx, gsrc, None

    @staticmethod
    def backward_array(ctx, g):
        x_needs, src_needs, _ = ctx.needs_input_grad
        gx = None
        if x_needs:
            gx = g.copy()
            gx[ctx.key] = 0
        gsrc = unbroadcast(g[ctx.key], ctx.src_shape) if src_needs else None
        return gx, gsrc, None

"""Operations that change a tensor's shape or memory in place, and raw strided views.

``x.t_()``, ``x.squeeze_()``, ``x.unsqueeze_(0)``, ``x.transpose_(0, 1)`` give ``x``
itself a new geometry over the same memory: the tensor object stays, its shape and
strides change. As in PyTorch they are in-place operations: refused on a leaf that
requires grad while recording, recorded on any other tensor of the graph (its history
becomes "the view operation applied to what it was").

``x.as_strided(size, stride, storage_offset)`` is a view with any geometry over ``x``'s
storage (``minigrad/functions/strided.py``); ``resize_``, ``set_`` change the storage
itself, as PyTorch's do, and are refused on tensors that require grad.
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.autograd import inplace, views
from minigrad.autograd.grad_mode import _state
from minigrad.functions.strided import AsStrided, offset_in_storage, strided_view
from minigrad.printing import shape_str
from minigrad.tensor import Tensor, _size_args, as_tensor

METHODS = [
    "squeeze_",
    "unsqueeze_",
    "t_",
    "transpose_",
    "swapaxes_",
    "swapdims_",
    "as_strided",
    "as_strided_",
    "resize_",
    "resize_as_",
    "resize",
    "resize_as",
    "set_",
    "sum_to_size",
    "new",
    "new_empty_strided",
    "apply_",
    "map_",
    "map2_",
]
FUNCTIONS = ["as_strided", "as_strided_", "resize_as_"]


# ------------------------------------------------------------------ in-place views
def _restride(t: Tensor, what: str, view: Tensor) -> Tensor:
    """Give ``t`` the geometry (and, when recording, the history) of ``view``, a view
    of ``t`` just made by a view Function."""
    if _state.enabled and t.requires_grad:
        inplace.check_allowed(t, what)
    if view is t:
        return t
    views.counter_of(t)[0] += 1  # an in-place op, as in PyTorch: saved copies of t are stale
    t._data = view._data
    if view._grad_fn is not None:
        t._grad_fn = view._grad_fn
    if t._view is not None and view._view is not None:
        view._view.creation = t._view.creation
        t._view = view._view
    return t


def squeeze_(input: Tensor, dim=None) -> Tensor:
    """``input.squeeze(dim)``, in place (the same tensor, size-1 dims removed)."""
    return _restride(input, "squeeze_", input.squeeze(dim))


def unsqueeze_(input: Tensor, dim: int) -> Tensor:
    """``input.unsqueeze(dim)``, in place."""
    return _restride(input, "unsqueeze_", input.unsqueeze(dim))


def t_(input: Tensor) -> Tensor:
    """``input.t()``, in place (a 2-d tensor is transposed; 0-d and 1-d stay)."""
    return _restride(input, "t_", input.t())


def transpose_(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``input.transpose(dim0, dim1)``, in place."""
    return _restride(input, "transpose_", input.transpose(dim0, dim1))


swapaxes_ = swapdims_ = transpose_


# ------------------------------------------------------------------ as_strided
def as_strided(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A view of ``input``'s storage with the given sizes, strides and storage offset
    (in elements; the offset defaults to ``input``'s own). Elements may overlap.

    Example::

        >>> x = mg.arange(6.0)
        >>> x.as_strided((2, 2), (1, 2))      # rows start at 0 and 1, step 2
        tensor([[0., 2.],
                [1., 3.]])
    """
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: {len(size)} sizes, {len(stride)} strides"
        )
    if storage_offset is None:
        storage_offset = offset_in_storage(input._data)
    return AsStrided.apply(input, size, stride, int(storage_offset))


def as_strided_(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """``as_strided``, in place: ``input`` itself takes the new geometry."""
    return _restride(input, "as_strided_", as_strided(input, size, stride, storage_offset))


def _ints(values, what: str) -> tuple:
    values = tuple(values) if isinstance(values, (tuple, list)) else (values,)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"as_strided(): argument '{what}' must be tuple of ints")
    return tuple(int(v) for v in values)


# ------------------------------------------------------------------ new memory
def _no_grad_storage_change(t: Tensor, what: str) -> None:
    if t._requires_grad:
        raise RuntimeError(f"cannot resize variables that require grad ({what})")


def resize_(input: Tensor, *sizes, memory_format=None) -> Tensor:
    """Give ``input`` the shape ``sizes``, in place, keeping its memory when the new
    size fits in it; a larger tensor gets new memory holding the old elements first
    (the rest is uninitialized, as in PyTorch)."""
    _no_grad_storage_change(input, "resize_")
    shape = _size_args(sizes)
    if any(s < 0 for s in shape):  # -1 means "infer" to view(), not to resize_()
        raise RuntimeError(f"resize_: sizes must be non-negative, got {list(shape)}")
    n = int(np.prod(shape))
    flat = input._data.reshape(-1) if input._data.flags.c_contiguous else None
    if flat is not None and n <= flat.size:
        input._data = flat[:n].reshape(shape)
    else:
        new = np.empty(n, input._data.dtype)
        old = input._data.reshape(-1)[:n]
        new[: old.size] = old
        input._data = new.reshape(shape)
        input._view = None
    views.counter_of(input)[0] += 1
    return input


def resize_as_(input: Tensor, the_template: Tensor, memory_format=None) -> Tensor:
    """``input.resize_(the_template.shape)``."""
    return resize_(input, the_template._data.shape)


def resize(input: Tensor, *sizes) -> Tensor:
    """Deprecated in PyTorch: a resized copy (``input.clone().resize_(*sizes)``)."""
    return resize_(input.detach().clone(), *sizes)


def resize_as(input: Tensor, tensor: Tensor) -> Tensor:
    """Deprecated in PyTorch: ``input.clone().resize_as_(tensor)``."""
    return resize(input, tensor._data.shape)


def set_(input: Tensor, source=None, storage_offset: int = 0, size=None, stride=None) -> Tensor:
    """Make ``input`` share ``source``'s memory (and geometry), in place; with
    ``storage_offset``, ``size`` and ``stride``, a view of ``source``'s storage; with no
    source, an empty tensor."""
    if _state.enabled and input._requires_grad and input.grad_fn is None:
        raise RuntimeError(
            "set_: a leaf Variable that requires grad is being used in an in-place operation."
        )
    if source is None:
        input._data = np.empty((0,), input._data.dtype)
        input._view = None
    else:
        source = as_tensor(source)
        if source._data.dtype != input._data.dtype:
            raise RuntimeError(
                f"set_: expected a source of dtype {input._data.dtype}, got {source._data.dtype}"
            )
        data = source._data
        if size is not None:
            size = _ints(size, "size")
            if stride is None:
                stride = tuple(int(np.prod(size[k + 1 :])) for k in range(len(size)))
            data = strided_view(data, size, _ints(stride, "stride"), int(storage_offset))
        input._data = data
        input._view = source._view
        input._counter = views.counter_of(source)
    views.counter_of(input)[0] += 1
    return input


def new(input: Tensor, *args, dtype=None, device=None) -> Tensor:
    """Legacy constructor with ``input``'s dtype: ``t.new()`` (empty), ``t.new(2, 3)``
    (uninitialized, shape (2, 3)), ``t.new([1, 2])`` or ``t.new(array)`` (a copy of
    the data)."""
    dtype = dtypes.as_dtype(dtype) or input._data.dtype
    if not args:
        return input._new(np.empty((0,), dtype), False, device, "new")
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        return input._new(np.empty(_size_args(args), dtype), False, device, "new")
    if len(args) == 1 and isinstance(args[0], tuple) and all(isinstance(a, int) for a in args[0]):
        return input._new(np.empty(args[0], dtype), False, device, "new")
    if len(args) != 1:
        raise TypeError(f"new(): expected sizes or one sequence of data, got {args!r}")
    return input.new_tensor(args[0], dtype=dtype, device=device)


def new_empty_strided(
    input: Tensor,
    size,
    stride,
    *,
    dtype=None,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """An uninitialized tensor with the given sizes and strides (in elements), with
    ``input``'s dtype unless ``dtype`` is given."""
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    dtype = dtypes.as_dtype(dtype) or input._data.dtype
    needed = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    data = strided_view(np.empty(needed, dtype), size, stride, 0)
    return input._new(data, requires_grad, device, "new_empty_strided")


def sum_to_size(input: Tensor, *size) -> Tensor:
    """Sum ``input`` down to ``size``, which must be expandable to ``input``'s shape:
    the reverse of ``expand`` (the gradient of a broadcast)."""
    shape = _size_args(size)
    have = input._data.shape
    lead = len(have) - len(shape)
    if lead < 0 or any(s not in (1, h) for s, h in zip(shape, have[lead:])):
        raise RuntimeError(f"size {shape_str(shape)} is not expandable to size {shape_str(have)}")
    dims = tuple(range(lead)) + tuple(
        lead + k for k, (s, h) in enumerate(zip(shape, have[lead:])) if s == 1 and h != 1
    )
    if not shape and not have:  # PyTorch sums a 0-d tensor to size () (a bool gives int64)
        return input.sum()
    out = input.sum(dims, keepdim=True) if dims else input
    return out.reshape(shape) if out._data.shape != shape else out


# ------------------------------------------------------------------ Python callables
def _elementwise(fn, *arrays) -> np.ndarray:
    """``fn`` (a Python function of numbers) applied to each element, as an object array."""
    return np.frompyfunc(fn, len(arrays), 1)(*arrays)


def apply_(input: Tensor, callable) -> Tensor:
    """Replace each element ``x`` by ``callable(x)`` (a Python function of numbers), in
    place. Slow: it calls Python once per element (PyTorch's warning too)."""
    values = _elementwise(callable, input._data)
    return input._inplace("apply_", np.asarray(values.astype(input._data.dtype)), cast=True)


def map_(input: Tensor, tensor, callable) -> Tensor:
    """``input[i] = callable(input[i], tensor[i])``, in place (``tensor`` broadcast)."""
    other = np.broadcast_to(as_tensor(tensor)._data, input._data.shape)
    values = _elementwise(callable, input._data, other)
    return input._inplace("map_", np.asarray(values.astype(input._data.dtype)), cast=True)


def map2_(input: Tensor, x1, x2, callable) -> Tensor:
    """``input[i] = callable(input[i], x1[i], x2[i])``, in place."""
    a = np.broadcast_to(as_tensor(x1)._data, input._data.shape)
    b = np.broadcast_to(as_tensor(x2)._data, input._data.shape)
    values = _elementwise(callable, input._data, a, b)
    return input._inplace("map2_", np.asarray(values.astype(input._data.dtype)), cast=True)

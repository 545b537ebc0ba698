"""In-place operations, recorded in the graph as PyTorch records them.

Every in-place method (``add_``, ``mul_``, ``masked_fill_``, ``t += 1``, ``t[i] = v``,
...) computes its new values out of place, as an ordinary (recorded) operation, and then
calls ``write(t, what, value)``, the one place where values are written into a tensor:

1. **Is it allowed?** While recording, a leaf that requires grad cannot change (the
   gradient would have to reach a value that no longer exists); neither can a view of
   one, a view made under ``no_grad`` of a tensor that requires grad, or one of several
   views made by one call (``unbind``, ``split``, ``chunk``). Under ``no_grad``
   everything may change, and nothing is recorded.
2. **Fit the value** to the tensor's shape (broadcast) and dtype (a cast, refused from
   float to integer or from a number to bool unless the op casts by design, like
   ``copy_`` and ``fill_``: PyTorch's rule).
3. **Write** it into the tensor's memory and bump the version counter (shared with the
   tensor's base and all its views, ``minigrad/autograd/views.py``).
4. **Record** the change: the tensor's base gets a new ``grad_fn``, an ``Overwrite`` node
   whose value is "the old base with the written part replaced by ``value``". For a
   tensor that is not a view the written part is all of it; for a view it is the part
   the view's steps select. Views of the base re-make their own history from it when
   they are next used.

Two details keep the gradients right. If the op's node saved the tensor it overwrites
(``mul_`` needs the old ``self`` for the other factor's gradient), it keeps a copy of
the old values instead. If the node saved its *output* (``sigmoid_``), that output is
now the tensor, so a later change of the tensor raises at backward, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd import function, views
from minigrad.autograd.function import Function, _wrap
from minigrad.autograd.grad_mode import _state, no_grad
from minigrad.functions.errors import ShapeError
from minigrad.printing import shape_str, torch_dtype_name

_KIND_ORDER = {"b": 0, "u": 1, "i": 1, "f": 2}  # bool < integers < floats


class Overwrite(Function):
    """``base`` with the part that the view ``steps`` select replaced by ``value``: the
    node an in-place op leaves on the base (PyTorch calls it ``CopySlices``).

    The values are already written when it runs, so ``forward`` returns the base's
    memory as it is. Backward: the written part of the gradient goes to ``value`` (the
    same steps applied to the gradient select it), the rest to the old base.
    """

    @staticmethod
    def forward(ctx, base, value, steps):
        ctx.steps = steps
        written = np.zeros(base._data.shape, dtype=bool)
        _select(written, steps)[...] = True
        ctx.written = written
        return base._data

    @staticmethod
    def backward(ctx, g):
        base_needs, value_needs, _ = ctx.needs_input_grad
        g_base = g.masked_fill(_wrap(ctx.written), 0.0) if base_needs else None
        g_value = views.replay(g, ctx.steps) if value_needs else None
        return g_base, g_value, None

    @staticmethod
    def backward_array(ctx, g):
        base_needs, value_needs, _ = ctx.needs_input_grad
        g_base = np.where(ctx.written, g.dtype.type(0), g) if base_needs else None
        g_value = _select(g, ctx.steps) if value_needs else None
        return g_base, g_value, None


def _select(array: np.ndarray, steps: tuple) -> np.ndarray:
    """The part of ``array`` (shaped like a base) that the view ``steps`` select, as a
    NumPy view of it."""
    with no_grad():
        return views.replay(_wrap(array), steps)._data


def write(t, what: str, value, cast: bool = False):
    """Write ``value`` into ``t`` in place (the steps in the module docstring)."""
    if not isinstance(value, function.Tensor):
        value = _wrap(np.asarray(value))  # a Python float stays float64 until it is cast
    info = t._view
    recording = _state.enabled and (
        t.requires_grad or value.requires_grad or (info is not None and info.base.requires_grad)
    )
    if recording:
        check_allowed(t, what)
    fitted = _fit(t, what, value, cast)
    if not t._data.flags.writeable:
        raise RuntimeError(
            f"{what}: unsupported operation: more than one element of the written-to tensor "
            "refers to a single memory location (an expand()ed tensor, or read-only "
            "memory). Please clone() the tensor before performing the operation."
        )
    node = value._grad_fn
    if recording and node is not None:
        node._keep_old_input(t, _copy_of)
    t._data[...] = fitted._data
    views.counter_of(t)[0] += 1
    if recording:
        if node is not None and fitted is value:
            node._move_output(value._data, t)
        _record(t, fitted)
    return t


def _copy_of(t):
    """A tensor holding ``t``'s current values, at ``t``'s place in the graph."""
    return function.Tensor._make(t._data.copy(), t._requires_grad, t._grad_fn)


def _record(t, value) -> None:
    """Give ``t``'s base the ``Overwrite`` node, then ``t`` its history from the base."""
    info = t._view
    base, steps = (t, ()) if info is None else (info.base, info.steps)
    if info is not None:
        views.check_geometry(info)
    new = Overwrite.apply(base, value, steps)
    if new._grad_fn is not None:
        base._grad_fn = new._grad_fn
        base._requires_grad = True
    if info is not None:
        views.refresh(t)


def check_allowed(t, what: str) -> None:
    """Refuse, as PyTorch does, the in-place changes that cannot be recorded."""
    info = t._view
    hint = " Do it under `with mg.no_grad():` (as optimizers do), or on a clone()."
    if info is None:
        if t._grad_fn is None and t._requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation "
                f"({what}).{hint}"
            )
        return
    base = info.base
    if base._grad_fn is None and base._requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place "
            f"operation ({what}).{hint}"
        )
    if info.creation == views.NO_GRAD:
        raise RuntimeError(
            f"{what}: a view was created in no_grad mode and is being modified inplace with "
            "grad mode enabled. Make the view outside no_grad, or do the in-place change "
            "under no_grad too."
        )
    if info.creation == views.MULTI_OUTPUT:
        raise RuntimeError(
            f"{what}: this tensor is a view made by a function that returns multiple views "
            "(unbind, split, chunk). Such views may not be modified inplace while "
            "recording: replace the inplace operation by an out-of-place one."
        )


def _fit(t, what: str, value, cast: bool):
    """``value`` with ``t``'s shape and dtype (recorded, so the gradient finds its way)."""
    src, dst = value._data.dtype, t._data.dtype
    if not cast and _KIND_ORDER.get(src.kind, 3) > _KIND_ORDER.get(dst.kind, 3):
        raise RuntimeError(
            f"result type {torch_dtype_name(src)} can't be cast to the desired output type "
            f"{torch_dtype_name(dst)} ({what})"
        )
    if value._data.shape != t._data.shape:
        try:
            np.broadcast_shapes(value._data.shape, t._data.shape)
            if len(value._data.shape) > len(t._data.shape):
                raise ValueError
            value = value.expand(t._data.shape)
        except ValueError:
            raise ShapeError(  # a RuntimeError, as PyTorch raises (and a ValueError)
                f"{what}: a value of shape {shape_str(value._data.shape)} does not broadcast "
                f"to the tensor's shape {shape_str(t._data.shape)}"
            ) from None
    if src != dst:
        value = value.to(dst)
    return value

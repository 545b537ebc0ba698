"""Tensor hooks: functions the backward pass calls with a tensor's gradient.

- ``t.register_hook(hook)``: ``hook(grad)`` runs when ``t``'s gradient has been
  computed (all of it: the sum over every use of ``t``), before it goes on through
  ``t.grad_fn`` or into ``t.grad``. It may return a new gradient (same shape) that
  replaces it, or ``None`` to leave it.
- ``t.register_post_accumulate_grad_hook(hook)`` (leaves only): ``hook(t)`` runs after
  the gradient has been added into ``t.grad`` (an optimizer can step there).

Each returns a handle whose ``remove()`` unregisters the hook. The hooks of a non-leaf
tensor live on its ``grad_fn`` (the node the engine meets), those of a leaf on the
tensor itself; ``minigrad/autograd/engine.py`` calls ``run_grad_hooks`` and
``run_post_accumulate_hooks``.
"""

from __future__ import annotations

import itertools

import numpy as np

from minigrad.printing import shape_str

_ids = itertools.count()


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook (also
    usable as a context manager that removes it on exit)."""

    def __init__(self, hooks: dict) -> None:
        self.hooks_dict = hooks
        self.id = next(_ids)

    def remove(self) -> None:
        self.hooks_dict.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def register_hook(tensor, hook) -> RemovableHandle:
    """Register ``hook(grad) -> grad or None`` on ``tensor`` (see the module docstring)."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    owner = tensor.grad_fn or tensor
    if owner._grad_hooks is None:
        owner._grad_hooks = {}
    handle = RemovableHandle(owner._grad_hooks)
    owner._grad_hooks[handle.id] = hook
    return handle


def register_post_accumulate_grad_hook(tensor, hook) -> RemovableHandle:
    """Register ``hook(tensor)``, called after ``tensor.grad`` was accumulated."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if tensor._post_accumulate_hooks is None:
        tensor._post_accumulate_hooks = {}
    handle = RemovableHandle(tensor._post_accumulate_hooks)
    tensor._post_accumulate_hooks[handle.id] = hook
    return handle


def run_grad_hooks(hooks: dict, grad, arrays: bool, wrap):
    """``grad`` after each hook in turn (an array when ``arrays``, else a Tensor)."""
    for hook in list(hooks.values()):
        new = hook(wrap(grad) if arrays else grad)
        if new is None:
            continue
        new_data = new._data if hasattr(new, "_data") else np.asarray(new)
        if new_data.shape != grad.shape:
            raise RuntimeError(
                f"hook returned a gradient of shape {shape_str(new_data.shape)}; expected "
                f"the shape of the tensor, {shape_str(grad.shape)}"
            )
        grad = new_data if arrays else new
    return grad


def run_post_accumulate_hooks(leaf) -> None:
    for hook in list(leaf._post_accumulate_hooks.values()):
        hook(leaf)

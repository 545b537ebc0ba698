"""``nn.utils.stateless.functional_call``: call a module with some of its parameters
and buffers replaced by other tensors, without changing the module.

This is how a loss is written as a function of the weights (for
``autograd.functional.jacobian``/``hessian`` over parameters, meta-learning, or
weight averaging): the replacement tensors take part in the graph, so gradients flow
to them, and the module's own tensors are back in place when the call returns.
"""

from __future__ import annotations

import contextlib

__all__ = ["functional_call"]


def _owner(module, dotted: str):
    """``(submodule, attribute name)`` for a name such as ``"layers.0.weight"``."""
    *path, name = dotted.split(".")
    for part in path:
        module = getattr(module, part)
    return module, name


@contextlib.contextmanager
def _swapped(module, tensors: dict, strict: bool):
    known = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    known |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    unknown = sorted(set(tensors) - known)
    if unknown:
        raise RuntimeError(f"functional_call got unexpected key(s): {unknown}")
    if strict and set(tensors) != known:
        raise RuntimeError(f"functional_call is missing key(s): {sorted(known - set(tensors))}")
    saved = []
    try:
        for dotted, value in tensors.items():
            owner, name = _owner(module, dotted)
            registry = owner._parameters if name in owner._parameters else owner._buffers
            saved.append((registry, name, registry[name]))
            registry[name] = value
        yield
    finally:
        for registry, name, value in reversed(saved):
            registry[name] = value


def functional_call(
    module,
    parameter_and_buffer_dicts,
    args=None,
    kwargs=None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
):
    """``module(*args, **kwargs)`` with the named parameters and buffers replaced by
    the given tensors (a dict, or a tuple of dicts merged in order).

    Args:
        module: the module to call.
        parameter_and_buffer_dicts: ``{"linear.weight": tensor, ...}``.
        args: positional arguments (one non-tuple value is one argument).
        kwargs: keyword arguments.
        tie_weights: accepted for PyTorch's signature (a tensor shared by two names is
            one tensor here: replace each name you mean to replace).
        strict: every parameter and buffer must be given.

    Example::

        >>> lin = nn.Linear(3, 1)
        >>> w = mg.zeros(1, 3, requires_grad=True)
        >>> out = functional_call(lin, {"weight": w}, (mg.ones(2, 3),))
        >>> out.sum().backward()          # w.grad is filled; lin.weight is untouched
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = dict(parameter_and_buffer_dicts)
    else:
        tensors = {}
        for d in parameter_and_buffer_dicts:
            overlap = set(tensors) & set(d)
            if overlap:
                raise ValueError(f"{sorted(overlap)} appeared in multiple dictionaries")
            tensors.update(d)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, tensors, strict):
        return module(*args, **(kwargs or {}))

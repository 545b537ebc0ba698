"""The backward pass: walk the graph from the outputs to the leaves, in topological order.

The graph is made of nodes (``Function`` instances, the ``grad_fn`` of non-leaf
tensors). ``node.next_functions[i]`` is where the gradient for the node's i-th input
goes: another node, a leaf tensor (whose ``.grad`` accumulates it), or ``None``.

Two iterative phases (no recursion, so a 100,000-node chain is fine; told step by step
in ``docs/autograd.md``, "The backward pass"): count how many edges point at each
reachable node, then run Kahn's algorithm: a node whose gradients have all arrived
(its count reaches zero) runs its backward with their sum and hands each returned
gradient on, into the next node's buffer or to a leaf.

**Two kinds of pass.** Without ``create_graph`` nothing will differentiate the
gradients, so they flow as plain NumPy arrays: a node whose Function defines
``backward_array`` gets an array and returns arrays (no Tensor is built, no graph is
recorded); a node with only ``backward`` gets its array wrapped as a Tensor, under
``no_grad``. With ``create_graph`` every node's ``backward`` runs on Tensors with
recording on, so the gradients are themselves part of a graph. ``_call_backward`` is
the one place that makes this choice. NumPy's floating-point warnings are off for the
whole pass: an infinite or NaN gradient is an answer (as in PyTorch), not a warning.

**A leaf's first gradient** becomes its ``.grad`` as a copy: the array that arrives may
be shared (by two edges, with the caller's ``gradient=``, or a read-only broadcast view),
and an in-place update of one ``.grad`` must never change anything else. Later
gradients are added into it in place. Hooks: ``minigrad/autograd/hooks.py``. Unless
``retain_graph`` is set, each node frees its saved tensors right after its backward ran
(``Function._release``).
"""

from __future__ import annotations

import weakref

import numpy as np

from minigrad.autograd import function as _function
from minigrad.autograd.grad_mode import _state
from minigrad.autograd.hooks import run_grad_hooks, run_post_accumulate_hooks
from minigrad.printing import shape_str

_ndarray = np.ndarray
_wrap_grad = _function._wrap  # an array as a Tensor outside any graph


def _check_grad(node, index: int, grad, shape, dtype):
    """The engine's contract: a gradient has its tensor's shape (and dtype).

    ``grad`` is an array or a Tensor; a gradient of another float dtype is cast.
    """
    if grad.shape != shape:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index}: "
            f"got shape {shape_str(grad.shape)} but expected shape {shape_str(shape)}"
        )
    if grad.dtype != dtype:
        grad = grad.astype(dtype) if type(grad) is _ndarray else grad.to(dtype)
    return grad


def _as_tensor_grad(node, index: int, g):
    """A gradient returned as an array (allowed for custom Functions) becomes a Tensor."""
    if isinstance(g, _function.Tensor):
        return g
    return _wrap_grad(_as_array_grad(node, index, g))


def _as_array_grad(node, index: int, g):
    """A gradient returned as a Tensor (or a NumPy scalar) becomes an array."""
    if isinstance(g, _function.Tensor):
        return g._data
    if not hasattr(g, "shape"):
        raise TypeError(
            f"Function {node.name()}.backward returned a {type(g).__name__} at index {index}; "
            "expected a Tensor, an array or None"
        )
    return np.asarray(g)


def _as_grad_tuple(node, grads):
    """A backward's return value as a tuple with exactly one entry per forward argument
    (a one-input backward may return its gradient bare)."""
    if type(grads) is tuple and len(grads) == len(node.next_functions):
        return grads  # the usual case
    if not isinstance(grads, (tuple, list)):
        grads = (grads,)
    grads = tuple(grads)
    n = len(node.next_functions)
    if len(grads) < n or any(g is not None for g in grads[n:]):
        raise RuntimeError(
            f"Function {node.name()}.backward returned an incorrect number of gradients: "
            f"{len(grads)} gradient(s) for {n} argument(s) of forward. Return one per argument "
            "(None for arguments that need no gradient)."
        )
    return grads[:n] if len(grads) > n else grads


def _call_backward(node, grad, arrays: bool):
    """Run one node's backward: the one place where the engine picks which one.

    ``arrays`` (no ``create_graph``): ``backward_array(ctx, array)`` when the Function
    defines it, else ``backward(ctx, tensor)`` under no_grad. Otherwise ``backward``
    on Tensors with recording on, so that the result can be differentiated again.
    """
    if arrays:
        fast = node.backward_array
        if fast is not None:
            return fast(node, grad)
        return node.backward(node, _wrap_grad(grad))
    return node.backward(node, grad)


def run_backward(
    roots, root_grads, retain_graph: bool, create_graph: bool, inputs=None, observe=None
):
    """Back-propagate ``root_grads`` from ``roots`` through the graph.

    Args:
        roots: output tensors to start from.
        root_grads: one gradient tensor per root, shaped like the root.
        retain_graph: keep the saved tensors so the graph can be walked again.
        create_graph: record the backward computation itself (for higher order).
        inputs: if given (``autograd.grad``), return the gradients of these tensors
            instead of accumulating into leaves' ``.grad``.
        observe: if given, called as ``observe(node, grads)`` after each node's backward,
            with the gradients it sent along its edges, as that backward returned them
            (arrays from ``backward_array``; Tensors, or arrays, from ``backward``;
            ``minigrad.viz`` draws them).

    Returns:
        ``None``, or, when ``inputs`` is given, a list of gradient Tensors (``None``
        where no gradient reached an input).
    """
    Tensor = _function.Tensor
    arrays = not create_graph  # gradients flow as arrays unless they are to be recorded
    grad_type = _ndarray if arrays else Tensor
    # Where to capture gradients for autograd.grad: leaf tensors by identity,
    # non-leaf tensors through their grad_fn.
    capture_leaf = {}
    capture_node = {}
    if inputs is not None:
        for i, t in enumerate(inputs):
            if t.grad_fn is None:
                capture_leaf.setdefault(t, []).append(i)
            else:
                capture_node.setdefault(t.grad_fn, []).append(i)
        captured = [None] * len(inputs)

    # ---- phase 1: dependency counts over the reachable graph -----------------------
    deps = {}
    buffers = {}
    leaf_grads = {}
    stack = []
    prev_mode = _state.enabled
    _state.enabled = create_graph
    errors = np.errstate(all="ignore")  # an inf or NaN gradient is the answer, as in PyTorch
    errors.__enter__()
    try:
        for root, g in zip(roots, root_grads):
            if arrays:
                g = g._data
            node = root.grad_fn
            if node is None:  # a leaf used as an output: its gradient is the seed
                _add_to(leaf_grads, root, g)
                continue
            _add_to(buffers, node, g)
            if node not in deps:
                deps[node] = 0
                stack.append(node)
        while stack:
            node = stack.pop()
            for nxt in node.next_functions:
                if nxt is None or isinstance(nxt, Tensor):
                    continue
                if nxt not in deps:
                    deps[nxt] = 0
                    stack.append(nxt)
                deps[nxt] += 1

        # ---- phase 2: run each node once all its gradients have arrived -------------
        ready = [n for n, d in deps.items() if d == 0]
        while ready:
            node = ready.pop()
            grad = buffers.pop(node, None)
            if grad is None:  # nothing flowed into this node: it sends nothing on
                grads = (None,) * len(node.next_functions)
            else:
                if node._grad_hooks:
                    grad = run_grad_hooks(node._grad_hooks, grad, arrays, _wrap_grad)
                if node._retained is not None:
                    _retain(node, grad, create_graph)
                if node in capture_node:
                    for i in capture_node[node]:
                        captured[i] = grad
                grads = _as_grad_tuple(node, _call_backward(node, grad, arrays))
                if observe is not None:
                    observe(node, grads)
                if not retain_graph:
                    node._release()
            for i, (nxt, g) in enumerate(zip(node.next_functions, grads)):
                if nxt is None:
                    continue
                if g is not None and type(g) is not grad_type:  # a Tensor, a NumPy scalar
                    g = _as_array_grad(node, i, g) if arrays else _as_tensor_grad(node, i, g)
                if isinstance(nxt, Tensor):  # a leaf: its .grad is written at the end
                    if g is not None:
                        g = _check_grad(node, i, g, nxt._data.shape, nxt._data.dtype)
                        _add_to(leaf_grads, nxt, g)
                    continue
                if g is not None:
                    if g.shape != nxt._shape or g.dtype != nxt._dtype:
                        g = _check_grad(node, i, g, nxt._shape, nxt._dtype)
                    old = buffers.get(nxt)
                    buffers[nxt] = g if old is None else old + g
                waiting = deps[nxt] - 1
                deps[nxt] = waiting
                if waiting == 0:
                    ready.append(nxt)

        # ---- leaves: accumulate (or capture for autograd.grad) ---------------------
        while leaf_grads:
            leaf, g = leaf_grads.popitem()
            if leaf._grad_hooks:
                g = run_grad_hooks(leaf._grad_hooks, g, arrays, _wrap_grad)
            if inputs is not None:
                for i in capture_leaf.get(leaf, ()):
                    captured[i] = g
                continue
            if arrays:
                _accumulate_array(leaf, g)
            else:
                _accumulate_tensor(leaf, g)
            if leaf._post_accumulate_hooks:
                run_post_accumulate_hooks(leaf)
    finally:
        errors.__exit__(None, None, None)
        _state.enabled = prev_mode
    if inputs is not None:
        if arrays:
            return [None if c is None else _wrap_grad(c) for c in captured]
        return captured
    return None


def _add_to(table: dict, key, g) -> None:
    old = table.get(key)
    table[key] = g if old is None else old + g


def _accumulate_array(leaf, g) -> None:
    """``leaf.grad += g`` for an array ``g``, never writing into memory someone else
    holds: the first gradient is copied, later ones are added into that copy."""
    old = leaf._grad
    if old is None:
        leaf._grad = _wrap_grad(g.copy())
    elif old.grad_fn is None and old._data.flags.writeable:
        old._data += g
    else:
        leaf._grad = _wrap_grad(old._data + g)


def _accumulate_tensor(leaf, g) -> None:
    """``leaf.grad += g`` with ``create_graph``: a differentiable sum (the first one a clone)."""
    old = leaf._grad
    leaf._grad = g.clone() if old is None else old + g


def _retain(node, grad, create_graph: bool) -> None:
    """Accumulate the gradient of a non-leaf tensor that called ``retain_grad()``: the
    first one a copy (the same array goes on through the node's backward), later ones
    summed into a new tensor, as PyTorch does (a ``.grad`` taken earlier keeps its
    values; only a leaf's ``.grad`` is added into in place)."""
    t = node._retained()
    if t is None:
        return
    if create_graph:
        _accumulate_tensor(t, grad)  # a clone, then ``old + g``: never in place
    elif t._grad is None:
        t._grad = _wrap_grad(grad.copy())
    else:
        t._grad = _wrap_grad(t._grad._data + grad)


def mark_retained(tensor) -> None:
    tensor.grad_fn._retained = weakref.ref(tensor)

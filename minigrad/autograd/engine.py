"""The backward pass: walk the graph from the outputs to the leaves, in topological order.

The graph is made of nodes (``Function`` instances, the ``grad_fn`` of non-leaf
tensors). ``node.next_functions[i]`` is where the gradient for the node's i-th input
goes: another node, a leaf tensor (whose ``.grad`` accumulates it), or ``None``.

The pass has two phases, both iterative (no recursion, so a 100,000-node chain is fine):

1. **Count dependencies.** From the roots, visit every reachable node once and count
   how many edges point at it: the number of gradients it must receive.
2. **Run backwards (Kahn's algorithm).** A node is *ready* when all its gradients have
   arrived (its count reaches zero). Take a ready node, call its ``backward`` with the
   summed incoming gradient, hand each returned gradient to the matching next node
   (summing into that node's buffer) or accumulate it into the leaf's ``.grad``.

Unless ``retain_graph`` is set, each node frees its saved tensors right after its
backward ran. Without ``create_graph`` the pass runs under ``no_grad``, so it builds no
new graph; with it, every gradient is computed by differentiable Tensor operations and
can be differentiated again.
"""

from __future__ import annotations

import weakref

import numpy as np

from minigrad.autograd.grad_mode import _state


def _shape_str(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check_grad(node, index: int, grad, shape, dtype):
    """The engine's contract: a gradient has its tensor's shape (and dtype)."""
    if grad.shape != shape:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index}: "
            f"got shape {_shape_str(grad.shape)} but expected shape {_shape_str(shape)}"
        )
    if grad.dtype != dtype:
        grad = grad.to(dtype)
    return grad


def _as_tensor_grad(node, index: int, g):
    """A gradient returned as an array (allowed for custom Functions) becomes a Tensor."""
    from minigrad.tensor import Tensor

    if isinstance(g, Tensor):
        return g
    if not hasattr(g, "shape"):
        raise TypeError(
            f"Function {node.name()}.backward returned a {type(g).__name__} at index {index}; "
            "expected a Tensor, an array or None"
        )
    return Tensor._make(np.asarray(g), False, None)


def _as_grad_tuple(node, grads):
    """A backward's return value as a tuple with exactly one entry per forward argument."""
    if type(grads) is not tuple:
        grads = tuple(grads) if isinstance(grads, list) else (grads,)
    n = len(node.next_functions)
    if len(grads) < n or any(g is not None for g in grads[n:]):
        raise RuntimeError(
            f"Function {node.name()}.backward returned an incorrect number of gradients: "
            f"{len(grads)} gradient(s) for {n} argument(s) of forward. Return one per argument "
            "(None for arguments that need no gradient)."
        )
    return grads[:n] if len(grads) > n else grads


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
            (Tensors, or arrays for the ops that return arrays; ``minigrad.viz`` draws
            them).

    Returns:
        ``None``, or, when ``inputs`` is given, a list of gradients (``None`` where no
        gradient reached an input).
    """
    from minigrad.tensor import Tensor

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
    try:
        for root, g in zip(roots, root_grads):
            node = root.grad_fn
            if node is None:  # a leaf used as an output: its gradient is the seed
                _add_to(leaf_grads, root, g)
                continue
            if node in buffers:
                buffers[node] = buffers[node] + g
            else:
                buffers[node] = g
            if node not in deps:
                deps[node] = 0
                stack.append(node)
        while stack:
            node = stack.pop()
            for nxt in node.next_functions:
                if nxt is None or isinstance(nxt, Tensor):
                    continue
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
                    stack.append(nxt)

        # ---- phase 2: run each node once all its gradients have arrived -------------
        ready = [n for n, d in deps.items() if d == 0]
        while ready:
            node = ready.pop()
            nexts = node.next_functions
            grad = buffers.pop(node, None)
            if grad is None:  # nothing flowed into this node: it sends nothing on
                grads = (None,) * len(nexts)
            else:
                if node._retained is not None:
                    _retain(node, grad, create_graph)
                if capture_node and node in capture_node:
                    for i in capture_node[node]:
                        captured[i] = grad
                grads = node.backward(node, grad)
                if type(grads) is not tuple or len(grads) != len(nexts):
                    grads = _as_grad_tuple(node, grads)
                if observe is not None:
                    observe(node, grads)
                if not retain_graph:
                    node._saved = ()
                    node._freed = True
            for i, nxt in enumerate(nexts):
                if nxt is None:
                    continue
                g = grads[i]
                if g is not None and type(g) is not Tensor:
                    g = _as_tensor_grad(node, i, g)
                if isinstance(nxt, Tensor):  # a leaf: its .grad is written at the end
                    if g is not None:
                        _add_to(
                            leaf_grads,
                            nxt,
                            _check_grad(node, i, g, nxt._data.shape, nxt._data.dtype),
                        )
                    continue
                if g is not None:
                    gd = g._data
                    if gd.shape != nxt._shape or gd.dtype != nxt._dtype:
                        g = _check_grad(node, i, g, nxt._shape, nxt._dtype)
                    old = buffers.get(nxt)
                    buffers[nxt] = g if old is None else old + g
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    ready.append(nxt)

        # ---- leaves: accumulate (or capture for autograd.grad) ---------------------
        for leaf, g in leaf_grads.items():
            if inputs is not None:
                for i in capture_leaf.get(leaf, ()):
                    captured[i] = g
            else:
                _accumulate_leaf(leaf, g, create_graph)
    finally:
        _state.enabled = prev_mode
    if inputs is not None:
        return captured
    return None


def _add_to(table: dict, key, g) -> None:
    old = table.get(key)
    table[key] = g if old is None else old + g


def _accumulate_leaf(leaf, g, create_graph: bool) -> None:
    """``leaf.grad += g``, without ever writing into an array someone else holds."""
    from minigrad.tensor import Tensor

    old = leaf._grad
    if old is None:
        leaf._grad = _own(g, create_graph)
    elif create_graph:
        leaf._grad = old + g
    elif old.grad_fn is None and old._data.flags.writeable:
        old._data += g._data
    else:
        leaf._grad = Tensor._make(old._data + g._data, False, None)


def _retain(node, grad, create_graph: bool) -> None:
    """Store the gradient of a non-leaf tensor that called ``retain_grad()``."""
    t = node._retained()
    if t is None:
        return
    t._grad = _own(grad, create_graph) if t._grad is None else t._grad + grad


def _own(g, create_graph: bool):
    """A gradient tensor a leaf or a retained tensor may keep as its own. The engine's
    gradients may be shared (an add hands one array to both of its inputs) or read-only
    broadcast views; the copy may later be updated in place (backward passes,
    optimizers). With ``create_graph`` the copy is differentiable (``clone``)."""
    from minigrad.tensor import Tensor

    return g.clone() if create_graph else Tensor._make(g._data.copy(), False, None)


def mark_retained(tensor) -> None:
    tensor.grad_fn._retained = weakref.ref(tensor)

"""Graph recording: keep what each node was called with, and which module called it.

A node of the graph keeps only what its ``forward`` saved for backward, which is not
enough to run the node again. Inside ``graph_recording()`` every node made by
``Function.apply`` also keeps

- ``node.recorded_args``: a copy of the arguments of its ``forward`` (tensors as
  detached copies of their data, other arguments as they were), and
- ``node.module_path``: the module that was running when the node was made, named as
  in ``named_modules()`` (``"layers.1.norm1"``; ``""`` for the top level).

That is what ``minigrad.gradcheck.gradcheck_graph`` needs to check every node of a
graph on its own inputs. Recording is off by default and costs one flag read per
operation and per module call while off. Its state is per thread, like grad mode.
While on, every node holds a copy of its inputs for as long as the graph lives:
record a small batch.

Example::

    >>> with mg.autograd.graph_recording(model):
    ...     loss = model(x).sum()
    >>> loss.grad_fn.module_path
    ''
"""

from __future__ import annotations

import contextlib
import threading


class _Recording(threading.local):
    """Per-thread recording state: ``active`` is the flag every operation reads."""

    active = False  # the class default: every thread starts with recording off

    def __init__(self):
        self.modules = []  # the modules whose forward is running, outermost first
        self.root = None  # paths are relative to it (None: to the outermost module)
        self.names = {}  # (id(outer), id(inner)) -> inner's qualified name in outer


_recording = _Recording()


@contextlib.contextmanager
def graph_recording(module=None):
    """Record each node's arguments and module path (see the module docstring).

    Args:
        module: the model whose ``named_modules()`` names the paths. Default: the
            outermost module called inside the block.
    """
    state = _recording
    previous = (state.active, state.modules, state.root, state.names)
    state.active, state.modules, state.root, state.names = True, [], module, {}
    try:
        yield
    finally:
        state.active, state.modules, state.root, state.names = previous


@contextlib.contextmanager
def paused():
    """Recording off inside the block (a gradient check re-running nodes)."""
    previous = _recording.active
    _recording.active = False
    try:
        yield
    finally:
        _recording.active = previous


@contextlib.contextmanager
def module_scope(module):
    """``Module.__call__`` while recording: ``module`` is running inside the block."""
    _recording.modules.append(module)
    try:
        yield
    finally:
        _recording.modules.pop()


def record(node, args: tuple) -> None:
    """Keep a node's arguments and the module path in effect (``Function.apply``)."""
    copies = {}  # one copy per distinct tensor, so that x * x stays x * x
    kept = []
    for a in args:
        if hasattr(a, "detach"):  # a Tensor (this module sits below tensor.py)
            if id(a) not in copies:
                copies[id(a)] = a.detach().clone()
            a = copies[id(a)]
        kept.append(a)
    node.recorded_args = tuple(kept)
    node.module_path = current_path()


def current_path() -> str:
    """The qualified name of the innermost running module, e.g. ``"layers.1.norm1"``."""
    chain = list(_recording.modules)
    if _recording.root is not None:
        chain.insert(0, _recording.root)
    names = [_name_in(outer, inner) for outer, inner in zip(chain, chain[1:])]
    return ".".join(n for n in names if n)


def _name_in(outer, inner) -> str:
    """inner's name among outer's ``named_modules()``; its class in brackets when it is
    not a submodule of outer (a module called from outside the model's tree)."""
    key = (id(outer), id(inner))
    if key not in _recording.names:
        name = next((n for n, m in outer.named_modules() if m is inner), None)
        _recording.names[key] = f"<{type(inner).__name__}>" if name is None else name
    return _recording.names[key]

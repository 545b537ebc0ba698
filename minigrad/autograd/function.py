"""``Function``: one differentiable operation, its forward and backward side by side.

Every operation in minigrad, built-in or user-defined, is a subclass of ``Function``
with two static methods::

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * 3 * x * x

``Cube.apply(x)`` runs ``forward`` with graph recording switched off and, when an
input requires a gradient, returns a tensor whose ``grad_fn`` is the ``ctx`` object:
an instance of ``Cube`` that remembers the inputs' places in the graph
(``ctx.next_functions``) and what ``forward`` saved. The engine later calls
``Cube.backward(ctx, grad_out)``, which returns one gradient per ``forward`` argument
(``None`` for arguments that are not tensors or need no gradient).

``forward`` receives the tensors themselves; it may return a ``Tensor`` or a
``numpy.ndarray`` (built-in operations work on ``x._data`` and return arrays).
``backward`` is written with Tensor operations, so that with ``create_graph=True``
the gradient it returns is itself part of a graph and can be differentiated again.

**The fast path: ``backward_array``.** A Function may also define
``backward_array(ctx, grad_output)``: the same derivative computed on NumPy arrays (it
receives an array, reads ``ctx.saved_arrays``, returns arrays or ``None``). The engine
calls it in every backward pass that is not recorded (no ``create_graph``), and
``backward`` only when the gradient itself must be differentiable; a Function without
``backward_array`` gets ``backward`` in both cases (under ``no_grad`` in the first).
This choice is made by the engine, in one place, so a Function never asks the grad
mode which backward it is in::

    class Cube(Function):
        ...
        @staticmethod
        def backward_array(ctx, grad_out):       # grad_out is a numpy.ndarray
            (x,) = ctx.saved_arrays
            return grad_out * 3 * x * x

Rules for ``backward_array``: it must compute exactly what ``backward`` computes
(``tests/autograd/test_function.py`` checks every Function that defines both); it
must not write into ``grad_output`` or the saved arrays (they may be shared); it may
return ``grad_output`` itself, or a read-only view (the engine copies when a leaf
would otherwise share memory with something else).

A ``Function`` has exactly one output tensor. Operations that also return something
non-differentiable (``max(dim)``'s indices) compute that part outside the Function.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.grad_mode import _state
from minigrad.autograd.recording import _recording, record
from minigrad.autograd.views import mark_view, refresh

_FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or to read saved tensors after "
    "they were freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Pass retain_graph=True to the first backward call "
    "if you need to backward through the graph a second time."
)


class _SavedOutput:
    """A saved reference to the Function's own output, kept as a bare array.

    Saving the output tensor itself would make a reference cycle
    (output -> grad_fn -> saved output). Instead the array is kept (with the output's
    version counter) and, when the backward reads it, a tensor is rebuilt whose
    ``grad_fn`` is this node, so that second-order gradients still flow through it.
    """

    __slots__ = ("_data", "_counter")

    def __init__(self, data: np.ndarray, counter: list):
        self._data = data
        self._counter = counter


def _version_of(t) -> int:
    """The in-place version of a tensor (or a saved output): 0 until it is modified."""
    v = t._counter
    return 0 if v is None else v[0]


def _check_versions(ctx, saved, versions) -> None:
    """Raise, as PyTorch does, if a saved tensor was modified in place after it was saved."""
    for s, v in zip(saved, versions):
        if v is not None and _version_of(s) != v:
            shape = "[" + ", ".join(str(n) for n in s._data.shape) + "]"
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{s._data.dtype} tensor of shape {shape}], the input of "
                f"{ctx.name()}, is at version {_version_of(s)}; expected version {v} instead. "
                "Hint: do the in-place change after backward(), or on a clone()."
            )


class Function:
    """Base class of every differentiable operation (see the module docstring).

    Attributes of a node (the ``ctx`` passed to ``forward`` and ``backward``):
        needs_input_grad: one bool per ``forward`` argument.
        next_functions: per argument, the node (or leaf tensor) its gradient flows to,
            or ``None``.
        saved_tensors: what ``save_for_backward`` stored.
    """

    # Class-level defaults; a node sets its own values in ``apply``.
    _saved = ()
    _saved_versions = ()
    _freed = False
    _retained = None  # weakref to the output tensor when it called retain_grad()
    _grad_hooks = None  # {id: hook} of the output tensor (autograd/hooks.py)
    needs_input_grad: tuple = ()
    next_functions: tuple = ()

    # ----------------------------------------------------------------- for subclasses
    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError("a Function subclass must define backward(ctx, grad_output)")

    #: True for an operation whose result may share its first argument's memory (a
    #: view: reshape, permute, basic indexing, expand). ``apply`` then gives the result
    #: that tensor's version counter and remembers how to re-make it from its base
    #: (``minigrad/autograd/views.py``), whatever the grad mode.
    is_view = False

    #: Optional: ``backward_array(ctx, grad_output: ndarray) -> arrays``, the same
    #: derivative on NumPy arrays, used by the engine when the backward pass is not
    #: recorded (see the module docstring). ``None``: the engine uses ``backward``.
    backward_array = None

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors (inputs, or the output) for ``backward``; freed after it runs.

        Each tensor's version is recorded: modifying one in place before the backward
        reads it raises there instead of giving a wrong gradient.
        """
        self._saved = tensors
        self._saved_versions = tuple(
            [_version_of(t) if type(t) in _TENSOR_TYPES else None for t in tensors]
        )

    @property
    def saved_tensors(self) -> tuple:
        if self._freed:
            raise RuntimeError(_FREED_MESSAGE)
        saved = self._saved
        _check_versions(self, saved, self._saved_versions)
        for s in saved:
            if type(s) is _SavedOutput:
                return tuple(self._unpack(s) for s in saved)
        return saved

    @property
    def saved_arrays(self) -> tuple:
        """What ``save_for_backward`` stored, tensors as their arrays (for
        ``backward_array``); the same freed and in-place checks as ``saved_tensors``."""
        if self._freed:
            raise RuntimeError(_FREED_MESSAGE)
        saved = self._saved
        _check_versions(self, saved, self._saved_versions)
        return tuple(
            [s._data if type(s) in _TENSOR_TYPES or type(s) is _SavedOutput else s for s in saved]
        )

    # ------------------------------------------------ in-place ops (autograd/inplace.py)
    def _keep_old_input(self, t, copy_of) -> None:
        """An in-place op is about to overwrite ``t``: if this node saved it, keep
        ``copy_of(t)`` (a tensor with ``t``'s values before the change) instead."""
        if not any(s is t for s in self._saved):
            return
        old = copy_of(t)
        self._saved = tuple(old if s is t else s for s in self._saved)
        self._saved_versions = tuple(
            _version_of(old) if s is old else v for s, v in zip(self._saved, self._saved_versions)
        )

    def _move_output(self, array: np.ndarray, t) -> None:
        """This node saved its output ``array``, which an in-place op has just written
        into ``t``: the saved output is now ``t``'s memory, at ``t``'s current version
        (so a later in-place change of ``t`` raises at backward, as in PyTorch)."""
        moved = [type(s) is _SavedOutput and s._data is array for s in self._saved]
        if not any(moved):
            return
        self._saved = tuple(
            _SavedOutput(t._data, t._counter) if m else s for s, m in zip(self._saved, moved)
        )
        self._saved_versions = tuple(
            t._counter[0] if m else v for v, m in zip(self._saved_versions, moved)
        )

    def _unpack(self, s):
        if type(s) is not _SavedOutput:
            return s
        return Tensor._make(s._data, True, self)

    def _release(self) -> None:
        """Free what was saved for backward (the engine calls it after the node's
        backward ran, unless ``retain_graph``)."""
        self._saved = ()
        self._freed = True

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    # ------------------------------------------------------------------------- apply
    @classmethod
    def apply(cls, *args):
        """Run ``forward`` and, when a gradient is needed, link the result into the graph."""
        ctx = _new(cls)
        if _state.enabled:
            out = ctx._run_and_record(args)
        else:
            # Recording is off (under no_grad, or inside a backward pass): just compute.
            out = _wrap(cls.forward(ctx, *args))
        if cls.is_view and np.may_share_memory(out._data, args[0]._data):
            mark_view(out, args[0], cls, args[1:], recorded=_state.enabled)
        return out

    def _run_and_record(self, args):
        # Which arguments need a gradient, and where each one's gradient goes: the node
        # that made the argument, or the argument itself when it is a leaf.
        needs, nexts = [], []
        for a in args:
            if type(a) not in _TENSOR_TYPES:
                needs.append(False)
                nexts.append(None)
                continue
            if a._view is not None:  # what the requires_grad and grad_fn properties do
                refresh(a)
            needs.append(a._requires_grad)
            nexts.append((a._grad_fn or a) if a._requires_grad else None)
        _state.enabled = False
        try:
            result = self.forward(self, *args)
        finally:
            _state.enabled = True
        if True not in needs:
            return _wrap(result)
        data = result if type(result) is _ndarray else np.asarray(_wrap(result)._data)
        if data.dtype.kind != "f":  # integer or bool results carry no gradient
            return _wrap(data)
        self.needs_input_grad = tuple(needs)
        self.next_functions = tuple(nexts)
        self._shape, self._dtype = data.shape, data.dtype
        out = Tensor._make(data, True, self)
        for s in self._saved:
            if s is result:  # forward saved its own output
                self._save_output(result, out)
                break
        if _recording.active:  # inside graph_recording(): keep the arguments too
            record(self, args)
        return out

    def _save_output(self, result, out) -> None:
        """``forward`` saved its own result: keep it as a ``_SavedOutput`` (no reference
        cycle), sharing the output tensor's version counter."""
        out._counter = [0]
        saved, versions = list(self._saved), list(self._saved_versions)
        for i, s in enumerate(saved):
            if s is result:
                saved[i] = _SavedOutput(out._data, out._counter)
                versions[i] = 0
        self._saved, self._saved_versions = tuple(saved), tuple(versions)


_new = object.__new__
_ndarray = np.ndarray


def _is_tensor(x) -> bool:
    return type(x) in _TENSOR_TYPES


def _wrap(result):
    """A result of ``forward`` as a tensor that is not part of any graph."""
    if type(result) is not _ndarray:
        if type(result) in _TENSOR_TYPES:
            return result
        result = np.asarray(result)  # NumPy reductions return scalars, not 0-d arrays
    return Tensor._make(result, False, None)


# Bound at import time of minigrad.tensor (which imports this module first).
Tensor = None
_TENSOR_TYPES: set = set()


def _bind_tensor(tensor_cls) -> None:
    global Tensor
    Tensor = tensor_cls
    _TENSOR_TYPES.add(tensor_cls)


def register_tensor_type(cls) -> None:
    """Let a Tensor subclass (``nn.Parameter``) take part in ``Function.apply``."""
    _TENSOR_TYPES.add(cls)

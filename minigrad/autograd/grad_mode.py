"""Gradient mode: whether operations record a graph for backward.

One flag per thread, as in PyTorch, read by every operation (``Function.apply``) and by
the engine: a ``no_grad`` block in a serving thread never stops a training thread from
recording, and every new thread starts with recording on. ``no_grad`` and
``enable_grad`` work as context managers and as decorators, like PyTorch's.
"""

from __future__ import annotations

import functools
import threading


class _State(threading.local):
    """``_state.enabled``: this thread's grad mode. A thread that never set it reads the
    class attribute, so recording is on in every new thread."""

    enabled = True


_state = _State()


def is_grad_enabled() -> bool:
    """True when operations record the graph that backward needs."""
    return _state.enabled


class _GradMode:
    """Set the grad mode inside a ``with`` block or a decorated function."""

    _mode: bool

    def __enter__(self):
        self._prev = _state.enabled
        _state.enabled = self._mode
        return self

    def __exit__(self, *exc):
        _state.enabled = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            prev = _state.enabled  # the calling thread's mode, restored on the way out
            _state.enabled = self._mode
            try:
                return func(*args, **kwargs)
            finally:
                _state.enabled = prev

        return wrapper


class _NoArgGradMode(_GradMode):
    """Also usable as a bare decorator: ``@mg.no_grad`` as well as ``@mg.no_grad()``."""

    def __new__(cls, func=None):
        self = super().__new__(cls)
        if func is None:
            return self
        if not callable(func):
            raise TypeError(f"{cls.__name__}() takes no arguments, got {func!r}")
        return self(func)


class no_grad(_NoArgGradMode):
    """Disable graph recording: ``with mg.no_grad(): ...``, ``@mg.no_grad`` or ``@mg.no_grad()``."""

    _mode = False


class enable_grad(_NoArgGradMode):
    """Re-enable graph recording inside a ``no_grad`` region."""

    _mode = True


class set_grad_enabled(_GradMode):
    """Set the grad mode now (``mg.set_grad_enabled(False)``), or for a ``with`` block,
    restoring the previous mode at its end (``with mg.set_grad_enabled(training): ...``)."""

    def __init__(self, mode: bool):
        self._mode = bool(mode)
        self._prev = _state.enabled
        _state.enabled = self._mode

    def __enter__(self):  # the mode is already set; __exit__ restores the previous one
        return self

    def __call__(self, func):
        # As a decorator (``@mg.set_grad_enabled(False)``) it sets the mode only while
        # the function runs: undo the switch that building it made.
        _state.enabled = self._prev
        return super().__call__(func)

"""Gradient mode: whether operations record a graph for backward.

One process-wide flag, read by every operation (``Function.apply``). ``no_grad`` and
``enable_grad`` work as context managers and as decorators, like PyTorch's.
"""

from __future__ import annotations

import functools


class _State:
    enabled = True


_state = _State()


def is_grad_enabled() -> bool:
    """True when operations record the graph that backward needs."""
    return _state.enabled


def set_grad_enabled(mode: bool) -> None:
    _state.enabled = bool(mode)


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
        mode = self._mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            prev = _state.enabled
            _state.enabled = mode
            try:
                return func(*args, **kwargs)
            finally:
                _state.enabled = prev

        return wrapper


class no_grad(_GradMode):
    """Disable graph recording: ``with mg.no_grad(): ...`` or ``@mg.no_grad()``."""

    _mode = False


class enable_grad(_GradMode):
    """Re-enable graph recording inside a ``no_grad`` region."""

    _mode = True

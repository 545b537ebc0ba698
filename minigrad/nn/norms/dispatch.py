"""Which implementation the norms use: ``"fused"`` (default), ``"reference"`` or ``"composite"``.

    with nn.norm_impl("reference"):
        y = layer(x)                                  # every norm in the block
    y = F.layer_norm(x, (8,), impl="composite")      # one call (a minigrad extension)

The choice is process-wide, like the grad mode; the innermost ``norm_impl`` wins and
the previous choice comes back when its block ends. An ``impl=`` argument beats both.
"""

from __future__ import annotations

import functools

__all__ = ["IMPLEMENTATIONS", "current_impl", "norm_impl", "resolve_impl"]

IMPLEMENTATIONS = ("fused", "reference", "composite")


class _State:
    impl = "fused"


_state = _State()


def _check(name) -> str:
    if name not in IMPLEMENTATIONS:
        raise ValueError(
            f"norm implementation must be one of {', '.join(map(repr, IMPLEMENTATIONS))}, "
            f"got {name!r}"
        )
    return name


def current_impl() -> str:
    """The implementation norms use when the call does not name one."""
    return _state.impl


def resolve_impl(impl: str | None) -> str:
    """``impl`` if given (checked), else the current choice."""
    return _state.impl if impl is None else _check(impl)


class norm_impl:
    """Choose the implementation of every norm inside a ``with`` block (or a decorated
    function): ``"fused"`` (Numba kernels, the default), ``"reference"`` (NumPy forward
    and closed-form backward) or ``"composite"`` (minigrad primitives, autograd derives
    the backward).

    Example::

        >>> with nn.norm_impl("reference"):
        ...     y = nn.LayerNorm(4)(mg.randn(2, 4))
    """

    def __init__(self, impl: str):
        self.impl = _check(impl)
        self._previous = []

    def __enter__(self):
        self._previous.append(_state.impl)
        _state.impl = self.impl
        return self

    def __exit__(self, *exc):
        _state.impl = self._previous.pop()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return wrapper

"""``mg.amp.autocast``: a context manager and decorator that computes nothing differently
(see ``minigrad.amp``)."""

from __future__ import annotations

import functools
import warnings

__all__ = ["autocast", "is_autocast_available"]


def is_autocast_available(device_type: str) -> bool:
    return False


class autocast:
    """See the module docstring: a no-op context manager / decorator that says so."""

    def __init__(
        self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(
                f"autocast: expected device_type of type str, got {type(device_type).__name__}"
            )
        self.device_type = device_type
        self.fast_dtype = dtype
        self._enabled = False
        if not enabled:
            return
        if device_type != "cpu":
            warnings.warn(
                f"autocast: device_type '{device_type}' is not available (minigrad runs on "
                "the CPU only); disabling autocast",
                UserWarning,
                stacklevel=2,
            )
        else:
            name = getattr(dtype, "name", dtype) or "bfloat16"
            warnings.warn(
                f"autocast(device_type='cpu', dtype={name}): minigrad has no mixed precision; "
                "operations inside compute in their inputs' own dtypes (float32)",
                UserWarning,
                stacklevel=2,
            )

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        return wrapper

"""``mg.amp``: mixed precision, as PyTorch spells it, honest about doing nothing.

minigrad has no mixed-precision path: every operation computes in the dtype of its
inputs (float32 unless you ask for float64 or float16), and there is no bfloat16 type
(see ``minigrad.dtypes``). So:

- ``autocast(device_type, dtype=None, enabled=True)`` is a context manager and a
  decorator that changes nothing; when enabled it warns once, at construction, that
  the code inside runs in the tensors' own dtypes. With ``device_type="cuda"`` the
  warning is PyTorch's own case: CUDA is not available, autocast is disabled.
- ``GradScaler`` behaves as PyTorch's on a machine without CUDA: when enabled it warns
  and disables itself; ``scale(loss)`` returns ``loss``, ``step(optimizer)`` calls
  ``optimizer.step()``, ``update()`` and ``unscale_()`` do nothing, ``get_scale()`` is
  1.0. A training loop written for AMP therefore runs unchanged, in full precision.
"""

from __future__ import annotations

import functools
import warnings

__all__ = ["GradScaler", "autocast", "is_autocast_available"]


def is_autocast_available(device_type: str) -> bool:
    return False


class autocast:  # noqa: N801  (torch.amp.autocast)
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


class GradScaler:
    """Loss scaling for float16 training; disabled here (see the module docstring).

    Args: PyTorch's (``device``, ``init_scale``, ``growth_factor``, ``backoff_factor``,
    ``growth_interval``, ``enabled``); all accepted, none has an effect.
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
        _name: str = "torch.amp.GradScaler",
    ) -> None:
        self._device = device
        self._enabled = False
        if enabled:
            warnings.warn(
                f"{_name} is enabled, but minigrad has no CUDA and no mixed precision "
                "(everything computes in float32). Disabling: scale() returns the loss, "
                "step() calls optimizer.step().",
                UserWarning,
                stacklevel=2,
            )

    def is_enabled(self) -> bool:
        return self._enabled

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer) -> None:
        return None

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None) -> None:
        return None

    def get_scale(self) -> float:
        return 1.0

    def get_growth_factor(self) -> float:
        return 2.0

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        return None

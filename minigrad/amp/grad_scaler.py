"""``mg.amp.GradScaler``: PyTorch's loss scaler as it behaves without CUDA (see
``minigrad.amp``)."""

from __future__ import annotations

import warnings

__all__ = ["GradScaler"]  # DeviceGradScaler: the base of mg.cpu.amp and mg.cuda.amp's


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
                f"{_name} is enabled, but minigrad has no CUDA and no float16 training to "
                "scale losses for. Disabling: scale() returns the loss, "
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


class DeviceGradScaler(GradScaler):
    """PyTorch's older per-device spelling, ``torch.cpu.amp.GradScaler(...)`` and
    ``torch.cuda.amp.GradScaler(...)``: ``GradScaler(device_type, ...)`` with the device
    fixed by the subclass (``mg.cpu.amp``, ``mg.cuda.amp``) and PyTorch's arguments after it."""

    #: the device a subclass stands for: ``"cpu"`` or ``"cuda"``
    device_type: str

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        super().__init__(
            self.device_type,
            init_scale,
            growth_factor,
            backoff_factor,
            growth_interval,
            enabled,
            _name=f"torch.{self.device_type}.amp.GradScaler",
        )

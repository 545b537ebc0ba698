"""``mg.cpu.amp.GradScaler``: ``mg.amp.GradScaler("cpu", ...)``, PyTorch's older spelling."""

from __future__ import annotations

from minigrad.amp import grad_scaler as _amp

__all__ = ["GradScaler"]


class GradScaler(_amp.DeviceGradScaler):
    device_type = "cpu"

"""``mg.cuda.amp.GradScaler``: ``mg.amp.GradScaler("cuda", ...)``, PyTorch's older spelling."""

from __future__ import annotations

from minigrad.amp import grad_scaler as _amp

__all__ = ["GradScaler"]


class GradScaler(_amp.DeviceGradScaler):
    device_type = "cuda"

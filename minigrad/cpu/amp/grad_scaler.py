"""``mg.cpu.amp.GradScaler``: ``mg.amp.GradScaler("cpu", ...)``, PyTorch's older spelling."""

from __future__ import annotations

from minigrad.amp import grad_scaler as _amp

__all__ = ["GradScaler"]


class GradScaler(_amp.GradScaler):
    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        super().__init__(
            "cpu",
            init_scale,
            growth_factor,
            backoff_factor,
            growth_interval,
            enabled,
            _name="torch.cpu.amp.GradScaler",
        )

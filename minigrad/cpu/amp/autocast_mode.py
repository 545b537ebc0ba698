"""``mg.cpu.amp.autocast``: ``mg.amp.autocast("cpu", ...)``, PyTorch's older spelling."""

from __future__ import annotations

from minigrad.amp import autocast_mode as _amp

__all__ = ["autocast"]


class autocast(_amp.autocast):
    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True) -> None:
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

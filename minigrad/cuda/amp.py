"""``mg.cuda.amp``: PyTorch's older spelling of ``mg.amp`` for CUDA.

``GradScaler(...)`` is ``mg.amp.GradScaler("cuda", ...)`` and ``autocast(...)`` is
``mg.amp.autocast("cuda", ...)``: without CUDA both warn and do nothing, as PyTorch's.
"""

from __future__ import annotations

from minigrad import amp as _amp


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
            "cuda",
            init_scale,
            growth_factor,
            backoff_factor,
            growth_interval,
            enabled,
            _name="torch.cuda.amp.GradScaler",
        )


class autocast(_amp.autocast):  # noqa: N801
    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True) -> None:
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

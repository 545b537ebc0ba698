"""``mg.cpu.amp``: PyTorch's older spelling of ``mg.amp`` for the CPU:
``autocast(...)`` is ``mg.amp.autocast("cpu", ...)`` and ``GradScaler(...)`` is
``mg.amp.GradScaler("cpu", ...)``."""

from __future__ import annotations

from minigrad.cpu.amp.autocast_mode import autocast
from minigrad.cpu.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast"]

"""``mg.cpu.amp``: PyTorch's older spelling of ``mg.amp`` for the CPU:
``autocast(...)`` is ``mg.amp.autocast("cpu", ...)`` and ``GradScaler(...)`` is
``mg.amp.GradScaler("cpu", ...)``."""

from __future__ import annotations

from minigrad.cpu.amp.autocast_mode import autocast
from minigrad.cpu.amp.grad_scaler import GradScaler
from minigrad.unsupported import module_getattr

__all__ = ["GradScaler", "autocast"]

__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why

"""``mg.cuda.amp``: PyTorch's older spelling of ``mg.amp`` for CUDA.

``GradScaler(...)`` is ``mg.amp.GradScaler("cuda", ...)`` and ``autocast(...)`` is
``mg.amp.autocast("cuda", ...)``: without CUDA both warn and do nothing, as PyTorch's.
"""

from __future__ import annotations

from minigrad.cuda.amp.autocast_mode import autocast
from minigrad.cuda.amp.grad_scaler import GradScaler
from minigrad.unsupported import module_getattr

__all__ = ["GradScaler", "autocast"]

__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why

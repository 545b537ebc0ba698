"""``mg.cuda.amp.common``: whether CUDA mixed precision can run (it cannot)."""

from __future__ import annotations

__all__ = ["amp_definitely_not_available"]


def amp_definitely_not_available() -> bool:
    """True: there is no CUDA device, so CUDA autocast can never take effect."""
    return True

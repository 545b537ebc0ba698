"""``torch.autograd.set_detect_anomaly`` / ``detect_anomaly``: anomaly mode off is what
minigrad always runs in, so turning it off (``set_detect_anomaly(False)``, a line training
scripts carry) is accepted, as a call or a context; turning it on raises, since minigrad's
engine keeps no forward traces to report (``unsupported.json``, autograd hooks)."""

from __future__ import annotations

from minigrad.surface import settings

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class set_detect_anomaly:  # PyTorch's name: a function and a context
    """``set_detect_anomaly(False)``: accepted; ``True`` raises ``UnsupportedError``."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        settings.set_anomaly_enabled(bool(mode), check_nan)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return False


class detect_anomaly(set_detect_anomaly):
    """``with torch.autograd.detect_anomaly():`` turns anomaly mode on: it raises."""

    def __init__(self, check_nan: bool = True) -> None:
        super().__init__(True, check_nan)

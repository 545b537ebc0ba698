"""``mg.cpu``: PyTorch's ``torch.cpu``, the device minigrad computes on.

``is_available()`` is True, ``device_count()`` 1 and ``current_device()`` ``"cpu"``;
``synchronize()`` returns at once (every operation has finished when it returns) and
``set_device`` accepts the CPU. ``mg.cpu.amp.autocast(...)`` is
``mg.amp.autocast("cpu", ...)``. CPU streams and events are not provided (see
``unsupported.json``).
"""

from __future__ import annotations

from minigrad.cpu import amp
from minigrad.devices import check_device
from minigrad.unsupported import module_getattr

__all__ = [
    "amp",
    "current_device",
    "device_count",
    "is_available",
    "is_initialized",
    "set_device",
    "synchronize",
]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device) -> None:
    """Accepted for the CPU (PyTorch ignores it too); any other device raises."""
    check_device(device, "cpu.set_device")


def synchronize(device=None) -> None:
    """Nothing to wait for: every minigrad operation has finished when it returns."""


# Stream, Event, stream(), get_capabilities ...: unsupported.json
__getattr__ = module_getattr(__name__)

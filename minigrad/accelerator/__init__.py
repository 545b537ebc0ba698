"""``mg.accelerator``: PyTorch's device-agnostic accelerator API, answered for the CPU.

There is no accelerator: ``is_available()`` is False, ``device_count()`` 0 and
``current_accelerator()`` None, so the ``device = torch.accelerator.current_accelerator()
if torch.accelerator.is_available() else torch.device("cpu")`` line of PyTorch's examples
picks the CPU. The functions that need an accelerator (``synchronize``,
``current_device_index``, ``memory_allocated`` ...) raise PyTorch's ``RuntimeError``
when called, as PyTorch does on a machine without one; graphs and streams are
unsupported (``unsupported.json``).
"""

from __future__ import annotations

from minigrad.unsupported import module_getattr

__all__ = ["current_accelerator", "device_count", "is_available"]

_NONE = (
    "Cannot access accelerator device when none is available. (minigrad computes on the "
    "CPU only: use device='cpu'.)"
)


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False):
    """The accelerator in use: None (minigrad has none)."""
    return None


def _needs_a_device(name: str):
    def needs_a_device(*args, **kwargs):
        raise RuntimeError(_NONE)

    needs_a_device.__name__ = needs_a_device.__qualname__ = name
    needs_a_device.__doc__ = f"``torch.accelerator.{name}``: raises, there is no accelerator."
    return needs_a_device


for _name in (
    "current_device_index current_device_idx set_device_index set_device_idx current_stream "
    "set_stream synchronize empty_cache empty_host_cache get_device_capability "
    "get_memory_info max_memory_allocated max_memory_reserved memory_allocated "
    "memory_reserved memory_stats reset_accumulated_memory_stats reset_peak_memory_stats"
).split():
    globals()[_name] = _needs_a_device(_name)
del _name

__getattr__ = module_getattr(__name__)  # graphs, streams ...: unsupported.json

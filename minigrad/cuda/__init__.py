"""``mg.cuda``: what PyTorch programs ask about CUDA, answered for a CPU-only library.

``is_available()`` is False and ``device_count()`` 0, so code written as
``device = "cuda" if torch.cuda.is_available() else "cpu"`` picks the CPU by itself.
The questions a machine without a GPU can answer are answered as PyTorch answers them
there: the memory counters (``memory_allocated``, ``memory_reserved``,
``max_memory_reserved`` ...) are 0 and ``memory_stats()`` is empty; seeding
(``manual_seed``, ``manual_seed_all``, ``seed``), ``synchronize``, ``empty_cache`` and
the resets of the peak counters are accepted and do nothing. ``OutOfMemoryError`` is
an exception class (a ``RuntimeError``) that minigrad never raises, so ``except
torch.cuda.OutOfMemoryError:`` clauses work. Anything that needs a GPU
(``current_device``, ``get_device_name``, ``set_device``, ``Stream``, ``Event``,
``CUDAGraph``, ``mem_get_info`` ...) raises a clear error. ``mg.cuda.amp`` holds the
(deprecated in PyTorch) ``GradScaler`` and ``autocast``.
"""

from __future__ import annotations

from collections import OrderedDict

from minigrad.cuda import amp
from minigrad.devices import AcceleratorError, OutOfMemoryError
from minigrad.unsupported import module_getattr

__all__ = [
    "AcceleratorError",
    "OutOfMemoryError",
    "amp",
    "current_device",
    "device_count",
    "empty_cache",
    "get_arch_list",
    "get_rng_state_all",
    "host_memory_stats",
    "is_initialized",
    "is_tf32_supported",
    "max_memory_allocated",
    "max_memory_cached",
    "max_memory_reserved",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "memory_stats",
    "memory_stats_as_nested_dict",
    "reset_accumulated_memory_stats",
    "reset_max_memory_allocated",
    "reset_max_memory_cached",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "get_device_name",
    "is_available",
    "is_bf16_supported",
    "manual_seed",
    "manual_seed_all",
    "set_device",
    "synchronize",
]

_NO_GPU = (
    "minigrad runs on the CPU only: there is no CUDA device. Use device='cpu' (code that "
    "checks torch.cuda.is_available() picks it by itself); to train on GPUs, load the same "
    "state_dict into PyTorch (see docs/pytorch-compat.md)."
)


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_initialized() -> bool:
    return False


def is_tf32_supported() -> bool:
    return False


def get_arch_list() -> list[str]:
    """The CUDA architectures minigrad was built for: none."""
    return []


def manual_seed(seed: int) -> None:
    """Accepted and ignored: there is no CUDA generator (``mg.manual_seed`` seeds minigrad)."""


def manual_seed_all(seed: int) -> None:
    """Accepted and ignored, as ``manual_seed``."""


def seed() -> None:
    """Accepted and ignored: there is no CUDA generator to seed."""


def seed_all() -> None:
    """Accepted and ignored, as ``seed``."""


def get_rng_state_all() -> list:
    """The states of every CUDA generator: there are none."""
    return []


def synchronize(device=None) -> None:
    """Nothing to wait for: every minigrad operation has finished when it returns."""


def empty_cache() -> None:
    """Nothing to free: there is no GPU memory."""


def current_device() -> int:
    raise RuntimeError(f"cuda.current_device: {_NO_GPU}")


def get_device_name(device=None) -> str:
    raise RuntimeError(f"cuda.get_device_name: {_NO_GPU}")


def set_device(device) -> None:
    raise RuntimeError(f"cuda.set_device: {_NO_GPU}")


# ---- memory: minigrad allocates no device memory, so every counter is 0 (as PyTorch's
# on a machine without a GPU) and there is nothing to reset.
def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


def memory_cached(device=None) -> int:
    """PyTorch's old name of ``memory_reserved``."""
    return 0


def max_memory_cached(device=None) -> int:
    """PyTorch's old name of ``max_memory_reserved``."""
    return 0


def memory_stats(device=None) -> OrderedDict:
    return OrderedDict()


def memory_stats_as_nested_dict(device=None) -> dict:
    return {}


def host_memory_stats() -> OrderedDict:
    return OrderedDict()


def reset_peak_memory_stats(device=None) -> None:
    """Nothing to reset: every counter stays 0."""


def reset_max_memory_allocated(device=None) -> None:
    """Nothing to reset: every counter stays 0."""


def reset_max_memory_cached(device=None) -> None:
    """Nothing to reset: every counter stays 0."""


def reset_accumulated_memory_stats(device=None) -> None:
    """Nothing to reset: every counter stays 0."""


# Stream, Event, CUDAGraph, mem_get_info, get_device_properties ...: unsupported.json
__getattr__ = module_getattr(__name__)

"""``mg.cuda``: what PyTorch programs ask about CUDA, answered for a CPU-only library.

``is_available()`` is False and ``device_count()`` 0, so code written as
``device = "cuda" if torch.cuda.is_available() else "cpu"`` picks the CPU by itself.
Seeding (``manual_seed``, ``manual_seed_all``), ``synchronize`` and ``empty_cache`` are
accepted and do nothing, as in PyTorch on a machine without a GPU. Anything that needs
a GPU (``current_device``, ``get_device_name``, ``set_device``) raises a clear error.
``mg.cuda.amp`` holds the (deprecated in PyTorch) ``GradScaler`` and ``autocast``.
"""

from __future__ import annotations

from minigrad.cuda import amp

__all__ = [
    "amp",
    "current_device",
    "device_count",
    "empty_cache",
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


def manual_seed(seed: int) -> None:
    """Accepted and ignored: there is no CUDA generator (``mg.manual_seed`` seeds minigrad)."""


def manual_seed_all(seed: int) -> None:
    """Accepted and ignored, as ``manual_seed``."""


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


def max_memory_allocated(device=None) -> int:
    return 0


def memory_allocated(device=None) -> int:
    return 0

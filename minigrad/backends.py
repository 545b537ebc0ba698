"""``mg.backends``: the switches PyTorch programs set or read, for a CPU-only library.

``backends.cuda.matmul.allow_tf32 = True``, ``backends.cudnn.allow_tf32``,
``backends.cudnn.benchmark``, ``backends.cudnn.deterministic``: settable attributes that
are remembered and change nothing (there is no CUDA, cuDNN or TF32 here: float32
matmuls are full float32). ``backends.mps.is_available()`` and ``is_built()`` are
False, as ``backends.cuda.is_built()`` and ``backends.cudnn.is_available()``.
"""

from __future__ import annotations

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps"]


class _Switches:
    """A namespace of settable flags (with ``is_available`` / ``is_built`` answers)."""

    def __init__(self, name: str, **flags) -> None:
        self.__dict__["_name"] = name
        self.__dict__.update(flags)

    def __repr__(self) -> str:
        flags = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        flags = {k: v for k, v in flags.items() if not callable(v) and not isinstance(v, _Switches)}
        return f"<minigrad.backends.{self._name} {flags}>"


def _false(*args, **kwargs) -> bool:
    return False


cuda = _Switches(
    "cuda",
    matmul=_Switches(
        "cuda.matmul",
        allow_tf32=False,
        allow_fp16_reduced_precision_reduction=True,
        allow_bf16_reduced_precision_reduction=True,
    ),
    is_built=_false,
    flash_sdp_enabled=_false,
    mem_efficient_sdp_enabled=_false,
    math_sdp_enabled=lambda: True,
    enable_flash_sdp=lambda enabled: None,
    enable_mem_efficient_sdp=lambda enabled: None,
    enable_math_sdp=lambda enabled: None,
)
cudnn = _Switches(
    "cudnn",
    enabled=True,
    benchmark=False,
    deterministic=False,
    allow_tf32=True,
    is_available=_false,
    version=lambda: None,
)
mps = _Switches("mps", is_available=_false, is_built=_false)
mkldnn = _Switches("mkldnn", enabled=True, is_available=_false)
cpu = _Switches("cpu", get_cpu_capability=lambda: "DEFAULT")

"""``torch.backends.cuda``: TF32 and attention-kernel switches, remembered, changing nothing."""

from minigrad.backends._switches import Switches, false

matmul = Switches(
    "cuda.matmul",
    allow_tf32=False,
    allow_fp16_reduced_precision_reduction=True,
    allow_bf16_reduced_precision_reduction=True,
)
is_built = false
flash_sdp_enabled = false
mem_efficient_sdp_enabled = false


def math_sdp_enabled() -> bool:
    return True


def enable_flash_sdp(enabled: bool) -> None:
    """Accepted; minigrad's attention always uses its one (math) path."""


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Accepted; minigrad's attention always uses its one (math) path."""


def enable_math_sdp(enabled: bool) -> None:
    """Accepted; minigrad's attention always uses its one (math) path."""

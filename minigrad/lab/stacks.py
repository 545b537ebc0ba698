"""Deep stacks of transformer blocks at initialization, shared by several experiments.

A stack is a list of ``nn.TransformerBlock`` of one variant:

    "none"       x = x + attn(x);        x = x + ffn(x)          (no normalization at all)
    "pre-norm"   x = x + attn(norm1(x)); x = x + ffn(norm2(x))   (the stream is never normalized)
    "post-norm"  x = norm1(x + attn(x)); x = norm2(x + ffn(x))   (the stream is normalized)

Blocks run causally (a language model's attention) with no dropout.
"""

from __future__ import annotations

import contextlib

import numpy as np

import minigrad as mg
import minigrad.nn as nn

__all__ = ["VARIANTS", "make_stack", "random_stream", "seeded", "xavier_init"]

#: variant -> (the block's ``norm``, ``norm_first``)
VARIANTS = {
    "none": ("none", True),
    "pre-norm": ("layer", True),
    "post-norm": ("layer", False),
}


@contextlib.contextmanager
def seeded(seed: int):
    """Seed minigrad's generator for the block, then give the caller's state back."""
    saved = mg.get_rng_state()
    mg.manual_seed(seed)
    try:
        yield
    finally:
        mg.set_rng_state(saved)


def make_stack(
    variant: str,
    depth: int,
    d_model: int,
    nhead: int = 4,
    activation: str = "gelu",
    seed: int = 0,
) -> list[nn.TransformerBlock]:
    """``depth`` freshly initialized blocks (PyTorch's default init) of one variant."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    norm, norm_first = VARIANTS[variant]
    with seeded(seed):
        return [
            nn.TransformerBlock(
                d_model, nhead, 4 * d_model, 0.0,
                norm=norm, norm_first=norm_first, activation=activation,
            )
            for _ in range(depth)
        ]  # fmt: skip


def xavier_init(module: nn.Module, seed: int) -> None:
    """Xavier-uniform weight matrices and zero biases for every Linear in ``module``.

    This is the initialization of PyTorch's ``nn.Transformer`` and of Xiong et al. (2020);
    the attention's packed input projection is Xavier-uniform already.
    """
    with seeded(seed):
        for m in module.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)


def random_stream(batch: int, seq: int, d_model: int, seed: int) -> mg.Tensor:
    """A stream of unit-variance vectors (N, L, E), like fresh token embeddings."""
    rng = np.random.default_rng([seed, 7])
    return mg.tensor(rng.standard_normal((batch, seq, d_model)).astype(np.float32))

"""Attention against PyTorch, forward + backward, each library in its own process.

Times, on a [32, 64, 128] float32 batch with 2 threads (``harness.py``: alternated
rounds, ratio of medians):

- ``F.scaled_dot_product_attention`` with ``is_causal=True`` on (32, 4, 64, 32) heads;
- ``MultiheadAttention(128, 4, batch_first=True)`` self-attention, with
  ``need_weights=False`` (the path the transformer layers take) and ``need_weights=True``;
- one pre-norm ``TransformerEncoderLayer(128, 4, 512)`` with the causal mask and the
  ``is_causal`` hint, dropout 0.1, in training mode.

Both libraries load the same weights (NumPy draws in ``state_dict`` order).

    python benchmarks/bench_attention.py
"""

from __future__ import annotations

import numpy as np
from harness import Case, main

N, L, E, H, FF = 32, 64, 128, 4, 512


def _weights(shapes: dict) -> dict:
    rng = np.random.default_rng(0)
    out = {}
    for name, shape in shapes.items():
        if "norm" in name and name.endswith("weight"):
            out[name] = np.ones(shape, np.float32)
        else:
            bound = 1 / np.sqrt(shape[-1]) if len(shape) == 2 else 0.02
            out[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    return out


def _inputs(shape):
    rng = np.random.default_rng(1)
    return (
        rng.standard_normal(shape).astype(np.float32),
        rng.standard_normal(shape).astype(np.float32),
    )


def sdpa(lib: str):
    shape = (N, H, L, E // H)
    x, g = _inputs(shape)
    if lib == "minigrad":
        import minigrad as mg
        import minigrad.nn.functional as F

        q, k, v = (mg.tensor(x, requires_grad=True) for _ in range(3))
        G = mg.tensor(g)
        return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(G)
    import torch

    q, k, v = (torch.tensor(x, requires_grad=True) for _ in range(3))
    G = torch.tensor(g)
    sd = torch.nn.functional.scaled_dot_product_attention
    return lambda: sd(q, k, v, is_causal=True).backward(G)


def _module_case(lib: str, make, call):
    x, g = _inputs((N, L, E))
    if lib == "minigrad":
        import minigrad as mg
        import minigrad.nn as nn

        lib_mod, tensor = nn, mg.tensor
    else:
        import torch

        lib_mod, tensor = torch.nn, torch.tensor
    module = make(lib_mod)
    module.load_state_dict(
        {
            k: tensor(v)
            for k, v in _weights(
                {k: tuple(v.shape) for k, v in module.state_dict().items()}
            ).items()
        }
    )
    X, G = tensor(x, requires_grad=True), tensor(g)
    return lambda: call(lib, lib_mod, module, X).backward(G)


def mha(lib: str, need_weights: bool):
    def make(nn):
        return nn.MultiheadAttention(E, H, batch_first=True)

    def call(lib, nn, m, x):
        return m(x, x, x, need_weights=need_weights)[0]

    return _module_case(lib, make, call)


def encoder_layer(lib: str):
    def make(nn):
        layer = nn.TransformerEncoderLayer(
            E, H, FF, dropout=0.1, norm_first=True, batch_first=True, activation="gelu"
        )
        return layer.train()

    masks = {}

    def call(lib, nn, m, x):
        if lib not in masks:
            if lib == "minigrad":
                masks[lib] = nn.generate_square_subsequent_mask(L)
            else:
                masks[lib] = nn.Transformer.generate_square_subsequent_mask(L)
        return m(x, src_mask=masks[lib], is_causal=True)

    return _module_case(lib, make, call)


CASES = [
    Case("F.scaled_dot_product_attention causal (32, 4, 64, 32)", sdpa),
    Case("MultiheadAttention need_weights=False", mha, need_weights=False),
    Case("MultiheadAttention need_weights=True", mha, need_weights=True),
    Case("TransformerEncoderLayer pre-norm, causal, dropout 0.1", encoder_layer),
]

if __name__ == "__main__":
    main(CASES, title=f"forward + backward on [{N}, {L}, {E}] float32")

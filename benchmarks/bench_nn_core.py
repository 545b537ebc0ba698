"""Speed of the nn core against PyTorch: Linear, GELU, SiLU, ReLU, Dropout,
cross-entropy, Embedding (forward + backward) and an AdamW step.

Shapes are those of a small character-level transformer on a CPU (4,096 tokens,
d_model 384, MLP width 1,536, vocabulary 65), plus a 50,257-word vocabulary for the
embedding backward. Each library runs in its own process (``harness.py``): same seeded
inputs, same thread count; the ratio is minigrad / PyTorch (lower is better).

    python benchmarks/bench_nn_core.py [--rounds 3] [--only GELU]
"""

from __future__ import annotations

import numpy as np
from harness import Case, main

N, D, H, V = 4096, 384, 1536, 65


def _lib(lib: str):
    if lib == "minigrad":
        import minigrad

        return minigrad
    import torch

    return torch


def _leaf(L, array):
    return L.tensor(array, requires_grad=True)


def _seeded_linear(L, rng, d_in, d_out):
    layer = L.nn.Linear(d_in, d_out)
    bound = 1.0 / np.sqrt(d_in)
    with L.no_grad():
        layer.weight.copy_(L.tensor(rng.uniform(-bound, bound, (d_out, d_in)).astype(np.float32)))
        layer.bias.copy_(L.tensor(rng.uniform(-bound, bound, d_out).astype(np.float32)))
    return layer


def linear(lib: str):
    """Linear(384, 1536) on [8, 512, 384], backward of a given cotangent."""
    L = _lib(lib)
    rng = np.random.default_rng(0)
    layer = _seeded_linear(L, rng, D, H)
    x = _leaf(L, rng.standard_normal((8, N // 8, D)).astype(np.float32))
    g = L.tensor(rng.standard_normal((8, N // 8, H)).astype(np.float32))

    def run():
        layer(x).backward(g)
        x.grad = layer.weight.grad = layer.bias.grad = None

    return run


def pointwise(lib: str, op: str, approximate: str | None = None):
    """F.<op> on [4096, 1536], backward of a given cotangent."""
    L = _lib(lib)
    rng = np.random.default_rng(0)
    x = _leaf(L, rng.standard_normal((N, H)).astype(np.float32))
    g = L.tensor(rng.standard_normal((N, H)).astype(np.float32))
    f = getattr(L.nn.functional, op)
    kwargs = {} if approximate is None else {"approximate": approximate}

    def run():
        f(x, **kwargs).backward(g)
        x.grad = None

    return run


def dropout(lib: str):
    """F.dropout(p=0.1, training=True) on [4096, 1536] (each library draws its own mask)."""
    L = _lib(lib)
    rng = np.random.default_rng(0)
    x = _leaf(L, rng.standard_normal((N, H)).astype(np.float32))
    g = L.tensor(rng.standard_normal((N, H)).astype(np.float32))

    def run():
        L.nn.functional.dropout(x, 0.1, True).backward(g)
        x.grad = None

    return run


def cross_entropy(lib: str, classes: int, smoothing: float = 0.0):
    """F.cross_entropy on [4096, classes] logits, mean over the batch, backward."""
    L = _lib(lib)
    rng = np.random.default_rng(0)
    x = _leaf(L, rng.standard_normal((N, classes)).astype(np.float32))
    t = L.tensor(rng.integers(0, classes, N))

    def run():
        L.nn.functional.cross_entropy(x, t, label_smoothing=smoothing).backward()
        x.grad = None

    return run


def embedding(lib: str, vocab: int):
    """Embedding(vocab, 384) looked up at [8, 512] indices, backward to the weight."""
    L = _lib(lib)
    rng = np.random.default_rng(0)
    emb = L.nn.Embedding(vocab, D)
    with L.no_grad():
        emb.weight.copy_(L.tensor(rng.standard_normal((vocab, D)).astype(np.float32)))
    idx = L.tensor(rng.integers(0, vocab, (8, N // 8)))
    g = L.tensor(rng.standard_normal((8, N // 8, D)).astype(np.float32))

    def run():
        emb(idx).backward(g)
        emb.weight.grad = None

    return run


def adamw(lib: str):
    """One AdamW step over 12 x Linear(384, 384) (1.8 M parameters), gradients given."""
    L = _lib(lib)
    rng = np.random.default_rng(0)
    model = L.nn.Sequential(*[_seeded_linear(L, rng, D, D) for _ in range(12)])
    opt = L.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    for p in model.parameters():
        p.grad = L.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32))
    return opt.step


CASES = [
    Case("Linear(384, 1536) fwd+bwd, 4096 tokens", linear),
    Case("GELU fwd+bwd, 4096 x 1536", pointwise, op="gelu"),
    Case("GELU(tanh) fwd+bwd, 4096 x 1536", pointwise, op="gelu", approximate="tanh"),
    Case("SiLU fwd+bwd, 4096 x 1536", pointwise, op="silu"),
    Case("ReLU fwd+bwd, 4096 x 1536", pointwise, op="relu"),
    Case("Dropout(0.1) fwd+bwd, 4096 x 1536", dropout),
    Case("cross_entropy fwd+bwd, 4096 x 65", cross_entropy, classes=65),
    Case("cross_entropy(smoothing) fwd+bwd, 4096 x 65", cross_entropy, classes=65, smoothing=0.1),
    Case("cross_entropy fwd+bwd, 4096 x 8192", cross_entropy, classes=8192),
    Case("Embedding(65, 384) fwd+bwd, 4096 tokens", embedding, vocab=65),
    Case("Embedding(50257, 384) fwd+bwd, 4096 tokens", embedding, vocab=50257),
    Case("AdamW step, 12 x Linear(384, 384)", adamw),
]

if __name__ == "__main__":
    main(CASES, title="nn core: minigrad vs PyTorch, each in its own process")

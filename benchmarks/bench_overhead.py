"""Per-operation overhead of the autograd engine, against PyTorch's eager mode.

Small models on a CPU spend much of their time in the Python work around each
operation, so this times, forward and backward through autograd:

- a chain of 1,000 elementwise operations (mul, add, tanh, sub, repeated) on 8 and
  1,024 elements, then ``sum().backward()``;
- a 2-layer MLP written with raw matmuls (32 x 64 -> 128 -> ReLU -> 10);
- a residual block, LayerNorm -> GELU -> Linear, on [4, 16, 64];
- the chain forward alone (graph recording without the backward).

Each library runs in its own process (``harness.py``): same seeded inputs, same thread
count, medians over many samples, the ratio minigrad / PyTorch (lower is better).

    python benchmarks/bench_overhead.py [--rounds 3] [--only chain]
"""

from __future__ import annotations

import numpy as np
from harness import Case, main

CHAIN = 1000  # operations: CHAIN // 4 rounds of (mul, add, tanh, sub)


def _lib(lib: str):
    if lib == "minigrad":
        import minigrad

        return minigrad
    import torch

    return torch


def chain(lib: str, n: int, backward: bool = True):
    """x -> tanh(x * 1.0001 + 0.001) - 0.001, 250 times (1,000 ops), then sum (and
    backward). The values stay small and finite (tanh keeps them in (-1, 1))."""
    L = _lib(lib)
    x0 = (np.random.default_rng(0).standard_normal(n) * 0.1).astype(np.float32)
    x = L.tensor(x0, requires_grad=True)

    def run():
        y = x
        for _ in range(CHAIN // 4):
            y = y * 1.0001
            y = y + 0.001
            y = y.tanh()
            y = y - 0.001
        if backward:
            y.sum().backward()
            x.grad = None
        return y

    return run


def mlp(lib: str):
    """relu(x @ W1 + b1) @ W2 + b2 on a batch of 32, summed, backward to W1 b1 W2 b2."""
    L = _lib(lib)
    rng = np.random.default_rng(0)
    x = L.tensor(rng.standard_normal((32, 64)).astype(np.float32))
    arrays = [
        rng.uniform(-0.125, 0.125, (64, 128)),
        rng.uniform(-0.125, 0.125, 128),
        rng.uniform(-0.09, 0.09, (128, 10)),
        rng.uniform(-0.09, 0.09, 10),
    ]
    params = [L.tensor(a.astype(np.float32), requires_grad=True) for a in arrays]
    w1, b1, w2, b2 = params

    def run():
        h = (x @ w1 + b1).relu()
        (h @ w2 + b2).sum().backward()
        for p in params:
            p.grad = None

    return run


def block(lib: str):
    """x + Linear(GELU(LayerNorm(x))) on [4, 16, 64], summed, backward to x and params."""
    L = _lib(lib)
    nn = L.nn
    rng = np.random.default_rng(0)
    norm, gelu, linear = nn.LayerNorm(64), nn.GELU(), nn.Linear(64, 64)
    with L.no_grad():
        linear.weight.copy_(L.tensor(rng.uniform(-0.125, 0.125, (64, 64)).astype(np.float32)))
        linear.bias.copy_(L.tensor(rng.uniform(-0.125, 0.125, 64).astype(np.float32)))
    x = L.tensor(rng.standard_normal((4, 16, 64)).astype(np.float32), requires_grad=True)
    params = [x, norm.weight, norm.bias, linear.weight, linear.bias]

    def run():
        (x + linear(gelu(norm(x)))).sum().backward()
        for p in params:
            p.grad = None

    return run


CASES = [
    Case(f"chain of {CHAIN} ops, 8 elements, fwd+bwd", chain, n=8),
    Case(f"chain of {CHAIN} ops, 1024 elements, fwd+bwd", chain, n=1024),
    Case("MLP 32x64 -> 128 -> 10 (raw matmuls), fwd+bwd", mlp),
    Case("LayerNorm -> GELU -> Linear residual [4, 16, 64], fwd+bwd", block),
    Case(f"chain of {CHAIN} ops, 8 elements, forward only", chain, n=8, backward=False),
]

if __name__ == "__main__":
    main(CASES, title="Per-op overhead: minigrad vs PyTorch, each in its own process")

"""Speed of the nn core against PyTorch: Linear, GELU, SiLU, cross-entropy, Embedding,
Dropout (forward + backward) and an AdamW step, in the same process, interleaved.

Shapes are those of a small character-level transformer on a CPU (4,096 tokens,
d_model 384, MLP width 1,536, vocabulary 65), plus a 50,257-word vocabulary for the
embedding backward. Prints the medians and the ratio minigrad / torch (lower is better).

    python benchmarks/bench_nn_core.py
"""

from __future__ import annotations

import numpy as np
from _timing import fmt_time, interleaved, try_import_torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim

N, D, H, V = 4096, 384, 1536, 65


def _leaf(lib, arr):
    t = lib.tensor(arr)
    t.requires_grad = True
    return t


def linear_case(lib, lib_nn, lib_F, rng):
    layer = lib_nn.Linear(D, H)
    x = _leaf(lib, rng.standard_normal((8, N // 8, D)).astype(np.float32))
    g = lib.tensor(rng.standard_normal((8, N // 8, H)).astype(np.float32))

    def step():
        y = layer(x)
        y.backward(g)
        x.grad = None
        layer.weight.grad = None
        layer.bias.grad = None

    return step


def pointwise_case(fn_name, **kwargs):
    def make(lib, lib_nn, lib_F, rng):
        x = _leaf(lib, rng.standard_normal((N, H)).astype(np.float32))
        g = lib.tensor(rng.standard_normal((N, H)).astype(np.float32))
        fn = getattr(lib_F, fn_name)

        def step():
            fn(x, **kwargs).backward(g)
            x.grad = None

        return step

    return make


def dropout_case(lib, lib_nn, lib_F, rng):
    x = _leaf(lib, rng.standard_normal((N, H)).astype(np.float32))
    g = lib.tensor(rng.standard_normal((N, H)).astype(np.float32))

    def step():
        lib_F.dropout(x, 0.1, True).backward(g)
        x.grad = None

    return step


def cross_entropy_case(num_classes, smoothing=0.0):
    def make(lib, lib_nn, lib_F, rng):
        x = _leaf(lib, rng.standard_normal((N, num_classes)).astype(np.float32))
        t = lib.tensor(rng.integers(0, num_classes, N))

        def step():
            lib_F.cross_entropy(x, t, label_smoothing=smoothing).backward()
            x.grad = None

        return step

    return make


def embedding_case(vocab):
    def make(lib, lib_nn, lib_F, rng):
        emb = lib_nn.Embedding(vocab, D)
        idx = lib.tensor(rng.integers(0, vocab, (8, N // 8)))
        g = lib.tensor(rng.standard_normal((8, N // 8, D)).astype(np.float32))

        def step():
            emb(idx).backward(g)
            emb.weight.grad = None

        return step

    return make


def adamw_case(lib, lib_nn, lib_F, rng, lib_optim):
    model = lib_nn.Sequential(*[lib_nn.Linear(D, D) for _ in range(12)])  # 1.8 M parameters
    opt = lib_optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    for p in model.parameters():
        p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32))

    def step():
        opt.step()

    return step


CASES = [
    ("Linear(384, 1536) fwd+bwd, 4096 tokens", linear_case),
    ("GELU fwd+bwd, 4096 x 1536", pointwise_case("gelu")),
    ("GELU(tanh) fwd+bwd, 4096 x 1536", pointwise_case("gelu", approximate="tanh")),
    ("SiLU fwd+bwd, 4096 x 1536", pointwise_case("silu")),
    ("ReLU fwd+bwd, 4096 x 1536", pointwise_case("relu")),
    ("Dropout(0.1) fwd+bwd, 4096 x 1536", dropout_case),
    ("cross_entropy fwd+bwd, 4096 x 65", cross_entropy_case(65)),
    ("cross_entropy(smoothing) fwd+bwd, 4096 x 65", cross_entropy_case(65, 0.1)),
    ("cross_entropy fwd+bwd, 4096 x 8192", cross_entropy_case(8192)),
    ("Embedding(65, 384) fwd+bwd, 4096 tokens", embedding_case(65)),
    ("Embedding(50257, 384) fwd+bwd, 4096 tokens", embedding_case(50257)),
    ("AdamW step, 12 x Linear(384, 384)", adamw_case),
]


def main() -> None:
    torch = try_import_torch()
    print(f"{'case':48s} {'minigrad':>11s} {'torch':>11s} {'ratio':>7s}")
    for name, make in CASES:
        rng = np.random.default_rng(0)
        extra = (optim,) if make is adamw_case else ()
        fns = {"minigrad": make(mg, nn, F, rng, *extra)}
        if torch is not None:
            extra_t = (torch.optim,) if make is adamw_case else ()
            fns["torch"] = make(
                torch, torch.nn, torch.nn.functional, np.random.default_rng(0), *extra_t
            )
        times = interleaved(fns, repeats=9)
        t_mg = times["minigrad"]
        t_torch = times.get("torch")
        ratio = f"{t_mg / t_torch:6.2f}x" if t_torch else "   n/a"
        torch_s = fmt_time(t_torch) if t_torch else "        n/a"
        print(f"{name:48s} {fmt_time(t_mg)} {torch_s} {ratio}")


if __name__ == "__main__":
    main()

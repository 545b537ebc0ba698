"""Per-operation overhead of the autograd engine, against PyTorch's eager mode.

Tiny transformers on a CPU spend much of their time in the Python work around each
operation, so this times (1) forward and backward of a chain of 1,000 elementwise ops
on small tensors (8 and 1,024 elements) and (2) one training step of a 2-layer MLP,
in minigrad and in PyTorch (when installed), interleaved, and prints the ratios.

    python benchmarks/bench_overhead.py
"""

from __future__ import annotations

import numpy as np
from _timing import fmt_time, interleaved, try_import_torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim

CHAIN = 1000


def chain_fn(lib, n: int):
    """x -> ((x * a) + b) * a + b ... (1,000 ops), then sum and backward."""
    x = lib.ones(n, requires_grad=True)

    def step():
        y = x
        for _ in range(CHAIN // 2):
            y = y * 1.0001
            y = y + 0.001
        y.sum().backward()
        x.grad = None

    return step


def chain_fwd_fn(lib, n: int):
    x = lib.ones(n, requires_grad=True)

    def step():
        y = x
        for _ in range(CHAIN // 2):
            y = y * 1.0001
            y = y + 0.001
        return y

    return step


def mlp_fn(lib, nn_mod, F_mod, optim_mod, weights):
    """One SGD step of Linear(64, 128) -> ReLU -> Linear(128, 10) on a batch of 32."""
    model = nn_mod.Sequential(nn_mod.Linear(64, 128), nn_mod.ReLU(), nn_mod.Linear(128, 10))
    model.load_state_dict({k: lib.tensor(v) for k, v in weights["params"].items()})
    opt = optim_mod.SGD(model.parameters(), lr=0.1)
    x = lib.tensor(weights["x"])
    y = lib.tensor(weights["y"])

    def step():
        opt.zero_grad()
        loss = F_mod.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    return step


def main() -> None:
    torch = try_import_torch()
    rows = []
    for n in (8, 1024):
        fns = {"minigrad": chain_fn(mg, n)}
        if torch is not None:
            fns["torch"] = chain_fn(torch, n)
        rows.append((f"chain of {CHAIN} ops, {n} elements: forward+backward", interleaved(fns)))
        fns = {"minigrad": chain_fwd_fn(mg, n)}
        if torch is not None:
            fns["torch"] = chain_fwd_fn(torch, n)
        rows.append((f"chain of {CHAIN} ops, {n} elements: forward only", interleaved(fns)))

    rng = np.random.default_rng(0)
    weights = {
        "params": {
            "0.weight": rng.uniform(-0.125, 0.125, (128, 64)).astype(np.float32),
            "0.bias": rng.uniform(-0.125, 0.125, 128).astype(np.float32),
            "2.weight": rng.uniform(-0.09, 0.09, (10, 128)).astype(np.float32),
            "2.bias": rng.uniform(-0.09, 0.09, 10).astype(np.float32),
        },
        "x": rng.standard_normal((32, 64)).astype(np.float32),
        "y": rng.integers(0, 10, 32),
    }
    fns = {"minigrad": mlp_fn(mg, nn, F, optim, weights)}
    if torch is not None:
        fns["torch"] = mlp_fn(torch, torch.nn, torch.nn.functional, torch.optim, weights)
    rows.append(
        (
            "2-layer MLP training step (32 x 64 -> 128 -> 10, SGD)",
            interleaved(fns, repeats=31, number=20),
        )
    )

    print(f"{'case':64s} {'minigrad':>12s} {'torch':>12s} {'ratio':>7s}")
    for name, times in rows:
        t_mg = times["minigrad"]
        t_torch = times.get("torch")
        ratio = f"{t_mg / t_torch:6.2f}x" if t_torch else "   n/a"
        torch_s = fmt_time(t_torch) if t_torch else "n/a"
        print(f"{name:64s} {fmt_time(t_mg):>12s} {torch_s:>12s} {ratio:>7s}")
    if torch is None:
        print("(PyTorch is not installed: no ratios)")


if __name__ == "__main__":
    main()

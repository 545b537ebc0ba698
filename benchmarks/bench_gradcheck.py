"""How long a gradient check takes: minigrad's gradcheck against torch.autograd.gradcheck.

Cases (issue 7): LayerNorm with weight and bias on a [16, 64] input, full check; and on
[256, 256] in fast mode (random directions instead of every element). Both libraries
check the same composite LayerNorm (built from elementwise operations) in float64, on
the same seeded inputs, each in its own process (``harness.py``).

    python benchmarks/bench_gradcheck.py [--rounds 3] [--samples 5]
"""

from __future__ import annotations

import numpy as np
from harness import Case, main


def layer_norm(x, w, b):
    mu = x.mean(-1, keepdim=True)
    xc = x - mu
    return xc * ((xc * xc).mean(-1, keepdim=True) + 1e-5).rsqrt() * w + b


def check(lib: str, shape, fast: bool):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape), rng.standard_normal(shape[-1])]
    arrays.append(rng.standard_normal(shape[-1]))
    if lib == "minigrad":
        import minigrad as mg

        xs = [mg.tensor(a, requires_grad=True) for a in arrays]
        return lambda: mg.gradcheck(layer_norm, xs, fast_mode=fast)
    import torch

    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    return lambda: torch.autograd.gradcheck(layer_norm, ts, fast_mode=fast)


CASES = [
    Case("LayerNorm [16, 64] + weight + bias, full", check, shape=(16, 64), fast=False),
    Case("LayerNorm [256, 256] + weight + bias, fast mode", check, shape=(256, 256), fast=True),
]

if __name__ == "__main__":
    main(CASES, title="gradcheck: minigrad vs torch.autograd.gradcheck, separate processes")

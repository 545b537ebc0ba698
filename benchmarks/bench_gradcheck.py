"""How long a gradient check takes: minigrad's gradcheck against torch.autograd.gradcheck.

Cases (issue 7): LayerNorm with weight and bias on a [16, 64] input, full check; and on
[256, 256] in fast mode (random directions instead of every element). Both libraries
check the same composite LayerNorm in float64, interleaved.

    python benchmarks/bench_gradcheck.py
"""

from __future__ import annotations

import numpy as np
from _timing import fmt_time, interleaved, try_import_torch

import minigrad as mg


def layer_norm(x, w, b):
    mu = x.mean(-1, keepdim=True)
    xc = x - mu
    return xc * ((xc * xc).mean(-1, keepdim=True) + 1e-5).rsqrt() * w + b


def main() -> None:
    torch = try_import_torch()
    rng = np.random.default_rng(0)
    for shape, fast in (((16, 64), False), ((256, 256), True)):
        arrays = [
            rng.standard_normal(shape),
            rng.standard_normal(shape[-1]),
            rng.standard_normal(shape[-1]),
        ]
        xs = [mg.tensor(a, requires_grad=True) for a in arrays]
        fns = {"minigrad": lambda xs=xs, fast=fast: mg.gradcheck(layer_norm, xs, fast_mode=fast)}
        if torch is not None:
            ts = [torch.tensor(a, requires_grad=True) for a in arrays]
            fns["torch"] = lambda ts=ts, fast=fast: torch.autograd.gradcheck(
                layer_norm, ts, fast_mode=fast
            )
        times = interleaved(fns, repeats=5, warmup=1)
        mode = "fast mode" if fast else "full"
        line = f"LayerNorm {list(shape)} + weight + bias, {mode}: minigrad {fmt_time(times['minigrad'])}"
        if "torch" in times:
            line += f", torch {fmt_time(times['torch'])}, ratio {times['minigrad'] / times['torch']:.2f}x"
        print(line)


if __name__ == "__main__":
    main()

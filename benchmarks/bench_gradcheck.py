"""How long a gradient check takes: minigrad's checks against torch.autograd.gradcheck.

Cases, each checked by both libraries in float64, on the same seeded inputs, each in its
own process (``harness.py``):

- LayerNorm with weight and bias on a [16, 64] input, full check; and on [256, 256] in
  fast mode (random directions instead of every element). Both libraries check the same
  composite LayerNorm (built from elementwise operations).
- A transformer encoder layer (width 8, 2 heads, feed-forward 16, batch 2 x 5), checked
  for its input and every parameter: ``gradcheck_module`` against
  ``torch.autograd.gradcheck`` of the same layer as a function of its input and
  parameters (``torch.func.functional_call``), with the same weights (loaded through
  ``state_dict``).

docs/gradcheck.md gives no ratio until these have been measured on a quiet machine:
run it there, several rounds, and put the medians and the per-round spread in the docs.

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


def module_check(lib: str, width: int, heads: int, hidden: int, batch: int, steps: int):
    """A TransformerEncoderLayer checked for its input and every parameter."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, steps, width))
    if lib == "minigrad":
        import minigrad as mg
        import minigrad.nn as nn
        from minigrad.gradcheck import gradcheck_module

        layer = nn.TransformerEncoderLayer(width, heads, hidden, dropout=0.0, batch_first=True)
        state = {k: rng.standard_normal(v.shape) * 0.3 for k, v in layer.state_dict().items()}
        layer.load_state_dict(state)
        inputs = mg.tensor(x)
        return lambda: gradcheck_module(layer, inputs)
    import torch
    from torch.func import functional_call

    layer = torch.nn.TransformerEncoderLayer(
        width, heads, hidden, dropout=0.0, batch_first=True, dtype=torch.float64
    )
    state = {k: rng.standard_normal(v.shape) * 0.3 for k, v in layer.state_dict().items()}
    layer.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    names = [name for name, _ in layer.named_parameters()]
    params = [p.detach().clone().requires_grad_() for _, p in layer.named_parameters()]
    inputs = torch.tensor(x, requires_grad=True)

    def f(x, *values):
        return functional_call(layer, dict(zip(names, values)), (x,))

    return lambda: torch.autograd.gradcheck(f, (inputs, *params))


CASES = [
    Case("LayerNorm [16, 64] + weight + bias, full", check, shape=(16, 64), fast=False),
    Case("LayerNorm [256, 256] + weight + bias, fast mode", check, shape=(256, 256), fast=True),
    Case(
        "TransformerEncoderLayer 8/2/16, batch 2 x 5: input and every parameter",
        module_check,
        width=8,
        heads=2,
        hidden=16,
        batch=2,
        steps=5,
    ),
]

if __name__ == "__main__":
    main(CASES, title="gradcheck: minigrad vs torch.autograd.gradcheck, separate processes")

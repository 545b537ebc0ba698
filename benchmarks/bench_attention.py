"""Attention against PyTorch: forward + backward, interleaved, as ratios of medians.

Times (1) ``MultiheadAttention(128, 4, batch_first=True)`` self-attention on a
[32, 64, 128] float32 batch, with ``need_weights=False`` (the fused path the layers use)
and ``need_weights=True``, and (2) one pre-norm ``TransformerEncoderLayer(128, 4, 512)``
with a causal mask and dropout 0.1, in minigrad and in PyTorch (same weights).

    python benchmarks/bench_attention.py
"""

from __future__ import annotations

import numpy as np
from _timing import fmt_time, interleaved, try_import_torch

import minigrad as mg
import minigrad.nn as nn

N, L, E, H, FF = 32, 64, 128, 4, 512


def _pair(torch, make_mine, make_ref, call_mine, call_ref):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, L, E)).astype(np.float32)
    g = rng.standard_normal((N, L, E)).astype(np.float32)
    ref = make_ref()
    mine = make_mine()
    mine.load_state_dict({k: v.detach().numpy() for k, v in ref.state_dict().items()})
    X, G = mg.tensor(x, requires_grad=True), mg.tensor(g)
    TX, TG = torch.tensor(x, requires_grad=True), torch.tensor(g)

    def step_mine():
        call_mine(mine, X).backward(G)

    def step_ref():
        call_ref(ref, TX).backward(TG)

    return step_mine, step_ref


def main() -> None:
    torch = try_import_torch()
    if torch is None:
        raise SystemExit("PyTorch is not installed: nothing to compare against")
    cases = {}
    for need in (False, True):
        cases[f"MultiheadAttention need_weights={need}"] = _pair(
            torch,
            lambda: nn.MultiheadAttention(E, H, batch_first=True),
            lambda: torch.nn.MultiheadAttention(E, H, batch_first=True),
            lambda m, x, need=need: m(x, x, x, need_weights=need)[0],
            lambda m, x, need=need: m(x, x, x, need_weights=need)[0],
        )
    mask = nn.generate_square_subsequent_mask(L)
    ref_mask = torch.nn.Transformer.generate_square_subsequent_mask(L)
    kw = dict(dropout=0.1, norm_first=True, batch_first=True)
    cases["TransformerEncoderLayer (train)"] = _pair(
        torch,
        lambda: nn.TransformerEncoderLayer(E, H, FF, **kw),
        lambda: torch.nn.TransformerEncoderLayer(E, H, FF, **kw),
        lambda m, x: m(x, src_mask=mask, is_causal=True),
        lambda m, x: m(x, src_mask=ref_mask, is_causal=True),
    )
    print(f"forward + backward on [{N}, {L}, {E}] float32, torch threads = 2")
    for name, (mine, ref) in cases.items():
        t = interleaved({"minigrad": mine, "torch": ref}, repeats=15)
        ratio = t["minigrad"] / t["torch"]
        print(
            f"{name:40s} minigrad {fmt_time(t['minigrad'])}  torch {fmt_time(t['torch'])}  "
            f"ratio {ratio:.2f}"
        )


if __name__ == "__main__":
    main()

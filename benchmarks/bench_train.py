"""One training step of a tiny transformer: minigrad against PyTorch, same model and batch.

The step is forward, cross-entropy, backward and AdamW, in float32 with 2 threads
(matmuls, kernels and PyTorch's pool), for a decoder-only model: token and position
embeddings, pre-norm TransformerBlocks with GELU and a causal mask, a final LayerNorm,
a linear head. PyTorch's model is built from ``nn.TransformerEncoderLayer`` with the
same names and receives minigrad's initial weights, so both compute the same thing.

    python benchmarks/bench_train.py            # step times, tokens/s, ratio
    python benchmarks/bench_train.py --profile  # where minigrad's step spends its time
    python benchmarks/bench_train.py --memory   # peak RSS of each, in separate processes
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import subprocess
import sys
import time

import numpy as np
from _timing import fmt_time, try_import_torch

import minigrad as mg
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.threads import keep_freed_memory, set_num_threads
from minigrad.train.model import TinyTransformer

SIZES = {
    "small": dict(batch=32, length=64, d_model=128, heads=4, layers=2, d_ff=512, vocab=64),
    "large": dict(batch=32, length=64, d_model=256, heads=4, layers=4, d_ff=1024, vocab=64),
}


def minigrad_step(size: dict, seed: int = 0):
    mg.manual_seed(seed)
    model = TinyTransformer(
        size["vocab"],
        size["length"],
        size["d_model"],
        size["heads"],
        size["layers"],
        size["d_ff"],
        norm="layer",
        norm_first=True,
        activation="gelu",
        dropout=0.0,
    )
    opt = optim.AdamW(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    x = mg.tensor(rng.integers(0, size["vocab"], (size["batch"], size["length"])))
    y = mg.tensor(rng.integers(0, size["vocab"], (size["batch"] * size["length"],)))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, size["vocab"]), y)
        loss.backward()
        opt.step()
        return loss

    return model, step, x, y


def torch_step(torch, size: dict, state: dict, x: np.ndarray, y: np.ndarray):
    nn = torch.nn

    class TorchTiny(nn.Module):
        def __init__(self):
            super().__init__()
            d = size["d_model"]
            self.tok_emb = nn.Embedding(size["vocab"], d)
            self.pos_emb = nn.Embedding(size["length"], d)
            self.blocks = nn.ModuleList(
                nn.TransformerEncoderLayer(
                    d,
                    size["heads"],
                    size["d_ff"],
                    dropout=0.0,
                    activation="gelu",
                    batch_first=True,
                    norm_first=True,
                )
                for _ in range(size["layers"])
            )
            self.norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, size["vocab"])

        def forward(self, tokens):
            t = tokens.shape[1]
            h = self.tok_emb(tokens) + self.pos_emb(torch.arange(t))
            mask = nn.Transformer.generate_square_subsequent_mask(t)
            for block in self.blocks:
                h = block(h, src_mask=mask, is_causal=True)
            return self.head(self.norm(h))

    model = TorchTiny()
    model.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()})
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(tx).reshape(-1, size["vocab"]), ty)
        loss.backward()
        opt.step()
        return loss

    return step


def alternating_blocks(fns: dict, blocks: int = 8, per_block: int = 4) -> dict:
    """Median step time of each library, running them in alternating blocks of steps.

    Both libraries' thread pools spin for a while after their work (OpenBLAS for about
    0.1 s, PyTorch's OpenMP likewise) and steal the cores from whoever runs next, so
    alternating single steps would mostly measure that interference. Each block runs
    ``per_block`` steps of one library and its first step, the one that meets the
    other's spinning threads, is not counted.
    """
    for fn in fns.values():
        fn()
    samples = {name: [] for name in fns}
    for _ in range(blocks):
        for name, fn in fns.items():
            for i in range(per_block):
                t0 = time.perf_counter()
                fn()
                if i > 0:
                    samples[name].append(time.perf_counter() - t0)
    return {name: statistics.median(s) for name, s in samples.items()}


def compare(size: dict, torch) -> None:
    model, mg_step, x, y = minigrad_step(size)
    fns = {"minigrad": mg_step}
    if torch is not None:
        fns["torch"] = torch_step(torch, size, model.state_dict(), x.numpy(), y.numpy())
        l_mg, l_torch = float(mg_step().item()), float(fns["torch"]().item())
        print(f"  first-step loss: minigrad {l_mg:.6f}, torch {l_torch:.6f}")
    times = alternating_blocks(fns)
    tokens = size["batch"] * size["length"]
    for lib, t in times.items():
        print(f"  {lib:9s} {fmt_time(t)} per step, {tokens / t:10,.0f} tokens/s")
    if "torch" in times:
        print(f"  ratio minigrad / torch: {times['minigrad'] / times['torch']:.2f}x")


def profile(size: dict) -> None:
    _, step, _, _ = minigrad_step(size)
    for _ in range(3):
        step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(10):
        step()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(20)


def peak_rss_mb(lib: str, size_name: str, steps: int = 20) -> tuple[float, float]:
    """Peak RSS of a fresh process that runs ``steps`` training steps with one library.

    Returns (peak, peak minus the RSS after imports): the second is what the training
    itself costs, without the libraries' code (PyTorch's is several hundred MB).
    """
    code = f"""
import resource, sys
sys.path.insert(0, {str(__file__.rsplit("/", 1)[0])!r})
import bench_train as b
if {lib!r} == "torch":
    import torch
    torch.set_num_threads(2)
import minigrad.kernels  # numba, as the minigrad run will load it
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20
base = rss()
b.keep_freed_memory()
size = b.SIZES[{size_name!r}]
model, step, x, y = b.minigrad_step(size)
if {lib!r} == "torch":
    step = b.torch_step(torch, size, model.state_dict(), x.numpy(), y.numpy())
    del model
for _ in range({steps}):
    step()
with open("/proc/self/status") as f:  # VmHWM: this process's peak (ru_maxrss would
    # include the parent's, which Linux carries across fork and exec)
    peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
print(peak, peak - base)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    peak, grown = out.stdout.strip().splitlines()[-1].split()
    return float(peak), float(grown)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--size", choices=sorted(SIZES), action="append")
    args = parser.parse_args()
    set_num_threads(2)
    keep_freed_memory()  # for both libraries: they share the process's allocator
    torch = try_import_torch()
    for name in args.size or ["small", "large"]:
        size = SIZES[name]
        print(f"{name}: {size}")
        if args.profile:
            profile(size)
            continue
        compare(size, torch)
        if args.memory:
            peak_mg, grown_mg = peak_rss_mb("minigrad", name)
            line = f"  peak RSS: minigrad {peak_mg:.0f} MB ({grown_mg:.0f} MB above its imports)"
            if torch is not None:
                peak_t, grown_t = peak_rss_mb("torch", name)
                line += (
                    f", torch {peak_t:.0f} MB ({grown_t:.0f} MB above its imports); "
                    f"ratio of the growth {grown_mg / grown_t:.2f}x"
                )
            print(line)


if __name__ == "__main__":
    main()

"""One training step of a tiny causal transformer LM: minigrad against its PyTorch twin.

The step is forward, cross-entropy, backward and AdamW, in float32, for a decoder-only
model: token and position embeddings, pre-norm transformer blocks (GELU, causal
attention), a final LayerNorm and a linear head. minigrad runs
``minigrad.train.model.TinyTransformer`` (the model ``minigrad train`` trains); PyTorch
runs the same architecture built from ``nn.Embedding``, ``nn.TransformerEncoderLayer``
(``norm_first=True``, ``activation="gelu"``, a causal ``src_mask`` with the
``is_causal`` hint), ``nn.LayerNorm`` and ``nn.Linear``, with the same ``state_dict``
keys. Both load the same weights, drawn with NumPy from one seed, and train on the same
batch.

Each library runs in its own process (``harness.py``: alternated rounds, 2 threads
each, ratio of medians). Before timing, the first-step losses of the two libraries are
compared (they must agree to 1e-6 with dropout 0).

    python benchmarks/bench_train.py                 # every config, dropout 0 and 0.1
    python benchmarks/bench_train.py --only default  # one config
    python benchmarks/bench_train.py --memory        # peak memory of each, separate processes
    python benchmarks/bench_train.py --profile CONFIG   # where minigrad's step spends its time
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
from harness import Case, main, set_allocator

#: vocab, d_model, heads, seq, batch, d_ff, layers. "issue": the two configs of the issue
#: this benchmark answers; "bench": this file's own; "default": ``minigrad train``'s model
#: on its default task (see docs/training.md).
CONFIGS = {
    "issue-small": dict(vocab=96, d_model=128, heads=4, seq=64, batch=32, d_ff=512, layers=2),
    "issue-large": dict(vocab=96, d_model=256, heads=8, seq=128, batch=16, d_ff=1024, layers=4),
    "bench-small": dict(vocab=64, d_model=128, heads=4, seq=64, batch=32, d_ff=512, layers=2),
    "bench-large": dict(vocab=64, d_model=256, heads=4, seq=64, batch=32, d_ff=1024, layers=4),
    # `python -m minigrad train` with its defaults: reverse 8 digits (16 positions, 11 tokens)
    "default": dict(vocab=11, d_model=64, heads=4, seq=16, batch=64, d_ff=256, layers=2),
}
SEED = 0


def shared_weights(shapes: dict) -> dict:
    """The same weights for both libraries: NumPy draws in ``state_dict`` order (the keys
    are the same in both, by design). Matrices ~ U(+-1/sqrt(fan_in)) as PyTorch's Linear
    init (embeddings N(0, 1)); norm weights 1; biases U(+-0.02)."""
    rng = np.random.default_rng(SEED)
    out = {}
    for name, shape in shapes.items():
        if len(shape) == 2 and "emb" in name:
            w = rng.standard_normal(shape)
        elif len(shape) == 2:
            bound = 1 / np.sqrt(shape[1])
            w = rng.uniform(-bound, bound, shape)
        elif "norm" in name and name.endswith("weight"):
            w = np.ones(shape)
        else:
            w = rng.uniform(-0.02, 0.02, shape)
        out[name] = w.astype(np.float32)
    return out


def batch(cfg: dict):
    rng = np.random.default_rng(SEED + 1)
    x = rng.integers(0, cfg["vocab"], (cfg["batch"], cfg["seq"]))
    y = rng.integers(0, cfg["vocab"], (cfg["batch"] * cfg["seq"],))
    return x, y


def minigrad_model(cfg: dict, dropout: float):
    import minigrad as mg
    import minigrad.nn.functional as F
    import minigrad.optim as optim
    from minigrad.train.model import TinyTransformer

    mg.manual_seed(SEED)
    model = TinyTransformer(
        cfg["vocab"], cfg["seq"], cfg["d_model"], cfg["heads"], cfg["layers"], cfg["d_ff"],
        norm="layer", norm_first=True, activation="gelu", dropout=dropout,
    )  # fmt: skip
    model.load_state_dict(shared_weights({k: v.shape for k, v in model.state_dict().items()}))
    opt = optim.AdamW(model.parameters(), lr=1e-3)
    xn, yn = batch(cfg)
    x, y = mg.tensor(xn), mg.tensor(yn)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, cfg["vocab"]), y)
        loss.backward()
        opt.step()
        return float(loss.item())

    return step


def torch_model(cfg: dict, dropout: float):
    import torch

    nn = torch.nn
    torch.manual_seed(SEED)

    class TorchTiny(nn.Module):
        def __init__(self):
            super().__init__()
            d = cfg["d_model"]
            self.tok_emb = nn.Embedding(cfg["vocab"], d)
            self.pos_emb = nn.Embedding(cfg["seq"], d)
            self.drop = nn.Dropout(dropout)
            self.blocks = nn.ModuleList(
                nn.TransformerEncoderLayer(
                    d,
                    cfg["heads"],
                    cfg["d_ff"],
                    dropout=dropout,
                    activation="gelu",
                    batch_first=True,
                    norm_first=True,
                )  # fmt: skip
                for _ in range(cfg["layers"])
            )
            self.norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, cfg["vocab"])

        def forward(self, tokens):
            t = tokens.shape[1]
            h = self.drop(self.tok_emb(tokens) + self.pos_emb(torch.arange(t)))
            mask = nn.Transformer.generate_square_subsequent_mask(t)
            for block in self.blocks:
                h = block(h, src_mask=mask, is_causal=True)
            return self.head(self.norm(h))

    model = TorchTiny()
    weights = shared_weights({k: tuple(v.shape) for k, v in model.state_dict().items()})
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    xn, yn = batch(cfg)
    x, y = torch.from_numpy(xn), torch.from_numpy(yn)

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x).reshape(-1, cfg["vocab"]), y)
        loss.backward()
        opt.step()
        return float(loss.item())

    return step


def train_step(lib: str, config: str, dropout: float):
    """The harness's case function: one training step of ``config`` with ``lib`` (the
    harness sets the allocator: ``keep`` here, what ``minigrad train`` does)."""
    if lib == "minigrad" and "NUMBA_THREADING_LAYER" not in os.environ:
        # what `minigrad train` does (its training_threading_layer): Numba's workqueue
        # layer (a little faster than the default OpenMP layer on a training step; run
        # with NUMBA_THREADING_LAYER=omp to measure what a script of your own gets).
        import minigrad as mg

        mg.use_threading_layer("workqueue")
    cfg = CONFIGS[config]
    return (minigrad_model if lib == "minigrad" else torch_model)(cfg, dropout)


def _label(config: str, dropout: float) -> str:
    c = CONFIGS[config]
    return (
        f"{config} (d{c['d_model']} h{c['heads']} L{c['layers']} T{c['seq']} B{c['batch']} "
        f"V{c['vocab']}) dropout {dropout}"
    )


CASES = [
    Case(_label(name, p), train_step, config=name, dropout=p)
    for name in CONFIGS
    for p in (0.0, 0.1)
]


# ------------------------------------------------------------ checks beside the timing
def _run_child(code: str, lib: str) -> str:
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        env[var] = "2"
    here = os.path.dirname(os.path.abspath(__file__))
    prog = f"import sys; sys.path.insert(0, {here!r}); import bench_train as b\n" + code
    proc = subprocess.run([sys.executable, "-c", prog], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"bench_train child ({lib}) failed:\n{proc.stderr[-2000:]}")
    return proc.stdout.strip().splitlines()[-1]


def first_losses(config: str) -> dict:
    """The first-step loss of each library, each in its own process (dropout 0)."""
    return {
        lib: float(_run_child(f"print(b.train_step({lib!r}, {config!r}, 0.0)())", lib))
        for lib in ("minigrad", "torch")
    }


def peak_memory(lib: str, config: str, dropout: float, steps: int = 10) -> dict:
    """Peak RSS (VmHWM) of a fresh process training ``steps`` steps, and its growth above
    the process after imports (for minigrad, Numba is imported first; PyTorch's libraries
    load with ``import torch``)."""
    code = f"""
import json
def status(key):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(key)) / 1024
if {lib!r} == "torch":
    import torch
else:
    import minigrad, numba  # numba and llvmlite: the run loads them (not counted as growth)
b.set_allocator("keep")
base = status("VmRSS")
step = b.train_step({lib!r}, {config!r}, {dropout!r})
for _ in range({steps}):
    step()
peak = status("VmHWM")
print(json.dumps(dict(peak=peak, growth=peak - base)))
"""
    return json.loads(_run_child(code, lib))


def profile(config: str) -> None:
    """cProfile of ten minigrad steps (after three warm-up steps), by own time."""
    import cProfile
    import pstats

    set_allocator("keep")
    step = train_step("minigrad", config, 0.0)
    for _ in range(3):
        step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(10):
        step()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def _tokens_per_s(result) -> str:
    c = CONFIGS[result.name.split(" ")[0]]
    tokens = c["batch"] * c["seq"]
    mine = f"{tokens / result.minigrad:,.0f}"
    return mine if result.torch is None else f"{mine} vs {tokens / result.torch:,.0f}"


if __name__ == "__main__":
    from harness import asks_help, torch_available

    argv = sys.argv[1:]
    only_help = asks_help(argv)  # then no parity check, no measuring
    if "--profile" in argv and not only_help:
        i = argv.index("--profile")
        import minigrad as mg

        mg.set_num_threads(2)
        profile(argv[i + 1] if i + 1 < len(argv) else "issue-small")
        sys.exit(0)
    memory = "--memory" in argv
    argv = [a for a in argv if a != "--memory"]
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    configs = [c for c in CONFIGS if only is None or only in c or only in _label(c, 0.0)]
    if torch_available() and not only_help:
        for config in configs:
            losses = first_losses(config)
            gap = abs(losses["minigrad"] - losses["torch"])
            print(
                f"{config}: first-step loss minigrad {losses['minigrad']:.7f}, "
                f"PyTorch {losses['torch']:.7f} (difference {gap:.1e})"
            )
            if gap > 1e-6:
                sys.exit(f"{config}: the two models do not compute the same thing")
    if memory and not only_help:
        for config in configs:
            for p in (0.0, 0.1):
                libs = ("minigrad", "torch") if torch_available() else ("minigrad",)
                mem = {lib: peak_memory(lib, config, p) for lib in libs}
                print(
                    f"{_label(config, p)}: peak RSS "
                    + ", ".join(
                        f"{lib} {m['peak']:.0f} MB ({m['growth']:.0f} MB above its imports)"
                        for lib, m in mem.items()
                    )
                )
        sys.exit(0)
    main(
        CASES,
        extra_columns={"tokens/s (minigrad vs PyTorch)": _tokens_per_s},
        argv=argv,
        title="One AdamW training step, float32, each library in its own process",
        allocator="keep",
        epilog="--memory: peak memory of each library instead of times. "
        "--profile [CONFIG]: where minigrad's step spends its time (default issue-small).",
    )

"""User programs, the same source on both libraries, each library in its own process.

The programs are in ``programs.py``, written once against PyTorch's API; a worker picks
its library with ``BENCH_LIB`` before importing it, as a user swaps imports. Rows:

- ``encoder LM``: ``nn.TransformerEncoderLayer`` (pre-norm, GELU, causal mask,
  batch_first) language model, one AdamW step (zero_grad, forward, cross_entropy,
  backward, step);
- ``GPT``: the nanoGPT-style model (hand-written causal attention with a ``tril``
  buffer, tied weights), one step with ``clip_grad_norm_`` and AdamW weight-decay groups;
- ``generate``: greedy generation of 48 tokens with the same GPTs (batch 1, no_grad,
  the context cropped to the block size).

Each row gives minigrad / PyTorch (``harness.py``: alternated processes, the same
threads, ratio of medians) and each library as a multiple of the floor: the step's
matrix-product FLOPs (counted analytically below: forward, and twice that for the
backward's two products per product) at the best float32 sgemm rate NumPy reaches on the
program's own product shapes, measured here in a separate process with the same threads.

Before timing, each program's first loss (or generated tokens) is computed once in each
library's own process, and the two must agree.

    python benchmarks/bench_programs.py [--only GPT] [--rounds 3] [--threads 2]
    python benchmarks/bench_programs.py --profile "GPT 4x128"   # cProfile, minigrad
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

from harness import Case, asks_help, main, torch_available

VOCAB = 96
BATCH = 16
NEW_TOKENS = 48
PROMPT = 32


def _config(program: str, d_model: int, heads: int, layers: int, seq: int) -> dict:
    kw = dict(program=program, vocab=VOCAB, d_model=d_model, heads=heads, layers=layers, seq=seq)
    if program == "generate":
        return dict(kw, prompt=PROMPT, new=NEW_TOKENS)
    return dict(kw, batch_size=BATCH)


CONFIGS = {
    "encoder LM small": _config("encoder", 128, 4, 4, 64),
    "encoder LM large": _config("encoder", 256, 8, 4, 64),
    "GPT 4x128": _config("gpt", 128, 4, 4, 64),
    "GPT 6x192": _config("gpt", 192, 6, 6, 64),
    "generate GPT 4x128": _config("generate", 128, 4, 4, 64),
    "generate GPT 6x192": _config("generate", 192, 6, 6, 64),
}


_PROGRAMS = {}


def load_programs(lib: str):
    """``programs.py`` imported with ``BENCH_LIB=lib``: one module per library (a test
    process holds both; a worker only its own)."""
    if lib not in _PROGRAMS:
        os.environ["BENCH_LIB"] = lib
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs.py")
        spec = importlib.util.spec_from_file_location(f"programs_{lib}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _PROGRAMS[lib] = module
    return _PROGRAMS[lib]


def build(lib: str, config: dict):
    """``config``'s program in ``lib``; returns the callable to time."""
    programs = load_programs(lib)
    kwargs = dict(config)
    make = {
        "encoder": programs.encoder_lm_step,
        "gpt": programs.gpt_step,
        "generate": programs.gpt_generate,
    }[kwargs.pop("program")]
    return make(**kwargs)


def program(lib: str, config: str):
    """The harness's case function: build the program ``config`` names, return its step."""
    return build(lib, CONFIGS[config])


CASES = [Case(name, program, config=name) for name in CONFIGS]


# ------------------------------------------------------------------ the floor
def products(cfg: dict) -> list:
    """The matrix products of one call of ``cfg``'s forward pass, as (times, batch, m, k,
    n): ``times`` of a [batch, m, k] @ [batch, k, n] product; attention counted in full
    (T x T scores, as PyTorch's eager attention and minigrad's compute them)."""
    d, h, layers, seq = cfg["d_model"], cfg["heads"], cfg["layers"], cfg["seq"]
    if cfg["program"] == "generate":  # batch 1, the context growing, then cropped to seq
        rows = [(1, min(cfg["prompt"] + i, seq)) for i in range(cfg["new"])]
    else:
        rows = [(cfg["batch_size"], seq)]
    out = []
    for b, t in rows:
        n = b * t
        out += [
            (layers, 1, n, d, 3 * d),  # qkv projection
            (layers, b * h, t, d // h, t),  # q @ k^T
            (layers, b * h, t, t, d // h),  # attention @ v
            (layers, 1, n, d, d),  # output projection
            (layers, 1, n, d, 4 * d),  # feed-forward in
            (layers, 1, n, 4 * d, d),  # feed-forward out
        ]
        head_rows = b if cfg["program"] == "generate" else n  # GPT inference: last position
        out.append((1, 1, head_rows, d, cfg["vocab"]))
    return out


def flops(cfg: dict) -> float:
    """Matrix-product FLOPs of one call: 2 m k n per product, times 3 when training
    (the backward computes two products of the same size for each)."""
    fwd = sum(times * 2 * batch * m * k * n for times, batch, m, k, n in products(cfg))
    return fwd if cfg["program"] == "generate" else 3 * fwd


_SGEMM = r"""
import json, sys, time
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(int(sys.argv[2]), user_api="blas")
best = 0.0
for batch, m, k, n in json.loads(sys.argv[1]):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((batch, m, k), dtype=np.float32)
    b = rng.standard_normal((batch, k, n), dtype=np.float32)
    out = np.empty((batch, m, n), dtype=np.float32)
    np.matmul(a, b, out=out)
    t0 = time.perf_counter(); np.matmul(a, b, out=out); one = time.perf_counter() - t0
    number = max(1, int(0.02 / max(one, 1e-7)))
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(number):
            np.matmul(a, b, out=out)
        t = (time.perf_counter() - t0) / number
        best = max(best, 2 * batch * m * k * n / t)
print(best)
"""

_RATE = {}


def sgemm_rate(name: str, threads: int) -> float:
    """The best float32 matmul rate (FLOP/s) NumPy reaches on ``name``'s product shapes,
    in a process of its own with ``threads`` BLAS threads (best of 7 per shape)."""
    shapes = sorted({(b, m, k, n) for _, b, m, k, n in products(CONFIGS[name])})
    shapes = [s for s in shapes if 2 * s[0] * s[1] * s[2] * s[3] >= 1e5] or shapes
    cmd = [sys.executable, "-c", _SGEMM, json.dumps(shapes), str(threads)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return float(proc.stdout.strip())


def _floor(result) -> float:
    return flops(CONFIGS[result.name]) / _RATE[result.name]


def floor_column(result) -> str:
    gflop, rate = flops(CONFIGS[result.name]) / 1e9, _RATE[result.name] / 1e9
    return f"{gflop:.2f} GF @ {rate:.0f} = {_floor(result) * 1e3:.1f} ms"


def over_floor_column(result) -> str:
    mine = f"{result.minigrad / _floor(result):.2f}"
    return mine if result.torch is None else f"{mine} / {result.torch / _floor(result):.2f}"


# ------------------------------------------------------------------ checks beside the timing
def first_result(lib: str, name: str):
    """The first loss (or the generated tokens) of ``name`` in a fresh ``lib`` process."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = (
        f"import sys, json; sys.path.insert(0, {here!r}); import bench_programs as b\n"
        f"print(json.dumps(b.program({lib!r}, {name!r})()))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{name} ({lib}) failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check_same_results(names) -> None:
    """Each program computes the same thing in both libraries (losses to 1e-5 relative,
    generated tokens equal), or the benchmark stops."""
    for name in names:
        mine, theirs = first_result("minigrad", name), first_result("torch", name)
        same = (
            mine == theirs if isinstance(mine, list) else abs(mine - theirs) <= 1e-5 * abs(theirs)
        )
        print(f"{name}: minigrad {mine if not isinstance(mine, list) else 'tokens'} / "
              f"PyTorch {theirs if not isinstance(theirs, list) else 'tokens'}: "
              f"{'same' if same else 'DIFFERENT'}")  # fmt: skip
        if not same:
            sys.exit(f"{name}: the two libraries do not compute the same thing")


def profile(name: str, steps: int = 5) -> None:
    """cProfile of ``steps`` minigrad calls of ``name`` (after two warm-up calls)."""
    import cProfile
    import pstats

    step = program("minigrad", name)
    step()
    step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps):
        step()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    argv = sys.argv[1:]
    threads = int(argv[argv.index("--threads") + 1]) if "--threads" in argv else 2
    if "--profile" in argv and not asks_help(argv):
        import minigrad as mg

        mg.set_num_threads(threads)
        profile(argv[argv.index("--profile") + 1])
        sys.exit(0)
    if not asks_help(argv):
        only = argv[argv.index("--only") + 1] if "--only" in argv else None
        chosen = [n for n in CONFIGS if only is None or only in n]
        if torch_available():
            check_same_results(chosen)
        for n in chosen:
            _RATE[n] = sgemm_rate(n, threads)
    main(
        CASES,
        extra_columns={
            "floor (matmul GFLOP @ best sgemm GFLOP/s)": floor_column,
            "x floor (minigrad / PyTorch)": over_floor_column,
        },
        argv=argv,
        title="User programs, the same source on both libraries, each in its own process",
        epilog='--profile NAME: cProfile of minigrad running NAME (e.g. "GPT 4x128").',
    )

"""Normalization layers (and GELU), minigrad against PyTorch, each in its own process.

Every case is the same code for both libraries (the library imported by name, as a
user swaps imports) and runs through the harness (``harness.py``): one fresh process per
library per round, alternated, the same seeded float32 inputs and thread count, warm-up
excluded; the ratio is median(minigrad) / median(PyTorch). Rows:

- the 11 forward + backward cases of issue 11 (backward of a fixed cotangent into the
  input, the weight and the bias, then the gradients cleared, as a training step does);
  RMSNorm is ``F.rms_norm`` in both (the program a user writes; until this round it was
  compared with PyTorch's fused LayerNorm);
- forward alone (under ``no_grad``) for the same shapes;
- small inputs, forward + backward: their time is the per-call cost;
- GELU [2048, 512] forward + backward (the training helper's activation).

The ``floor`` column is the memory-bandwidth floor: the bytes a forward and a backward
must move (read x, write y; read x and dy, write dx: 5 arrays; forward alone: 2) at the
bandwidth of a 2-thread copy of a 64 MiB array measured in a minigrad process, and
``x floor`` is each library's time over it (small cases live in the caches, which are faster
than memory: there the floor says little).

    python benchmarks/bench_norms.py [--rounds 3] [--only LayerNorm] [--same-process]

``--same-process`` adds, labelled as such, how much each library slows down when the other
is imported and working in the same process (target: at most 1.3x each).
"""

from __future__ import annotations

import numpy as np
from harness import Case, asks_help, compare, main

GROUPS = 8


def _arrays(shape, channels_axis):
    rng = np.random.default_rng(0)
    c = shape[channels_axis]
    return (
        rng.standard_normal(shape, dtype=np.float32),
        (1 + 0.1 * rng.standard_normal(c)).astype(np.float32),
        (0.1 * rng.standard_normal(c)).astype(np.float32),
        rng.standard_normal(shape, dtype=np.float32),
    )


def _library(lib: str):
    """The library a worker runs, imported by name (the same code below for both)."""
    import importlib

    return importlib.import_module(lib)


def norm(lib: str, norm: str, shape, backward: bool = True):
    """One forward (+ backward) of ``norm`` on ``shape``, the same code for both libraries."""
    torch = _library(lib)
    F = torch.nn.functional
    shape = tuple(shape)
    axis = -1 if norm in ("LayerNorm", "RMSNorm") else 1
    x, w, b, dy = _arrays(shape, axis)
    X, W, B = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    dy = torch.tensor(dy)
    n = shape[-1]
    rm, rv = torch.zeros(shape[1]), torch.ones(shape[1])
    forward = {
        "LayerNorm": lambda: F.layer_norm(X, (n,), W, B),
        "RMSNorm": lambda: F.rms_norm(X, (n,), W),
        "BatchNorm1d": lambda: F.batch_norm(X, rm, rv, W, B, training=True),
        "GroupNorm": lambda: F.group_norm(X, GROUPS, W, B),
    }[norm]
    if not backward:

        def run():
            with torch.no_grad():
                forward()

        return run

    def run():
        forward().backward(dy)
        X.grad = W.grad = B.grad = None

    return run


def gelu(lib: str, shape):
    """GELU (exact) forward + backward."""
    torch = _library(lib)
    x = np.random.default_rng(0).standard_normal(tuple(shape), dtype=np.float32)
    dy = torch.tensor(np.random.default_rng(1).standard_normal(tuple(shape), dtype=np.float32))
    X = torch.tensor(x, requires_grad=True)

    def run():
        torch.nn.functional.gelu(X).backward(dy)
        X.grad = None

    return run


def copy(lib: str, mib: int):
    """A copy of ``mib`` MiB by a ``prange`` loop on the harness's thread count."""
    import numba

    import minigrad  # noqa: F401  (sets the thread count in the worker)

    @numba.njit(parallel=True)
    def kernel(src, dst):
        for i in numba.prange(src.size):
            dst[i] = src[i]

    src = np.ones(mib << 18, dtype=np.float32)
    dst = np.empty_like(src)
    return lambda: kernel(src, dst)


ROWS = [(2048, 64), (4096, 256), (8192, 768), (512, 4096)]
SHAPES = (
    [("LayerNorm", s) for s in ROWS]
    + [("RMSNorm", s) for s in ROWS]
    + [("BatchNorm1d", (4096, 256)), ("BatchNorm1d", (64, 128, 64)), ("GroupNorm", (32, 64, 256))]
)


def _label(name, shape):
    return f"{name} [{', '.join(map(str, shape))}]"


CASES = (
    [Case(_label(n, s) + " fwd+bwd", norm, norm=n, shape=s) for n, s in SHAPES]
    + [Case(_label(n, s) + " fwd", norm, norm=n, shape=s, backward=False) for n, s in SHAPES]
    + [
        Case(_label("LayerNorm", s) + " fwd+bwd (small)", norm, norm="LayerNorm", shape=s)
        for s in [(64, 64), (6, 20)]
    ]
    + [Case("GELU [2048, 512] fwd+bwd", gelu, shape=(2048, 512))]
)

_BANDWIDTH = {}


def _floor(result) -> float:
    """Seconds to move the bytes a case must move at the measured copy bandwidth."""
    shape = next(c.kwargs["shape"] for c in CASES if c.name == result.name)
    arrays = 2 if result.name.endswith(" fwd") else 5
    return arrays * 4 * int(np.prod(shape)) / _BANDWIDTH["bytes/s"]


def floor_column(result) -> str:
    return f"{_floor(result) * 1e6:.0f} us"


def over_floor_column(result) -> str:
    mine = f"{result.minigrad / _floor(result):.2f}"
    return mine if result.torch is None else f"{mine} / {result.torch / _floor(result):.2f}"


if __name__ == "__main__":
    import sys

    if not asks_help(sys.argv):
        copy_case = Case("copy 64 MiB", copy, mib=64)
        threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 2
        (bw,) = compare([copy_case], threads=threads, rounds=1, libs=["minigrad"])
        _BANDWIDTH["bytes/s"] = 2 * (64 << 20) / bw.minigrad  # read + write
        gbs = _BANDWIDTH["bytes/s"] / 1e9
        print(f"copy bandwidth ({threads} threads, 64 MiB): {gbs:.1f} GB/s")
    main(
        CASES,
        extra_columns={"floor": floor_column, "x floor (minigrad / PyTorch)": over_floor_column},
        title="Norms: minigrad / PyTorch, each library in its own process (float32)",
    )

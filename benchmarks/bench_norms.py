"""Normalization layers: fused kernels vs the reference and composite paths vs PyTorch.

Times forward + backward through autograd (``autograd.grad`` of the output with a fixed
cotangent, for the input, the weight and the bias), float32, with the inputs created
once outside the timed region and every implementation interleaved in the same process
(the machine is shared: absolute times drift, ratios hold). Prints, per case:

- the median time of each path, and the ratios fused / PyTorch (for RMSNorm also
  against PyTorch's LayerNorm, the target: PyTorch's CPU rms_norm is a chain of
  elementwise ops), composite / fused and reference / fused;
- the memory-bandwidth floor: the bytes a forward and a backward must move (read x,
  write y; read x and dy, write dx: 5 arrays) at the memory bandwidth of a 2-thread
  copy of a 256 MiB array, and fused / floor (small cases live in the caches, which
  are faster than memory: there the floor is a ceiling on what "memory-bound" means);
- the geometric mean of fused / PyTorch over all cases.

Then the accuracy of float32 dweight / dbias over 8192 rows against float64 (fused
and PyTorch), the statistics of float32 inputs on a 1e4 offset, and the kernels'
compile times (cold, and cached in a new process).

    python benchmarks/bench_norms.py [--quick]
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from _timing import fmt_time, interleaved_samples, try_import_torch

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.nn.norms import reference

THREADS = 2
ROWS_FEATURES = [(2048, 64), (4096, 256), (8192, 768), (512, 4096)]
CASES = (
    [("LayerNorm", s) for s in ROWS_FEATURES]
    + [("RMSNorm", s) for s in ROWS_FEATURES]
    + [("BatchNorm1d", (4096, 256)), ("BatchNorm1d", (64, 128, 64)), ("GroupNorm", (32, 64, 256))]
)
GROUPS = 8
IMPLS = ("fused", "reference", "composite")


# ----------------------------------------------------------------------------- timing
def paired_ratio(samples: dict, a: str, b: str) -> float:
    """Median over the repetitions of ``a / b``: each ratio compares two runs taken under
    the same load, so bursts of other work on a shared machine cancel out."""
    return statistics.median(x / y for x, y in zip(samples[a], samples[b]))


# ------------------------------------------------------------------------------ cases
def _arrays(shape, channels_axis, seed=0):
    rng = np.random.default_rng(seed)
    c = shape[channels_axis]
    return (
        rng.standard_normal(shape, dtype=np.float32),
        (1 + 0.1 * rng.standard_normal(c)).astype(np.float32),
        (0.1 * rng.standard_normal(c)).astype(np.float32),
        rng.standard_normal(shape, dtype=np.float32),
    )


def minigrad_step(name, shape, impl):
    """A closure running forward + backward of one case in minigrad with ``impl``."""
    axis = -1 if name in ("LayerNorm", "RMSNorm") else 1
    x, w, b, dy = _arrays(shape, axis)
    x = mg.tensor(x, requires_grad=True)
    w = mg.tensor(w, requires_grad=True)
    b = mg.tensor(b, requires_grad=True)
    dy = mg.tensor(dy)
    n = shape[-1]
    if name == "LayerNorm":
        inputs = [x, w, b]

        def forward():
            return F.layer_norm(x, (n,), w, b, impl=impl)
    elif name == "RMSNorm":
        inputs = [x, w]

        def forward():
            return F.rms_norm(x, (n,), w, impl=impl)
    elif name == "BatchNorm1d":
        inputs = [x, w, b]
        rm, rv = mg.zeros(shape[1]), mg.ones(shape[1])

        def forward():
            return F.batch_norm(x, rm, rv, w, b, training=True, impl=impl)
    else:
        inputs = [x, w, b]

        def forward():
            return F.group_norm(x, GROUPS, w, b, impl=impl)

    def step():
        return mg.autograd.grad(forward(), inputs, dy)

    return step


def torch_step(torch, name, shape, as_layer_norm=False):
    axis = -1 if name in ("LayerNorm", "RMSNorm") else 1
    x, w, b, dy = (torch.from_numpy(a) for a in _arrays(shape, axis))
    x.requires_grad_()
    w.requires_grad_()
    b.requires_grad_()
    n = shape[-1]
    tf = torch.nn.functional
    if name == "LayerNorm" or (name == "RMSNorm" and as_layer_norm):
        inputs = [x, w, b]

        def forward():
            return tf.layer_norm(x, (n,), w, b)
    elif name == "RMSNorm":
        inputs = [x, w]

        def forward():
            return tf.rms_norm(x, (n,), w)
    elif name == "BatchNorm1d":
        inputs = [x, w, b]
        rm, rv = torch.zeros(shape[1]), torch.ones(shape[1])

        def forward():
            return tf.batch_norm(x, rm, rv, w, b, training=True)
    else:
        inputs = [x, w, b]

        def forward():
            return tf.group_norm(x, GROUPS, w, b)

    def step():
        return torch.autograd.grad(forward(), inputs, dy)

    return step


# ------------------------------------------------------------------------ bandwidth floor
def copy_bandwidth() -> float:
    """Memory bandwidth in bytes per second: the fastest 2-thread copy of a 256 MiB
    float32 array (far larger than the caches), counting the bytes read and written."""
    import numba

    @numba.njit(parallel=True)
    def copy(src, dst):
        for i in numba.prange(src.shape[0]):
            dst[i] = src[i]

    src = np.ones((1024, 2**16), dtype=np.float32)  # 256 MiB
    dst = np.empty_like(src)
    copy(src, dst)
    seconds = min(interleaved_samples({"copy": lambda: copy(src, dst)}, repeats=10)["copy"])
    return 2 * src.nbytes / seconds


# ------------------------------------------------------------------------- timing table
def run_table(torch, quick: bool, bandwidth: float) -> list:
    rows = []
    header = (
        f"{'case':<26}{'fused':>10}{'reference':>11}{'composite':>11}{'torch':>10}"
        f"{'fused/torch':>13}{'(min)':>7}{'comp/fused':>12}{'ref/fused':>11}{'floor':>10}"
        f"{'fused/floor':>13}"
    )
    print(header)
    print("-" * len(header))
    for name, shape in CASES:
        fns = {impl: minigrad_step(name, shape, impl) for impl in IMPLS}
        if torch is not None:
            fns["torch"] = torch_step(torch, name, shape)
            if name == "RMSNorm":
                fns["torch_ln"] = torch_step(torch, name, shape, as_layer_norm=True)
        size = math.prod(shape)
        repeats = 7 if quick else (15 if size >= 2**22 else 30)
        number = 1 if size >= 2**20 else 5
        t = interleaved_samples(fns, repeats=repeats, warmup=2, number=number)
        med = {k: statistics.median(v) for k, v in t.items()}
        low = {k: min(v) for k, v in t.items()}
        floor = 5 * 4 * size / bandwidth  # x, y forward; x, dy, dx backward (float32)
        target = "torch_ln" if "torch_ln" in t else "torch"
        nan = float("nan")
        row = {
            "case": f"{name} {list(shape)}",
            "median": med,
            "min": low,
            "fused/torch": paired_ratio(t, "fused", target) if target in t else nan,
            "fused/torch min": low["fused"] / low[target] if target in t else nan,
            "composite/fused": paired_ratio(t, "composite", "fused"),
            "reference/fused": paired_ratio(t, "reference", "fused"),
            "floor": floor,
            "fused/floor": low["fused"] / floor,
        }
        rows.append(row)
        torch_col = fmt_time(med["torch"]) if "torch" in t else "-"
        print(
            f"{row['case']:<26}{fmt_time(med['fused']):>10}{fmt_time(med['reference']):>11}"
            f"{fmt_time(med['composite']):>11}{torch_col:>10}{row['fused/torch']:>13.2f}"
            f"{row['fused/torch min']:>7.2f}{row['composite/fused']:>12.1f}"
            f"{row['reference/fused']:>11.1f}{fmt_time(floor):>10}{row['fused/floor']:>13.2f}",
            flush=True,
        )
        if name == "RMSNorm" and torch is not None:
            print(
                f"{'':<26}torch rms_norm {fmt_time(med['torch']).strip()}: fused / torch "
                f"rms_norm = {paired_ratio(t, 'fused', 'torch'):.2f} (the ratio above is against "
                "torch layer_norm, the target)"
            )
    return rows


def summary(rows, torch) -> None:
    print()
    print("columns: median times; ratios are medians of per-repetition ratios (fused/torch")
    print("(min): ratio of the fastest runs); floor = the 5 arrays a forward and a backward")
    print("must move (read x, write y; read x and dy, write dx) at the measured copy")
    print("bandwidth; fused/floor uses the fastest fused run")
    if torch is not None:
        for key in ("fused/torch", "fused/torch min"):
            ratios = [r[key] for r in rows]
            geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            worst = max(rows, key=lambda r: r[key])
            print(
                f"{key:<16} geometric mean {geo:.2f} (target <= 0.7), worst {worst[key]:.2f} "
                f"at {worst['case']} (target <= 1.0)"
            )
    big = next(r for r in rows if r["case"] == "LayerNorm [8192, 768]")
    print(f"composite/fused at LayerNorm [8192, 768]: {big['composite/fused']:.1f}x (target >= 10)")
    for r in rows:
        if r["fused/floor"] > 2.5:
            print(f"above 2.5x the bandwidth floor: {r['case']} ({r['fused/floor']:.2f}x)")


# ------------------------------------------------------------------------------ accuracy
def accuracy(torch) -> None:
    """float32 dweight / dbias of LayerNorm over 8192 rows against float64."""
    print()
    print("accuracy of float32 dweight / dbias, LayerNorm [8192, 768], against float64:")
    rng = np.random.default_rng(7)
    x = rng.standard_normal((8192, 768), dtype=np.float32)
    w = (1 + 0.1 * rng.standard_normal(768)).astype(np.float32)
    b = np.zeros(768, np.float32)
    for label, dy in [
        ("dy ~ N(0, 1)", rng.standard_normal((8192, 768), dtype=np.float32)),
        ("dy ~ 0.1 + N(0, 0.01)", (0.1 + 0.01 * rng.standard_normal((8192, 768))).astype(np.float32)),
    ]:  # fmt: skip
        x64, w64, b64, dy64 = (a.astype(np.float64) for a in (x, w, b, dy))
        _, mean, rstd = reference.layer_norm_forward(x64, w64, b64, 1, 1e-5)
        _, dw64, db64 = reference.layer_norm_backward(dy64, x64, w64, mean, rstd, 1)
        results = {}
        xm, wm, bm = (mg.tensor(a, requires_grad=True) for a in (x, w, b))
        _, dw, db = mg.autograd.grad(F.layer_norm(xm, 768, wm, bm), [xm, wm, bm], mg.tensor(dy))
        results["fused"] = (dw.numpy(), db.numpy())
        if torch is not None:
            xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
            yt = torch.nn.functional.layer_norm(xt, (768,), wt, bt)
            _, dwt, dbt = torch.autograd.grad(yt, [xt, wt, bt], torch.from_numpy(dy))
            results["torch"] = (dwt.numpy(), dbt.numpy())
        for who, (gw, gb) in results.items():
            norm_w = np.abs(gw - dw64).max() / np.abs(dw64).max()
            norm_b = np.abs(gb - db64).max() / np.abs(db64).max()
            elem_w = np.max(np.abs(gw - dw64) / np.abs(dw64))
            print(
                f"  {label:<22}{who:<7} dweight {norm_w:.1e} (max elementwise {elem_w:.1e}), "
                f"dbias {norm_b:.1e}   [norm-wise relative; target 1e-4]"
            )
    x = (1e4 + rng.standard_normal((4096, 256))).astype(np.float32)
    y = F.layer_norm(mg.tensor(x), 256).numpy()
    y64 = reference.layer_norm_forward(x.astype(np.float64), None, None, 1, 1e-5)[0]
    print(f"float32 inputs at 1e4 + N(0, 1): max |y - y_float64| = {np.abs(y - y64).max():.1e}")


# ------------------------------------------------------------------------ compile times
_COMPILE_SCRIPT = r"""
import json, time
t0 = time.perf_counter(); import numba; t_numba = time.perf_counter() - t0
import minigrad as mg, minigrad.nn.functional as F
mg.set_num_threads(2)
out = {"import numba": t_numba}
x = mg.randn(64, 8, 600, requires_grad=True)  # large enough for 2 threads (the kernels it uses)
w = mg.ones(600, requires_grad=True); c = mg.ones(8, requires_grad=True)
runs = {
    "layer_norm": lambda: F.layer_norm(x, 600, w, w),
    "rms_norm": lambda: F.rms_norm(x, 600, w),
    "batch_norm": lambda: F.batch_norm(x, None, None, c, c, training=True),
    "group_norm": lambda: F.group_norm(x, 4, c, c),
}
for name, run in runs.items():
    t0 = time.perf_counter()
    mg.autograd.grad(run(), [x], mg.ones(64, 8, 600))
    out[name] = time.perf_counter() - t0
print(json.dumps(out))
"""


def compile_times() -> None:
    print()
    print("compile time of the first forward + backward (float32), in a new process:")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = []
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-c", _COMPILE_SCRIPT], env=env, capture_output=True, text=True
            )
            runs.append(json.loads(done.stdout))
    cold, cached = runs
    for name in cold:
        print(f"  {name:<14} cold {cold[name]:6.2f} s   cached {cached[name]:6.2f} s")


def main() -> None:
    quick = "--quick" in sys.argv
    import numba

    import minigrad.kernels  # noqa: F401  (numba configured as the library configures it)

    mg.set_num_threads(THREADS)  # BLAS, Numba and minigrad's helper threads
    torch = try_import_torch()
    print(
        f"float32 forward + backward, {THREADS} threads (numba {numba.__version__}, torch "
        f"{torch.__version__ if torch else 'not installed'}), interleaved repeats"
    )
    print(f"load average at start: {os.getloadavg()[0]:.2f} (other processes share the cores)")
    start = time.perf_counter()
    bandwidth = copy_bandwidth()
    print(f"memory bandwidth (2-thread copy of 256 MiB): {bandwidth / 1e9:.1f} GB/s")
    rows = run_table(torch, quick, bandwidth)
    print(f"load average after the table: {os.getloadavg()[0]:.2f}")
    layer = numba.threading_layer()
    print(f"(numba threading layer: {layer})")
    if layer == "workqueue":
        print(
            "(the library's default, best for training; these kernels alone launch faster"
            " on OpenMP: NUMBA_THREADING_LAYER=omp python benchmarks/bench_norms.py)"
        )
    summary(rows, torch)
    accuracy(torch)
    compile_times()
    print(f"\n(total {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()

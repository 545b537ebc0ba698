"""Where a 2-thread kernel starts to pay: the measurement behind ``PARALLEL_MIN_ELEMENTS``.

A kernel in a training step runs between matrix products, and NumPy's OpenBLAS keeps its
idle workers spinning for about 0.1 s after each product, so a kernel started there
shares a core with a spinning worker. This measures, for inputs of 2^17 to 2^23
float32 elements, GELU's and LayerNorm's forward on the calling thread (the serial twin)
and on ``mg.get_num_threads()`` threads (the parallel kernel), each timed right after
three products of a GPT's size ([1024, 128] @ [128, 512], as in a training step) and,
for comparison, alone (as in ``bench_norms.py``). The threshold is the smallest size
from which the parallel kernel wins after products.

minigrad against itself, so one process (a library comparison would need two); Numba's
threading layer is whatever the environment picks (``NUMBA_THREADING_LAYER``).

    python benchmarks/bench_parallel_threshold.py [--threads 2] [--samples 25]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def median_ms(fn, before, samples: int) -> float:
    """The median time of ``fn()`` in ms, each sample taken right after ``before()``."""
    fn()
    times = []
    for _ in range(samples):
        before()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * sorted(times)[len(times) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--samples", type=int, default=25)
    args = parser.parse_args()

    import minigrad as mg
    import minigrad.nn.functional as F
    from minigrad.kernels import runtime

    mg.set_num_threads(args.threads)
    runtime.keep_freed_memory()  # as in a training step, from its first backward() on
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 128), dtype=np.float32)
    b = rng.standard_normal((128, 512), dtype=np.float32)

    def products():
        for _ in range(3):
            np.matmul(a, b)

    situations = {"after products": products, "alone": lambda: None}
    width = 512
    print(f"{args.threads} threads; ms, median of {args.samples}; serial / parallel")
    print(f"{'size':>6} {'kernel':<10} " + " ".join(f"{s:>22}" for s in situations))
    wins = {s: [] for s in situations}
    for exponent in range(17, 24):
        x = mg.tensor(rng.standard_normal(((1 << exponent) // width, width), dtype=np.float32))
        w, bias = mg.ones(width), mg.zeros(width)
        kernels = {
            "GELU": lambda x=x: F.gelu(x),
            "LayerNorm": lambda x=x, w=w, bias=bias: F.layer_norm(x, (width,), w, bias),
        }
        for name, fn in kernels.items():
            cells = []
            for situation, before in situations.items():
                times = []
                for threshold in (1 << 62, 1):  # serial twin, then the parallel kernel
                    runtime.PARALLEL_MIN_ELEMENTS = threshold
                    with mg.no_grad():
                        times.append(median_ms(fn, before, args.samples))
                serial, parallel = times
                if parallel < serial:
                    wins[situation].append((exponent, name))
                cells.append(f"{serial:9.2f} / {parallel:9.2f}")
            print(f"2^{exponent:<4} {name:<10} " + " ".join(f"{c:>22}" for c in cells))
    for situation, won in wins.items():
        print(f"parallel faster {situation}: " + ", ".join(f"{n} 2^{e}" for e, n in won))


if __name__ == "__main__":
    main()

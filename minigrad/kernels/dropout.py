"""Dropout masks drawn by a counter-based generator: element i's draw depends on (seed, i)
only.

    z_i    = splitmix64(seed + (i + 1) * golden)      (SplitMix64's output for step i)
    draw_i = the top 16 bits of z_i
    mask_i = value if draw_i >= threshold else 0     (value = 1 / (1 - p))

The caller takes ``seed`` from minigrad's seeded generator (one draw per mask), so
``mg.manual_seed`` reproduces every mask; and because a draw depends on its index alone,
any split of the elements among threads gives the same mask bit for bit: the kernel is a
``prange`` over the elements (run in parallel or as its serial twin, ``runtime.parallel``).

Unlike NumPy's integer draws, a comparison and a multiplication (three passes), this loop
vectorizes and is a single pass that writes the float mask (``docs/benchmarks.md``).
"""

import numba
import numpy as np

from .jit import both_floats, kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S48 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(48)
_ONE = np.uint64(1)

_SIGS = both_floats("void(uint64, uint64, float64, T[::1])")


@kernel(_SIGS, parallel=True, nogil=True, error_model="numpy", cache=True)
def dropout_mask_fill(seed, threshold, value, out):
    """Write ``out`` (flat): ``value`` where the draw keeps, else 0."""
    keep = out.dtype.type(value)
    zero = out.dtype.type(0.0)
    for i in numba.prange(out.size):
        z = seed + (np.uint64(i) + _ONE) * _GOLDEN
        z = (z ^ (z >> _S30)) * _MIX1
        z = (z ^ (z >> _S27)) * _MIX2
        z = z ^ (z >> _S31)
        out[i] = keep if (z >> _S48) >= threshold else zero

"""Run an experiment on one thread, so that its numbers do not depend on the machine's
load or thread count.

With two or more threads, minigrad's kernels split a large reduction between threads
and add the partial sums in an order that depends on how many threads run it. A sum
added in another order differs in its last bits, and a training run amplifies such a
difference step after step (one ``warmup`` run of 80 steps ended at 1.96882 on one
thread and 1.96895 on two; over 150 steps and unstable cells, a re-run found
differences up to 0.09). On one thread every sum is
added in one order, and a seeded experiment repeats to the last digit on the same
machine, whatever the load.
(Across machines, NumPy's BLAS may pick another matrix-product kernel for another CPU;
see docs/lab.md for what that can move.)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import minigrad as mg

__all__ = ["one_thread"]


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Use one thread for minigrad's kernels and NumPy's matmuls inside the block, then
    give the caller's thread count back.

    Example::

        >>> with one_thread():
        ...     mg.get_num_threads()
        1
    """
    saved = mg.get_num_threads()
    mg.set_num_threads(1)
    try:
        yield
    finally:
        mg.set_num_threads(saved)

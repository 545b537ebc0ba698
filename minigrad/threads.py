"""The thread count under its old import path (``from minigrad.threads import ...``).

The code lives in ``minigrad.kernels.runtime``, the one module that knows about threads.
"""

from minigrad.kernels.runtime import get_num_threads, keep_freed_memory, set_num_threads, share

__all__ = ["get_num_threads", "keep_freed_memory", "set_num_threads", "share"]

"""Reusable arrays for the fused kernels' outputs and scratch space.

Allocating a fresh multi-megabyte output on every call costs page faults: the memory
allocator hands large blocks back to the operating system when they are freed and
gets new, unmapped pages for the next call, which the kernel then faults in one 4 KiB
page at a time (measured: hundreds of faults per call and up to 2x slower norms). This
pool keeps the arrays it has handed out and gives one back out again only when nothing
else refers to it any more, so memory is reused exactly when that is safe:

- an array is free when the pool holds the only reference to it. Every Tensor, view
  (a view keeps its base alive), saved tensor or user variable that still uses the
  array adds a reference, so ``sys.getrefcount`` tells whether anyone does;
- the pool keeps at most ``max_bytes`` (least recently used arrays are dropped first),
  like PyTorch's caching allocator keeps freed blocks; ``clear()`` empties it.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict

import numpy as np

__all__ = ["BufferPool", "default_pool"]

# References to a free array while ``_take`` looks at it: the pool's list, the loop
# variable and ``getrefcount``'s own argument.
_FREE_REFCOUNT = 3


class BufferPool:
    """Hands out uninitialised arrays (like ``np.empty``), reusing released ones.

    Args:
        max_bytes: the most memory the pool keeps; beyond it, arrays are allocated but
            not kept, and the least recently used free arrays are dropped.
    """

    def __init__(self, max_bytes: int = 1 << 28):
        self.max_bytes = max_bytes
        self._arrays: OrderedDict = OrderedDict()  # (shape, dtype) -> [arrays]
        self._bytes = 0
        self._lock = threading.Lock()

    def empty(self, shape: tuple, dtype) -> np.ndarray:
        """An array of ``shape`` and ``dtype`` that nobody else is using (contents
        undefined)."""
        key = (tuple(shape), np.dtype(dtype))
        with self._lock:
            found = self._take(key)
            if found is not None:
                return found
            array = np.empty(key[0], dtype=key[1])
            if array.nbytes <= self.max_bytes:
                self._make_room(array.nbytes)
                self._arrays.setdefault(key, []).append(array)
                self._bytes += array.nbytes
            return array

    def _take(self, key):
        """The most recently handed-out free array of ``key`` (the likeliest to be still
        in the caches), or None."""
        arrays = self._arrays.get(key)
        if not arrays:
            return None
        for k in range(len(arrays) - 1, -1, -1):
            array = arrays[k]
            if sys.getrefcount(array) == _FREE_REFCOUNT:
                del arrays[k]
                arrays.append(array)  # most recently handed out: last
                self._arrays.move_to_end(key)
                return array
        return None

    def _make_room(self, nbytes: int) -> None:
        """Drop free arrays, least recently used shapes first, until ``nbytes`` fits."""
        for key in list(self._arrays):
            if self._bytes + nbytes <= self.max_bytes:
                return
            arrays = self._arrays[key]
            for array in list(arrays):
                if sys.getrefcount(array) == _FREE_REFCOUNT + 1:  # + the list() copy
                    arrays.remove(array)
                    self._bytes -= array.nbytes
            if not arrays:
                del self._arrays[key]

    def clear(self) -> None:
        """Forget every array (arrays still in use stay valid: their users own them)."""
        with self._lock:
            self._arrays.clear()
            self._bytes = 0

    @property
    def nbytes(self) -> int:
        """Bytes currently held by the pool (in use or free)."""
        return self._bytes


#: The pool the fused norms allocate from.
default_pool = BufferPool()

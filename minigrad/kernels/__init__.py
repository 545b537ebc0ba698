"""Numba kernels: the hot inner loops, written as plain loops over rows.

Conventions (after numbagg):
- A kernel module imports numba at its top, so ``import minigrad`` never imports one: the
  code that uses a kernel imports its module inside a function, on first use. Importing
  numba costs about half a second; every kernel is cached on disk (``cache=True``).
- A kernel has explicit signatures (float32 and float64, C-contiguous arrays), declared
  with ``jit.kernel``, which compiles each one on the first call that needs it, and
  writes into ``out`` arguments; the thin Python wrapper at the end of its module does the
  layout, the defaults and the allocation. A ``prange`` kernel has a serial twin compiled
  from the same function, and the wrapper runs ``kernel.for_size(x.size)``.
- ``runtime.py`` is the only code that chooses threads, by one rule (the input's size
  and ``mg.set_num_threads``; see its docstring), and holds the one process-wide
  setting minigrad makes on its own, the allocator policy (from the first backward on;
  it can be turned off).
- Reductions along a row need ``fastmath={"reassoc", ...}`` to be vectorized; NaN / inf
  semantics are kept (no ``nnan``/``ninf``).
- Never ``out[j] += ...`` across ``prange`` iterations (it races): a sum over rows is cut
  into chunks fixed by the shape (``layout.row_chunks``), each chunk sums into its own
  float64 row, and NumPy adds the rows in order (``partial.sum(0)``): bit-identical on
  every run and any thread count.
- Numba's cache does not notice edits to a jitted helper imported from another module,
  so each kernel module keeps its jitted helpers to itself; the one exception is
  ``fast_exp.py`` (the vectorizable exp of the activation and attention kernels, see
  its docstring).
"""

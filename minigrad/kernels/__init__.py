"""Numba kernels: the hot inner loops, written as plain loops over rows.

Conventions (see STYLE.md, after numbagg):
- A kernel module imports numba at its top, so ``import minigrad`` must never import
  a kernel module: the Python wrapper that dispatches to a kernel imports it inside the
  function, on first use. Importing numba costs about half a second; compiling a kernel
  0.6-2 s, so every kernel is compiled lazily and cached on disk (``cache=True``).
- A kernel works on one dtype-specialized, C-contiguous layout and writes into an
  ``out`` argument; axis handling, dtype dispatch and allocation stay in the wrapper.
- Numba's cache does not notice edits to a jitted helper imported from another module,
  so each kernel module keeps its jitted helpers to itself.
"""

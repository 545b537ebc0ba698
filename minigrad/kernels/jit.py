"""``kernel``: a Numba kernel with explicit signatures, compiled on first use, and its
serial twin, on Numba's public API only (``numba.njit``, ``numba.typeof``, ``numba.types``).

``numba.njit(signatures)`` compiles every signature when its module is imported: a
float32 training run would compile the float64 kernels (which gradcheck uses) and every
other kernel of the module it imports, used or not. A ``Kernel`` keeps the explicit
signatures as the contract (anything else is a ``TypeError`` naming the kernel) but
makes the ``numba.njit(signatures)`` dispatcher of a dtype only on the first call with
arrays of that dtype: a run compiles (or loads from Numba's disk cache) what it calls.

The signatures of a kernel differ in the dtype of one array argument (float32 or
float64): the first argument where they differ picks the dispatcher, by its ``dtype``.
After that first call, a call costs one dictionary look-up more than Numba's own
dispatch.

A kernel declared with ``parallel=True`` (its loop a ``numba.prange``) has a twin,
``kernel.serial``: the same function compiled without ``parallel``, where ``prange`` is
``range``. ``kernel.for_size(size)`` returns the one ``runtime.parallel`` chooses.
"""

from __future__ import annotations

import types

import numba

from minigrad.kernels import runtime

__all__ = ["Kernel", "both_floats", "kernel"]


def kernel(signatures: list, **options):
    """Decorator: a ``Kernel`` for ``signatures`` (strings or ``numba.types``
    signatures) with ``numba.njit``'s ``options``."""

    def wrap(fn) -> Kernel:
        return Kernel(fn, signatures, options)

    return wrap


def both_floats(template: str) -> list:
    """The signatures of ``template`` with ``T`` as float32, then float64."""
    return [template.replace("T", t) for t in ("float32", "float64")]


def _signature(sig):
    """A signature string read in the namespace Numba reads it in (``numba.types``)."""
    if isinstance(sig, str):
        return eval(sig, {"__builtins__": {}}, vars(numba.types))
    return sig


def _dtype_position(signatures) -> int | None:
    """The first argument whose array dtype differs between ``signatures`` (None: one
    dispatcher serves them all)."""
    for i in range(len(signatures[0].args)):
        kinds = {getattr(s.args[i], "dtype", None) for s in signatures}
        if len(kinds) > 1:
            arrays = all(isinstance(s.args[i], numba.types.Array) for s in signatures)
            return i if arrays else None
    return None


def _accepts(declared, actual) -> bool:
    """Whether an argument of Numba type ``actual`` fits the declared array type: the
    same dtype and rank, a C layout where one is declared, writeable unless read-only is
    declared. Scalars are left to Numba (it converts an int to a float64)."""
    if not isinstance(declared, numba.types.Array):
        return True
    if not isinstance(actual, numba.types.Array):
        return False
    return (
        actual.dtype == declared.dtype
        and actual.ndim == declared.ndim
        and (declared.layout == "A" or actual.layout == declared.layout)
        and (not declared.mutable or actual.mutable)
    )


class Kernel:
    """A Numba function with explicit signatures, one ``numba.njit`` dispatcher per
    dtype, each made on the first call that needs it (see the module docstring)."""

    def __init__(self, fn, signatures: list, options: dict):
        self.py_func = fn
        self.__name__, self.__doc__ = fn.__name__, fn.__doc__
        self._declared = [_signature(s) for s in signatures]
        self._options = options
        self._position = _dtype_position(self._declared)
        self._dispatchers: dict = {}  # the dtype at _position (or None) -> dispatcher
        self.serial = self
        if options.get("parallel"):
            serial = dict(options, parallel=False)
            self.serial = Kernel(_renamed(fn, fn.__name__ + "_serial"), signatures, serial)

    def __call__(self, *args):
        key = None if self._position is None else getattr(args[self._position], "dtype", None)
        dispatcher = self._dispatchers.get(key)
        if dispatcher is None:
            dispatcher = self._dispatcher_for(key, args)
        try:
            return dispatcher(*args)
        except TypeError:  # Numba's "No matching definition": said in our words
            raise TypeError(self._mismatch(args)) from None

    def for_size(self, size: int) -> Kernel:
        """This kernel, or its serial twin: ``runtime.parallel(size)`` decides."""
        return self if runtime.parallel(size) else self.serial

    @property
    def signatures(self) -> list:
        """The signatures compiled so far (Numba's ``dispatcher.signatures``)."""
        return [s for d in self._dispatchers.values() for s in d.signatures]

    def _dispatcher_for(self, key, args):
        """The dispatcher of the declared signatures for ``key``, made (compiled, or
        loaded from the cache) on the first call; a TypeError, compiling nothing, when
        no declared signature takes ``args``."""
        actual = [_numba_type(a) for a in args]
        sigs = [
            s
            for s in self._declared
            if len(s.args) == len(args) and all(map(_accepts, s.args, actual))
        ]
        if not sigs:
            raise TypeError(self._mismatch(args))
        if self._position is not None:  # every declared signature of that dtype
            dtype = sigs[0].args[self._position].dtype
            sigs = [s for s in self._declared if s.args[self._position].dtype == dtype]
        dispatcher = numba.njit(sigs, **self._options)(self.py_func)
        self._dispatchers[key] = dispatcher
        return dispatcher

    def _mismatch(self, args) -> str:
        actual = ", ".join(str(_numba_type(a)) for a in args)
        takes = " or ".join(f"({', '.join(map(str, s.args))})" for s in self._declared)
        return (
            f"{self.__name__}: no matching definition for argument types ({actual}); "
            f"it takes {takes}"
        )


def _numba_type(value):
    """``numba.typeof(value)``, or None for a value Numba has no type for."""
    try:
        return numba.typeof(value)
    except ValueError:
        return None


def _renamed(fn, name: str):
    """A copy of ``fn`` under another name. Numba's disk cache files a function under its
    qualified name and keys it by signature, not by ``parallel``: the serial twin needs
    a name of its own, or it would load the parallel code from the cache."""
    twin = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    twin.__qualname__ = fn.__qualname__ + "_serial"
    twin.__module__ = fn.__module__
    twin.__doc__ = f"``{fn.__name__}`` on the calling thread (its serial twin)."
    return twin

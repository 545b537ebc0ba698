"""``kernel``: ``numba.njit`` with explicit signatures, each compiled on first use.

``numba.njit(signatures)`` compiles every signature when its module is imported: a
float32 training run would compile the float64 kernels (which gradcheck uses) and every
other kernel of the module it imports, used or not. On a first run of ``minigrad train``
(nothing in Numba's cache yet) that was 31 s of compiling; the kernels the run calls take
6.8 s of it.

A ``kernel`` keeps the explicit signatures as the contract (C-contiguous writeable
arrays of the declared dtypes; anything else is a ``TypeError``, as with ``njit``), but
compiles one, or loads it from the cache, the first time a call needs it. Later calls
of the same types take Numba's usual dispatch, at the usual cost (also those whose types
the signature converts: they are registered with it on their first call).
"""

from __future__ import annotations

import numba
from numba.core import sigutils

__all__ = ["kernel"]


def kernel(signatures: list[str], **options):
    """Decorator: a Numba dispatcher for ``signatures`` (``njit``'s ``options``)."""

    def wrap(fn):
        dispatcher = numba.njit(**options)(fn)  # no signature: Numba compiles on call
        declared = [sigutils.normalize_signature(s)[0] for s in signatures]
        typing = dispatcher.typingctx

        def accepts(sig, actual) -> bool:
            return len(sig) == len(actual) and all(
                a == d or typing.can_convert(a, d) is not None for a, d in zip(actual, sig)
            )

        def compile_declared(*args):
            # Numba calls this when no compiled version matches a call's types: compile
            # the declared signature that takes them (never a new one), and run it.
            actual = tuple(dispatcher.typeof_pyval(a) for a in args)
            for sig in declared:
                if accepts(sig, actual):
                    entry = dispatcher.compile(sig)
                    if actual != tuple(sig):
                        # Types the declared signature converts (an int for a float64,
                        # a C array for an 'A' one): later calls of these types go
                        # straight to it, as in Numba's dispatch of a njit with
                        # signatures (what ``add_overload`` registers, for these types).
                        dispatcher._insert([t._code for t in actual], entry, False)
                    return entry
            raise TypeError(
                f"{fn.__name__}: no matching definition for argument types "
                f"({', '.join(map(str, actual))}); it takes "
                + " or ".join(f"({', '.join(map(str, s))})" for s in declared)
            )

        dispatcher._compile_for_args = compile_declared
        return dispatcher

    return wrap

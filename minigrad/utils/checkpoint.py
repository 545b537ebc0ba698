"""``torch.utils.checkpoint``: activation checkpointing's API, computed without the
memory saving.

PyTorch's ``checkpoint(fn, *args)`` discards ``fn``'s intermediate activations after the
forward pass and recomputes them during backward (with the same random state), trading
compute for memory; the values and gradients are those of calling ``fn(*args)``.
minigrad calls ``fn(*args)`` and keeps its graph, so a program that checkpoints gets
the same numbers (and uses the memory of an ordinary forward pass).

Example::

    >>> from minigrad.utils.checkpoint import checkpoint
    >>> y = checkpoint(block, x, use_reentrant=False)   # = block(x)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["checkpoint", "checkpoint_sequential"]


def checkpoint(
    function: Callable,
    *args,
    use_reentrant: bool | None = None,
    context_fn: Callable | None = None,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    preserve_rng_state: bool = True,
    **kwargs,
):
    """``function(*args, **kwargs)`` (see the module docstring)."""
    if context_fn is not None and use_reentrant:
        raise ValueError("Passing context_fn or debug is only supported when use_reentrant=False.")
    return function(*args, **kwargs)


def checkpoint_sequential(
    functions: Iterable[Callable],
    segments: int,
    input,
    use_reentrant: bool | None = None,
    **kwargs,
):
    """Run ``functions`` (a ``Sequential`` or a list of modules) one after the other on
    ``input``; ``segments`` says how PyTorch would split them for recomputation."""
    for fn in functions:
        input = fn(input)
    return input

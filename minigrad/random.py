"""The one random-number generator behind every random draw minigrad makes.

Weight initialisation, dropout masks and ``mg.randn`` / ``mg.rand`` all draw from
``default_generator``; ``mg.manual_seed(seed)`` resets it, so a seeded run is
reproducible. ``get_rng_state`` / ``set_rng_state`` save and restore it (checkpoints).
"""

from __future__ import annotations

import numpy as np

_generator = np.random.default_rng(0)


def manual_seed(seed: int) -> np.random.Generator:
    """Seed the generator behind every random draw minigrad makes."""
    global _generator
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"manual_seed: seed must be a non-negative int, got {seed!r}")
    _generator = np.random.default_rng(int(seed))
    return _generator


def default_generator() -> np.random.Generator:
    """The generator in use (changes when ``manual_seed`` is called)."""
    return _generator


def get_rng_state() -> dict:
    """The generator's state as a plain dict (JSON- and checkpoint-friendly strings)."""
    state = _generator.bit_generator.state
    return {
        "bit_generator": state["bit_generator"],
        "state": str(state["state"]["state"]),
        "inc": str(state["state"]["inc"]),
        "has_uint32": int(state["has_uint32"]),
        "uinteger": int(state["uinteger"]),
    }


def set_rng_state(state: dict) -> None:
    """Restore a state returned by ``get_rng_state``."""
    global _generator
    if state.get("bit_generator") != "PCG64":
        raise ValueError(
            f"set_rng_state: expected a PCG64 state, got {state.get('bit_generator')!r}"
        )
    gen = np.random.Generator(np.random.PCG64())
    gen.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": int(state["state"]), "inc": int(state["inc"])},
        "has_uint32": int(state["has_uint32"]),
        "uinteger": int(state["uinteger"]),
    }
    _generator = gen

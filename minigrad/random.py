"""The random-number generators behind every random draw minigrad makes.

Weight initialisation, dropout masks and ``mg.randn`` / ``mg.rand`` all draw from the
default generator; ``mg.manual_seed(seed)`` resets it, so a seeded run is
reproducible. ``get_rng_state`` / ``set_rng_state`` save and restore it (checkpoints).

``mg.Generator`` is PyTorch's ``torch.Generator``: an independent stream that a random
function uses instead of the default one when it is passed as ``generator=``
(``mg.randn(3, generator=g)``, ``DataLoader(..., generator=g)``). The streams are
NumPy's (PCG64), so a seed gives other numbers than the same seed in PyTorch.
"""

from __future__ import annotations

import numpy as np

_generator = np.random.default_rng(0)
_initial_seed = 0  # the seed of the default generator (``mg.initial_seed()``)


def _check_seed(where: str, seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{where}: seed must be a non-negative int, got {seed!r}")
    return int(seed)


def manual_seed(seed: int) -> Generator:
    """Seed the generator behind every random draw minigrad makes; returns it, the
    default generator (as ``torch.manual_seed``: its NumPy methods work on it too)."""
    global _generator, _initial_seed
    _initial_seed = _check_seed("manual_seed", seed)
    _generator = np.random.default_rng(_initial_seed)
    return DEFAULT_GENERATOR


def seed() -> int:
    """Seed the default generator from the operating system's entropy (a run that
    cannot be reproduced); returns the seed."""
    new = int(np.random.SeedSequence().entropy % (2**63))
    manual_seed(new)
    return new


def initial_seed() -> int:
    """The seed the default generator was last seeded with (0 until ``manual_seed``)."""
    return _initial_seed


def default_generator() -> np.random.Generator:
    """The generator in use (changes when ``manual_seed`` is called)."""
    return _generator


class Generator:
    """An independent random stream, as ``torch.Generator``.

    Args:
        device: only ``"cpu"`` (a CUDA or MPS device raises, see ``mg.device``).

    Example::

        >>> g = mg.Generator().manual_seed(42)
        >>> a = mg.randn(3, generator=g)
        >>> b = mg.randn(3, generator=mg.Generator().manual_seed(42))   # same numbers
    """

    def __init__(self, device="cpu") -> None:
        from minigrad.devices import check_device

        check_device(device, "Generator")
        self._seed = 67280421310721  # PyTorch's default seed for a new Generator
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> Generator:
        """Reset the stream from ``seed``; returns the generator (for chaining)."""
        self._seed = _check_seed("Generator.manual_seed", seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        self._seed = int(np.random.SeedSequence().entropy % (2**63))
        self._rng = np.random.default_rng(self._seed)
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> dict:
        return _state_of(self._rng)

    def set_state(self, state: dict) -> None:
        self._rng = _rng_from(state, "Generator.set_state")

    @property
    def device(self) -> str:
        return "cpu"

    def __getattr__(self, name: str):
        # The NumPy generator's methods (``uniform``, ``normal``, ``integers``...), so that
        # code which draws from "a generator or the default one" accepts this one too.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._rng, name)

    def __repr__(self) -> str:
        return f"<minigrad.Generator seed={self._seed}>"


class _DefaultGenerator(Generator):
    """``mg.default_generator``, as ``torch.default_generator``: a ``Generator`` whose
    stream is the default one (what ``manual_seed``, ``get_rng_state`` and every draw
    without ``generator=`` use): seeding it seeds them all."""

    def __init__(self) -> None:  # no state of its own: it reads the module's
        pass

    @property
    def _rng(self) -> np.random.Generator:
        return _generator

    @property
    def _seed(self) -> int:
        return _initial_seed

    def manual_seed(self, seed: int) -> Generator:
        manual_seed(seed)
        return self

    def seed(self) -> int:
        return seed()

    def set_state(self, state: dict) -> None:
        set_rng_state(state)

    def __repr__(self) -> str:
        return f"<minigrad.Generator (the default generator) seed={_initial_seed}>"


DEFAULT_GENERATOR = _DefaultGenerator()


def resolve(generator) -> np.random.Generator:
    """The NumPy generator to draw from: ``generator``'s (an ``mg.Generator`` or a NumPy
    ``Generator``) or, for ``None``, the default one."""
    if generator is None:
        return _generator
    if isinstance(generator, Generator):
        return generator._rng
    if isinstance(generator, np.random.Generator):
        return generator
    raise TypeError(
        f"generator: expected a minigrad.Generator (or None), got {type(generator).__name__}"
    )


def _state_of(rng: np.random.Generator) -> dict:
    state = rng.bit_generator.state
    return {
        "bit_generator": state["bit_generator"],
        "state": str(state["state"]["state"]),
        "inc": str(state["state"]["inc"]),
        "has_uint32": int(state["has_uint32"]),
        "uinteger": int(state["uinteger"]),
    }


def _rng_from(state: dict, where: str) -> np.random.Generator:
    if state.get("bit_generator") != "PCG64":
        raise ValueError(f"{where}: expected a PCG64 state, got {state.get('bit_generator')!r}")
    gen = np.random.Generator(np.random.PCG64())
    gen.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": int(state["state"]), "inc": int(state["inc"])},
        "has_uint32": int(state["has_uint32"]),
        "uinteger": int(state["uinteger"]),
    }
    return gen


def get_rng_state() -> dict:
    """The default generator's state as a plain dict (JSON- and checkpoint-friendly)."""
    return _state_of(_generator)


def set_rng_state(state: dict) -> None:
    """Restore a state returned by ``get_rng_state``."""
    global _generator
    _generator = _rng_from(state, "set_rng_state")

"""PyTorch names minigrad deliberately lacks, and the one error that says so.

The names are data: ``unsupported.json`` (beside this file) maps each category (CUDA and
devices, sparse, quantized, complex, FFT, convolution and pooling, recurrent layers,
JIT/FX/export/ONNX, multi-process, ...) to a reason, what to do instead, and the
PyTorch names it covers, as dotted paths below ``torch`` with wildcards
(``"nn.Conv*"``, ``"Tensor.is_sparse"``, ``"fx.*"``: see :func:`_compile`).

A module's ``__getattr__``, or an ``import`` of a minigrad path that does not exist, asks
:func:`lookup` (only when the name is otherwise missing); Tensor's names in the table
(exact names, no wildcards) are class attributes that raise when read
(:func:`install_tensor_names`). A name in the table raises :class:`UnsupportedError`
instead of a bare ``AttributeError`` / ``ModuleNotFoundError``.

``UnsupportedError`` is an ``AttributeError`` (so ``hasattr(torch, "fft")`` feature tests
answer False) and a ``NotImplementedError`` (so code that calls a name and catches
``NotImplementedError`` sees what it expects)::

    >>> import minigrad as mg
    >>> hasattr(mg.nn, "Conv2d")
    False
    >>> mg.nn.Conv2d
    Traceback (most recent call last):
    minigrad.unsupported.UnsupportedError: torch.nn.Conv2d is not supported by minigrad
    (convolution and pooling: ...). Instead: ...
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

_TABLE = Path(__file__).with_name("unsupported.json")


class UnsupportedError(AttributeError, NotImplementedError):
    """A PyTorch name minigrad deliberately does not provide; the message gives the
    category, the reason and what to do instead."""


@dataclass(frozen=True)
class Entry:
    category: str
    reason: str
    instead: str


@functools.cache
def _table() -> tuple[dict, dict[str, str], list[tuple[re.Pattern, str]]]:
    """The categories, the exact names (a dict: most entries) and the wildcard patterns."""
    import json  # only when a lookup first fails: importing minigrad stays lean

    cats = json.loads(_TABLE.read_text())["categories"]
    exact: dict[str, str] = {}
    wild: list[tuple[re.Pattern, str]] = []
    for key, cat in cats.items():
        for p in cat["names"]:
            if "*" in p:
                wild.append((_compile(p), key))
            else:
                exact.setdefault(p, key)
    return cats, exact, wild


def _compile(pattern: str) -> re.Pattern:
    """``*`` matches within one dotted component (``"nn.Conv*"`` is not ``"nn.x.Conv1d"``);
    a trailing ``.*`` matches everything below a path (``"fx.*"``: ``fx.graph``,
    ``fx.passes.shape_prop`` ...)."""
    below = pattern.endswith(".*")
    base = pattern[:-2] if below else pattern
    regex = re.escape(base).replace(r"\*", "[^.]*")
    return re.compile(regex + (r"\..+" if below else ""))


def categories() -> dict[str, dict]:
    """``{category: {"title", "reason", "instead", "names"}}``, as in the table."""
    return _table()[0]


@functools.lru_cache(maxsize=4096)  # a failed lookup repeated in a loop costs a dict hit
def lookup(dotted: str) -> Entry | None:
    """The table's entry for a path below ``torch`` (``"nn.Conv2d"``, ``"Tensor.to_sparse"``,
    ``"fx.graph"``), or None when the name is not classified. An exact name wins over a
    pattern; among patterns, the first in the table."""
    cats, exact, wild = _table()
    key = exact.get(dotted)
    if key is None:
        key = next((k for pattern, k in wild if pattern.fullmatch(dotted)), None)
    if key is None:
        return None
    return Entry(key, cats[key]["reason"], cats[key]["instead"])


def error(where: str, name: str) -> AttributeError:
    """The exception for a failed ``getattr(<where>, name)``: :class:`UnsupportedError`
    for a classified name, otherwise Python's usual ``AttributeError``. ``where`` is the
    path below ``torch`` (``""`` for the top level, ``"nn.functional"``, ``"Tensor"``)."""
    dotted = f"{where}.{name}" if where else name
    entry = lookup(dotted)
    if entry is None:
        owner = "minigrad" + (f".{where}" if where else "")
        if where == "Tensor":
            return AttributeError(f"'Tensor' object has no attribute {name!r}")
        return AttributeError(f"module {owner!r} has no attribute {name!r}")
    title = categories()[entry.category]["title"]
    return UnsupportedError(
        f"torch.{dotted} is not supported by minigrad ({title}: {entry.reason}). "
        f"Instead: {entry.instead}"
    )


def refused(what: str, category: str) -> UnsupportedError:
    """The error for a feature of a name minigrad has, which it declines
    (``embedding(sparse=True)``): the category's reason and what to do instead; the
    exception's ``category`` attribute names the category."""
    cat = categories()[category]
    err = UnsupportedError(
        f"{what} is not supported by minigrad ({cat['title']}: {cat['reason']}). "
        f"Instead: {cat['instead']}"
    )
    err.category = category
    return err


def module_getattr(module_name: str):
    """A module-level ``__getattr__`` for ``module_name`` (``"minigrad.nn.init"``) that
    raises :func:`error` for every name it lacks."""
    where = module_name.removeprefix("minigrad").lstrip(".")

    def __getattr__(name: str):
        raise error(where, name)

    return __getattr__


class _UnsupportedAttribute:
    """A class attribute standing for a Tensor name in the table: reading it raises
    :class:`UnsupportedError` (so ``hasattr(t, "to_sparse")`` is False). Tensor gets these
    instead of a ``__getattr__``, which would slow down every attribute miss (NumPy probes
    ``__array_interface__`` on each ``np.asarray(t)``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        raise error("Tensor", self.name)


def install_tensor_names(tensor_class: type) -> None:
    """Give ``tensor_class`` an :class:`_UnsupportedAttribute` for each ``Tensor.X`` of
    the table that it does not define (the table lists Tensor names exactly, without
    wildcards)."""
    defined = {name for k in tensor_class.__mro__ for name in vars(k)}
    for category in categories().values():
        for dotted in category["names"]:
            where, _, name = dotted.partition(".")
            if where == "Tensor" and name not in defined:
                setattr(tensor_class, name, _UnsupportedAttribute(name))


class _UnsupportedFinder:
    """Consulted last, only for ``minigrad.*`` imports every other finder failed on
    (``import minigrad.fx``, ``from minigrad.nn import Conv2d``): a path in the table
    raises :class:`UnsupportedError`; anything else is left to Python's
    ``ModuleNotFoundError``."""

    @staticmethod
    def find_spec(fullname: str, path=None, target=None):
        if fullname.startswith("minigrad."):
            dotted = fullname.removeprefix("minigrad.")
            if lookup(dotted) is not None:
                where, _, name = dotted.rpartition(".")
                raise error(where, name)
        return None


def install_finder() -> None:
    """Append the finder to ``sys.meta_path`` once. It answers only for ``minigrad.``
    names that no other finder found, so no other import changes."""
    if not any(isinstance(f, _UnsupportedFinder) for f in sys.meta_path):
        sys.meta_path.append(_UnsupportedFinder())

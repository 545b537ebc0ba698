"""PyTorch names minigrad deliberately lacks, and the errors that say so.

The names are data: ``unsupported.json`` (beside this file) maps each category (CUDA and
devices, sparse, quantized, complex, FFT, convolution and pooling, recurrent layers,
JIT/FX/export/ONNX, multi-process, ...) to a reason, what to do instead, and the
PyTorch names it covers, as dotted paths below ``torch`` with wildcards
(``"nn.Conv*"``, ``"Tensor.to_sparse"``, ``"fx.*"``: see :func:`_compile`). It also
lists every public module path PyTorch has (``"modules"``, written by
``tools/census.py modules``).

Refusal happens at use, not at import, because PyTorch programs import modules they
never call (``import torch.multiprocessing as mp``, ``import torch.onnx``):

- ``import minigrad.X`` succeeds for every module path ``torch.X`` PyTorch has. Where
  minigrad has no module of that name, :class:`_UnsupportedFinder` (consulted last, only
  for ``minigrad.*`` imports nothing else found) makes one whose every attribute raises
  (``minigrad.onnx.export`` says why). ``importlib.util.find_spec`` finds it like any
  module, and ``mg.onnx`` is that module too.
- Reading a classified name (``mg.nn.Conv2d``, ``t.to_sparse``) raises
  :class:`UnsupportedAttributeError`: an ``AttributeError`` (so ``hasattr(torch.nn,
  "Conv2d")`` feature tests answer False) and a ``NotImplementedError``.
- ``from minigrad.nn import Conv2d`` raises :class:`UnsupportedImportError`, an
  ``ImportError``, so the optional-import idiom ``try: from torch.nn import X except
  ImportError: ...`` takes its fallback.

Both are :class:`UnsupportedError`, whose message gives the category, the reason and
what to do instead. (One class cannot be both an ``AttributeError`` and an
``ImportError``: CPython's layouts of the two conflict.) A module's ``__getattr__`` asks
:func:`attribute` only when a name is otherwise missing; Tensor's names in the table
(exact names, no wildcards) are class attributes that raise when read
(:func:`install_tensor_names`)::

    >>> import minigrad as mg
    >>> hasattr(mg.nn, "Conv2d")
    False
    >>> mg.nn.Conv2d
    Traceback (most recent call last):
    minigrad.unsupported.UnsupportedAttributeError: torch.nn.Conv2d is not supported by
    minigrad (convolution and pooling: ...). Instead: ...
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import re
import sys
from dataclasses import dataclass
from pathlib import Path

_TABLE = Path(__file__).with_name("unsupported.json")


class UnsupportedError(NotImplementedError):
    """A PyTorch name minigrad deliberately does not provide; the message gives the
    category, the reason and what to do instead. ``except mg.UnsupportedError`` catches
    both kinds below."""


class UnsupportedAttributeError(AttributeError, UnsupportedError):
    """Reading an unsupported name: ``mg.nn.Conv2d``, ``t.to_sparse``, ``mg.onnx.export``."""


class UnsupportedImportError(ImportError, UnsupportedError):
    """Importing an unsupported name: ``from minigrad.nn import Conv2d``."""


@dataclass(frozen=True)
class Entry:
    category: str
    reason: str
    instead: str


#: The entry of a module path PyTorch has that minigrad neither has nor classifies: its
#: module exists (imports work) and says so at use.
MISSING = Entry("missing", "", "")


@functools.cache
def _table() -> tuple[dict, dict, list[tuple[re.Pattern, str]], frozenset, frozenset]:
    """The categories, the exact names (a dict: most entries), the wildcard patterns and
    PyTorch's module paths, and those of them that are not an attribute of their parent
    (``torch.multiprocessing.spawn`` is a function)."""
    import json  # read once, on first use (install_tensor_names uses it at import)

    data = json.loads(_TABLE.read_text())
    cats = data["categories"]
    exact: dict[str, str] = {}
    wild: list[tuple[re.Pattern, str]] = []
    for key, cat in cats.items():
        for p in cat["names"]:
            if "*" in p:
                wild.append((_compile(p), key))
            else:
                exact.setdefault(p, key)
    return cats, exact, wild, frozenset(data["modules"]), frozenset(data["shadowed_modules"])


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


def torch_modules() -> frozenset[str]:
    """PyTorch's public module paths below ``torch`` (``"onnx"``, ``"nn.utils.rnn"``)."""
    return _table()[3]


def _is_module_attribute(dotted: str) -> bool:
    """Whether ``torch.<dotted>`` is a module that its parent hands out as an attribute."""
    return dotted in _table()[3] and dotted not in _table()[4]


@functools.lru_cache(maxsize=4096)  # a failed lookup repeated in a loop costs a dict hit
def lookup(dotted: str) -> Entry | None:
    """The table's entry for a path below ``torch`` (``"nn.Conv2d"``, ``"Tensor.to_sparse"``,
    ``"fx.graph"``), or None when the name is not classified. An exact name wins over a
    pattern; among patterns, the first in the table."""
    cats, exact, wild = _table()[:3]
    key = exact.get(dotted)
    if key is None:
        key = next((k for pattern, k in wild if pattern.fullmatch(dotted)), None)
    if key is None:
        return None
    return Entry(key, cats[key]["reason"], cats[key]["instead"])


def _message(dotted: str, entry: Entry) -> str:
    if entry is MISSING:
        return (
            f"torch.{dotted} is not implemented in minigrad (its module exists so that "
            "imports work, but this name is not written yet)"
        )
    title = categories()[entry.category]["title"]
    return (
        f"torch.{dotted} is not supported by minigrad ({title}: {entry.reason}). "
        f"Instead: {entry.instead}"
    )


def error(where: str, name: str, module_entry: Entry | None = None) -> AttributeError:
    """The exception for a failed ``getattr(<where>, name)``: :class:`UnsupportedAttributeError`
    for a classified name, otherwise Python's usual ``AttributeError``. ``where`` is the
    path below ``torch`` (``""`` for the top level, ``"nn.functional"``, ``"Tensor"``);
    ``module_entry`` classifies every name of a module minigrad does not have."""
    dotted = f"{where}.{name}" if where else name
    entry = lookup(dotted) or module_entry
    if entry is None:
        owner = "minigrad" + (f".{where}" if where else "")
        if where == "Tensor":
            return AttributeError(f"'Tensor' object has no attribute {name!r}")
        return AttributeError(f"module {owner!r} has no attribute {name!r}")
    return UnsupportedAttributeError(_message(dotted, entry))


def attribute(where: str, name: str, module_entry: Entry | None = None):
    """What ``getattr(<where>, name)`` gives when the module lacks ``name``: the module
    ``minigrad.<where>.<name>`` when PyTorch has a module of that path (minigrad's own,
    or one that refuses at use), else the exception of :func:`error`, raised."""
    dotted = f"{where}.{name}" if where else name
    if not name.startswith("__") and _is_module_attribute(dotted):
        try:
            return importlib.import_module("minigrad." + dotted)
        except ImportError as e:  # a module that needs an optional package: hasattr is False
            owner = "minigrad" + (f".{where}" if where else "")
            raise AttributeError(f"module {owner!r} has no attribute {name!r} ({e})") from e
    raise error(where, name, module_entry)


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
    """A module-level ``__getattr__`` for ``module_name`` (``"minigrad.nn.init"``): a
    PyTorch submodule path gives that module, any other missing name raises
    :func:`error`."""
    where = module_name.removeprefix("minigrad").lstrip(".")

    def __getattr__(name: str):
        return attribute(where, name)

    return __getattr__


class _UnsupportedAttribute:
    """A class attribute standing for a Tensor name in the table: reading it raises
    :class:`UnsupportedAttributeError` (so ``hasattr(t, "to_sparse")`` is False). Tensor
    gets these instead of a ``__getattr__``, which would slow down every attribute miss
    (NumPy probes ``__array_interface__`` on each ``np.asarray(t)``)."""

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


# ------------------------------------------------------------------ imports
class _RefusingModule(importlib.abc.Loader):
    """Makes ``minigrad.X`` for a PyTorch module path ``torch.X`` minigrad has no module
    for: a module whose names raise :class:`UnsupportedAttributeError` (with the module's
    category for names the table does not list itself; PyTorch's submodule paths below it
    are modules of the same kind). It gets an empty
    ``__path__``, so ``from minigrad.onnx import export`` comes back to the finder, which
    raises the :class:`UnsupportedImportError` that says why."""

    def create_module(self, spec):
        return None  # Python's default module object

    def exec_module(self, module) -> None:
        where = module.__name__.removeprefix("minigrad.")
        entry = lookup(where) or MISSING
        module.__doc__ = _message(where, entry)
        module.__path__ = []
        module.__all__ = []
        module.__unsupported__ = entry  # what the census and the finder read

        def __getattr__(name: str):
            if name.startswith("__") and name.endswith("__"):  # __file__, __wrapped__ ...
                raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
            return attribute(where, name, entry)

        module.__getattr__ = __getattr__


_LOADER = _RefusingModule()


class _UnsupportedFinder:
    """Consulted last, only for ``minigrad.*`` imports every other finder failed on.

    - a PyTorch module path (``import minigrad.onnx``, ``minigrad.fx.graph``): a module
      that refuses at use (see :class:`_RefusingModule`);
    - a classified name, or any name below such a module (``from minigrad.nn import
      Conv2d`` asks for ``minigrad.nn.Conv2d``): :class:`UnsupportedImportError`;
    - anything else: None, so Python raises its usual ``ModuleNotFoundError``.
    """

    @staticmethod
    def find_spec(fullname: str, path=None, target=None):
        if not fullname.startswith("minigrad."):
            return None
        dotted = fullname.removeprefix("minigrad.")
        if dotted in torch_modules():
            return importlib.machinery.ModuleSpec(fullname, _LOADER, is_package=True)
        parent = sys.modules.get(fullname.rpartition(".")[0])
        entry = lookup(dotted)
        if entry is not None or hasattr(parent, "__unsupported__"):
            entry = entry or parent.__unsupported__
            raise UnsupportedImportError(_message(dotted, entry), name=fullname)
        return None


def install_finder() -> None:
    """Append the finder to ``sys.meta_path`` once. It answers only for ``minigrad.``
    names that no other finder found, so no other import changes."""
    if not any(isinstance(f, _UnsupportedFinder) for f in sys.meta_path):
        sys.meta_path.append(_UnsupportedFinder())

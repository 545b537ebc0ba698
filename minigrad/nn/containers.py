"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``.

They hold sub-modules under the names PyTorch uses (``"0"``, ``"1"``, ... for the
sequences, the given keys for ``ModuleDict``), so ``state_dict`` keys such as
``layers.0.weight`` match a PyTorch model built the same way.
"""

from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping

from minigrad.nn.module import Module

__all__ = ["Sequential", "ModuleList", "ModuleDict", "Container"]


def _index(idx, n: int, what: str) -> int:
    """A non-negative position for ``idx`` in a sequence of length ``n``."""
    i = operator.index(idx)
    if not -n <= i < n:
        raise IndexError(f"{what}: index {idx} is out of range (length {n})")
    return i % n


class _ModuleSequence(Module):
    """What ``Sequential`` and ``ModuleList`` share: modules in order, named ``"0"``,
    ``"1"``, ... (a ``Sequential`` built from an ``OrderedDict`` keeps its names until
    an insertion or a deletion renumbers it, as PyTorch does)."""

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module):
        """Add ``module`` at the end, named ``str(len(self))``; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def _renumber(self, modules: list[Module]) -> None:
        """Hold ``modules``, in this order, named ``"0"``, ``"1"``, ..."""
        self._modules.clear()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)


class Sequential(_ModuleSequence):
    """Modules applied one after the other: ``forward(x) = m_n(...m_2(m_1(x)))``.

    Args:
        *args: the modules, named ``"0"``, ``"1"``, ... in order; or one
            ``OrderedDict`` of name -> module.

    Example::

        >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        >>> model(mg.randn(3, 4)).shape
        (3, 2)
    """

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_index(idx, len(keys), "Sequential")]]

    def __setitem__(self, idx, module: Module) -> None:
        keys = list(self._modules)
        self.add_module(keys[_index(idx, len(keys), "Sequential")], module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        targets = (
            keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys), "Sequential")]]
        )
        for key in targets:
            del self._modules[key]
        self._renumber(list(self._modules.values()))

    def extend(self, modules: Iterable[Module]) -> Sequential:
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        if not isinstance(module, Module):
            raise TypeError(f"Sequential.insert: {type(module).__name__} is not a Module")
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range (length {n})")
        modules = list(self._modules.values())
        modules.insert(index % (n + 1) if index < 0 else index, module)
        self._renumber(modules)
        return self


class ModuleList(_ModuleSequence):
    """A list of modules whose parameters are registered (a plain Python list would
    hide them from ``parameters()`` and ``state_dict()``).

    Args:
        modules: an iterable of modules, named ``"0"``, ``"1"``, ...

    Example::

        >>> layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])
        >>> [name for name, _ in layers.named_parameters()][:2]
        ['0.weight', '0.bias']
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx) -> None:
        modules = list(self._modules.values())
        if isinstance(idx, slice):
            del modules[idx]
        else:
            del modules[_index(idx, len(modules), "ModuleList")]
        self._renumber(modules)

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList(list(self) + list(other))

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if isinstance(modules, Module) and not isinstance(modules, (ModuleList, Sequential)):
            raise TypeError("ModuleList.extend should be called with an iterable of modules")
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._renumber(modules)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            "ModuleList has no forward: iterate over it and call each module yourself"
        )


class ModuleDict(Module):
    """A dict of modules (insertion-ordered) whose parameters are registered.

    Args:
        modules: a mapping or an iterable of ``(name, module)`` pairs.

    Example::

        >>> heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "reg": nn.Linear(8, 1)})
        >>> heads["reg"](mg.randn(2, 8)).shape
        (2, 1)
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        if key not in self._modules:
            raise KeyError(f"ModuleDict has no key {key!r} (keys: {list(self._modules)})")
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules) -> None:
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for j, pair in enumerate(pairs):
            if isinstance(modules, Mapping):
                key, module = pair
            else:
                if len(pair) != 2:
                    raise ValueError(
                        f"ModuleDict.update: element {j} should be a (name, module) pair, "
                        f"got length {len(pair)}"
                    )
                key, module = pair
            self[key] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict has no forward: pick a module by key and call it")


class Container(Module):
    """Deprecated in PyTorch: ``Container(name=module, ...)`` adds each keyword argument
    as a sub-module (use ``Module`` or ``ModuleDict`` instead)."""

    def __init__(self, **modules: Module) -> None:
        warnings.warn(
            "nn.Container is deprecated. All of it's functionality is now implemented in "
            "nn.Module. Subclass that instead.",
            stacklevel=2,
        )
        super().__init__()
        for name, module in modules.items():
            self.add_module(name, module)

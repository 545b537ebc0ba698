"""``ParameterList`` and ``ParameterDict``: parameters held in a list or a dict and
registered with the module (a plain list would hide them from ``parameters()`` and
``state_dict()``). As in PyTorch, a tensor that is not a ``Parameter`` is wrapped in one
(sharing its memory); list entries are named ``"0"``, ``"1"``, ...

Example::

    >>> class Mix(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.scales = nn.ParameterList([nn.Parameter(mg.ones(3)) for _ in range(2)])
    >>> [name for name, _ in Mix().named_parameters()]
    ['scales.0', 'scales.1']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from minigrad.nn.containers import _index
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

__all__ = ["ParameterDict", "ParameterList"]


def _as_parameter(value):
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """A list of parameters, registered as ``"0"``, ``"1"``, ...

    Args:
        values: an iterable of parameters (or tensors, wrapped as parameters).
    """

    def __init__(self, values: Iterable | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator:
        return (getattr(self, str(i)) for i in range(self._size))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList(list(self)[idx])
        return getattr(self, str(_index(idx, self._size, "ParameterList")))

    def __setitem__(self, idx: int, param) -> None:
        setattr(self, str(_index(idx, self._size, "ParameterList")), _as_parameter(param))

    def __iadd__(self, values: Iterable) -> ParameterList:
        return self.extend(values)

    def append(self, value) -> ParameterList:
        self._size += 1
        setattr(self, str(self._size - 1), _as_parameter(value))
        return self

    def extend(self, values: Iterable) -> ParameterList:
        if isinstance(values, Tensor) or not isinstance(values, Iterable):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(
            f"({i}): Parameter containing: [{p.dtype} of size {'x'.join(map(str, p.shape))}]"
            for i, p in enumerate(self)
        )


class ParameterDict(Module):
    """A dict of parameters, registered under their keys (which must be strings without
    dots).

    Args:
        parameters: a mapping, or an iterable of ``(key, parameter)`` pairs.
    """

    def __init__(self, parameters: Mapping | Iterable | None = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def __getitem__(self, key: str):
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return [(k, self[k]) for k in self._keys]

    def values(self):
        return [self[k] for k in self._keys]

    def get(self, key: str, default=None):
        return self[key] if key in self._keys else default

    def pop(self, key: str):
        value = self[key]
        del self[key]
        return value

    def setdefault(self, key: str, default=None):
        if key not in self._keys:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def copy(self) -> ParameterDict:
        return ParameterDict(self.items())

    def update(self, parameters: Mapping | Iterable) -> None:
        pairs = parameters.items() if isinstance(parameters, Mapping) else parameters
        for pair in pairs:
            key, value = pair
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(
            f"({k}): Parameter containing: [{p.dtype} of size {'x'.join(map(str, p.shape))}]"
            for k, p in self.items()
        )

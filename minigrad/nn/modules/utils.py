"""``torch.nn.modules.utils``'s helpers: ``_single`` ... ``_quadruple`` (a number repeated
into a tuple, a tuple kept) and ``consume_prefix_in_state_dict_if_present``."""

from __future__ import annotations

import collections.abc
from itertools import repeat

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def consume_prefix_in_state_dict_if_present(state_dict: dict, prefix: str) -> None:
    """Strip ``prefix`` from the keys that start with it, in place (``"module."`` left by
    ``DataParallel`` / ``DistributedDataParallel``), keeping the keys' order."""
    keys = list(state_dict.keys())
    for key in keys:
        value = state_dict.pop(key)
        state_dict[key[len(prefix) :] if key.startswith(prefix) else key] = value
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            if key == prefix.rstrip(".") or key.startswith(prefix):
                new = "" if key == prefix.rstrip(".") else key[len(prefix) :]
                metadata[new] = metadata.pop(key)

"""``torch.torch_version``: ``TorchVersion``, a version string that compares with
versions (``mg.__version__ >= "0.1"``, ``>= (0, 1)``), as ``torch.__version__`` does."""

from __future__ import annotations

import re

from minigrad._version import __version__

__all__ = ["TorchVersion", "internal_version"]


def _parts(version) -> tuple:
    """``"2.13.0+cpu"`` -> ``(2, 13, 0)``; a tuple of ints stays as it is."""
    if isinstance(version, (tuple, list)):
        return tuple(int(p) for p in version)
    if not isinstance(version, str):
        raise TypeError(f"cannot compare a version with {type(version).__name__}")
    release = re.match(r"\d+(\.\d+)*", version.split("+")[0].strip())
    if release is None:
        raise ValueError(f"invalid version {version!r}")
    return tuple(int(p) for p in release.group(0).split("."))


def _padded(a: tuple, b: tuple) -> tuple[tuple, tuple]:
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)), b + (0,) * (n - len(b))


class TorchVersion(str):
    """A ``str`` that compares by release numbers with strings and tuples of ints."""

    def _compare(self, other, op) -> bool:
        a, b = _padded(_parts(str(self)), _parts(other))
        return op(a, b)

    def __lt__(self, other) -> bool:
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other) -> bool:
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other) -> bool:
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other) -> bool:
        return self._compare(other, lambda a, b: a >= b)

    def __eq__(self, other) -> bool:
        try:
            return self._compare(other, lambda a, b: a == b)
        except (TypeError, ValueError):
            return False

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = str.__hash__


internal_version = __version__

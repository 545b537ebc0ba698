"""``nn.Flatten`` and ``nn.Unflatten``: reshape layers for ``nn.Sequential``."""

from __future__ import annotations

from minigrad.nn.module import Module
from minigrad.tensor import Tensor

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merge dims ``start_dim`` .. ``end_dim`` into one (by default all but the batch dim).

    Shape: (N, C, H, W) -> (N, C * H * W) with the defaults.

    Example::

        >>> nn.Flatten()(mg.zeros(2, 3, 4)).shape
        (2, 12)
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (one entry may be -1).

    Example::

        >>> nn.Unflatten(1, (3, 4))(mg.zeros(2, 12)).shape
        (2, 3, 4)
    """

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)) or not unflattened_size:
            raise TypeError(
                f"Unflatten: unflattened_size must be a non-empty tuple of ints, got "
                f"{unflattened_size!r}"
            )
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        n = input.shape[self.dim] if input.ndim else 1
        sizes = self.unflattened_size
        known = 1
        for s in sizes:
            known *= s if s != -1 else 1
        full = tuple(n // known if s == -1 else s for s in sizes)
        total = 1
        for s in full:
            total *= s
        if total != n:
            raise ValueError(
                f"Unflatten: unflattened_size {sizes} does not multiply to the size of dim "
                f"{self.dim} ({n})"
            )
        return input.unflatten(self.dim, full)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"

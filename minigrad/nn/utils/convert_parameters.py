"""``parameters_to_vector`` / ``vector_to_parameters``: all parameters as one flat vector
(for second-order methods, or to perturb a model as a whole), and back."""

from __future__ import annotations

from collections.abc import Iterable

from minigrad.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated, in order (differentiable)."""
    from minigrad.ops import cat

    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' data, in order."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    data = vec.detach().numpy()
    offset = 0
    for p in parameters:
        n = p.numel()
        p.data.copy_(Tensor(data[offset : offset + n].reshape(p.shape)))
        offset += n

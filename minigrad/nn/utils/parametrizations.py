"""``nn.utils.parametrizations``: weight normalization and spectral normalization,
written as parametrizations (``minigrad/nn/utils/parametrize.py``).

- ``weight_norm(module, "weight", dim=0)``: ``weight = g * v / ||v||``, the norm taken
  over every dim but ``dim`` (over all of ``v`` for ``dim=None``). ``g`` (the
  magnitude, ``original0``) and ``v`` (the direction, ``original1``) are trained
  separately (Salimans & Kingma, 2016).
- ``spectral_norm(module, "weight")``: ``weight = W / sigma(W)``, ``sigma`` the largest
  singular value of ``W`` (reshaped to a matrix with ``dim`` as rows), estimated by
  power iteration: in training mode each read of the weight runs
  ``n_power_iterations`` steps ``v = normalize(W^T u)``, ``u = normalize(W v)`` on the
  buffers ``u`` and ``v``; then ``sigma = u . W v`` (Miyato et al., 2018).

``orthogonal`` (a third parametrization of PyTorch's) is not here: its maps need
``matrix_exp`` or Householder products.
"""

from __future__ import annotations

from minigrad.autograd.grad_mode import no_grad
from minigrad.nn.functional.distance import normalize
from minigrad.nn.module import Module
from minigrad.nn.utils import parametrize
from minigrad.tensor import Tensor

__all__ = ["spectral_norm", "weight_norm"]


def _norm_except_dim(v: Tensor, dim: int | None) -> Tensor:
    """The 2-norm of ``v`` over every dim but ``dim``, kept as size-1 dims (over all
    of ``v``, a 0-d tensor, when ``dim`` is None)."""
    if dim is None:
        return (v * v).sum().sqrt()
    d = dim % v.ndim
    others = tuple(k for k in range(v.ndim) if k != d)
    return (v * v).sum(others, keepdim=True).sqrt()


class _WeightNorm(Module):
    def __init__(self, dim: int | None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (see the module docstring).

    ``state_dict`` keys: ``parametrizations.weight.original0`` (g) and ``original1`` (v).

    Example::

        >>> m = weight_norm(nn.Linear(20, 40), name="weight")
        >>> m.parametrizations.weight.original0.shape
        (40, 1)
    """
    if dim == -1:
        dim = None  # PyTorch's convention: -1 means the norm of the whole tensor
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim % weight.ndim if weight.ndim else 0
        self.eps = eps
        self.n_power_iterations = n_power_iterations
        if weight.ndim > 1:
            matrix = self._matrix(weight).detach()
            h, w = matrix.shape
            u = normalize(matrix.new_empty(h).normal_(0, 1), dim=0, eps=eps)
            v = normalize(matrix.new_empty(w).normal_(0, 1), dim=0, eps=eps)
            self.register_buffer("_u", u)
            self.register_buffer("_v", v)
            self._power_method(matrix, 15)

    def _matrix(self, weight: Tensor) -> Tensor:
        """``weight`` as a matrix whose rows run along ``dim``."""
        if self.dim != 0:
            order = (self.dim, *(k for k in range(weight.ndim) if k != self.dim))
            weight = weight.permute(order)
        return weight.flatten(1)

    def _power_method(self, matrix: Tensor, steps: int) -> None:
        """``steps`` rounds of power iteration on the buffers (no gradient)."""
        with no_grad():
            for _ in range(steps):
                self._u.copy_(normalize(matrix @ self._v, dim=0, eps=self.eps))
                self._v.copy_(normalize(matrix.mT @ self._u, dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        matrix = self._matrix(weight)
        if self.training:
            self._power_method(matrix.detach(), self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * (matrix @ v)).sum()
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Reparametrize ``module.<name>`` as ``W / sigma(W)`` (see the module docstring).
    ``dim`` (the rows of the matrix) defaults to 0 (1 for transposed convolutions,
    which minigrad does not have)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    norm = _SpectralNorm(weight, n_power_iterations, 0 if dim is None else dim, eps)
    parametrize.register_parametrization(module, name, norm)
    return module

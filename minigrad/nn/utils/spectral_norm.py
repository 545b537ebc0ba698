"""``nn.utils.spectral_norm`` (PyTorch's older form of spectral normalization):
before each forward, ``module.weight = weight_orig / sigma``, ``sigma`` the largest
singular value of ``weight_orig`` (as a matrix with ``dim`` as rows), estimated with
the buffers ``weight_u`` and ``weight_v``: in training mode each forward first runs
``n_power_iterations`` steps ``v = normalize(W^T u)``, ``u = normalize(W v)``; then
``sigma = u . W v`` (Miyato et al., 2018). PyTorch's ``state_dict`` keys.

PyTorch does this in a forward pre-hook; minigrad's modules have no hooks, so the
module gets a class of its own whose ``forward`` does it first (other instances of
the class are untouched). ``nn.utils.parametrizations.spectral_norm`` is the newer form.
"""

from __future__ import annotations

from minigrad.autograd.grad_mode import no_grad
from minigrad.nn.functional.distance import normalize
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    """How to compute ``name`` from ``name_orig``, ``name_u`` and ``name_v``."""

    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float) -> None:
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            order = (self.dim, *(k for k in range(weight.ndim) if k != self.dim))
            weight = weight.permute(order)
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(matrix.detach().mT @ u, dim=0, eps=self.eps))
                    u.copy_(normalize(matrix.detach() @ v, dim=0, eps=self.eps))
            u, v = u.clone(), v.clone()
        sigma = (u * (matrix @ v)).sum()
        return weight / sigma


def _forward(self, *args, **kwargs):
    """The module's own forward, after recomputing each spectrally normalized weight."""
    for fn in self.__dict__["_spectral_norms"].values():
        object.__setattr__(self, fn.name, fn.compute_weight(self, self.training))
    return type(self).__bases__[0].forward(self, *args, **kwargs)


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Normalize ``module.<name>`` by its spectral norm before each forward (see the
    module docstring). Until the first forward, ``module.<name>`` holds the original
    values, as in PyTorch."""
    norms = module.__dict__.setdefault("_spectral_norms", {})
    if name in norms:
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    weight = module._parameters[name]
    fn = SpectralNorm(name, n_power_iterations, 0 if dim is None else dim % weight.ndim, eps)
    with no_grad():
        h, w = fn.reshape_weight_to_matrix(weight).shape
        u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=eps)
        v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=eps)
    delattr(module, name)
    module.register_parameter(name + "_orig", weight)
    object.__setattr__(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    norms[name] = fn
    cls = type(module)
    if cls.__dict__.get("forward") is not _forward:
        new = type(cls.__name__, (cls,), {"forward": _forward})
        new.__qualname__, new.__module__ = cls.__qualname__, cls.__module__
        module.__class__ = new
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Put back ``module.<name>`` as a parameter holding its normalized value."""
    norms = module.__dict__.get("_spectral_norms", {})
    if name not in norms:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    fn = norms.pop(name)
    with no_grad():
        value = fn.compute_weight(module, do_power_iteration=False).detach().clone()
    module.__dict__.pop(name, None)
    del module._parameters[name + "_orig"]
    del module._buffers[name + "_u"]
    del module._buffers[name + "_v"]
    if not norms:
        module.__class__ = type(module).__bases__[0]
    module.register_parameter(name, Parameter(value))
    return module

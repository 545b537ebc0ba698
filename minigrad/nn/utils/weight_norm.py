"""``nn.utils.weight_norm`` (PyTorch's older form of weight normalization):
``module.weight = g * v / ||v||`` with the parameters ``weight_g`` and ``weight_v``
(PyTorch's ``state_dict`` keys), the norm over every dim but ``dim``.

PyTorch recomputes the weight in a forward pre-hook; here ``weight`` is computed from
``weight_g`` and ``weight_v`` when read (the same values: ``nn/utils/computed.py``).
``nn.utils.parametrizations.weight_norm`` is the newer form.
"""

from __future__ import annotations

from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.nn.utils.computed import remove_computed, set_computed
from minigrad.nn.utils.parametrizations import _norm_except_dim

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]


class WeightNorm:
    """How to compute ``name`` from ``name_g`` and ``name_v`` over ``dim``."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = dim

    def compute_weight(self, module: Module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Replace ``module.<name>`` by ``<name>_g * <name>_v / ||<name>_v||``.

    Example::

        >>> m = weight_norm(nn.Linear(20, 40), name="weight")
        >>> m.weight_g.shape, m.weight_v.shape
        ((40, 1), (40, 20))
    """
    if dim == -1:
        dim = None
    weight = getattr(module, name)
    norms = module.__dict__.setdefault("_weight_norms", {})
    if name in norms:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    fn = WeightNorm(name, dim)
    g = _norm_except_dim(weight, dim).detach().clone()
    v = weight.detach().clone()
    delattr(module, name)
    module.register_parameter(name + "_g", Parameter(g))
    module.register_parameter(name + "_v", Parameter(v))
    norms[name] = fn
    set_computed(module, name, fn.compute_weight)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Put back ``module.<name>`` as a plain parameter holding its current value."""
    norms = module.__dict__.get("_weight_norms", {})
    if name not in norms:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    value = norms.pop(name).compute_weight(module).detach().clone()
    remove_computed(module, name)
    del module._parameters[name + "_g"]
    del module._parameters[name + "_v"]
    module.register_parameter(name, Parameter(value))
    return module

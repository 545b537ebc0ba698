"""``nn.utils.parametrize``: a module's tensor computed from other tensors.

``register_parametrization(module, "weight", P)`` makes ``module.weight`` the value
``P(original)`` each time it is read, where ``original`` is the parameter that the
optimizer now trains. Several parametrizations chain: ``P2(P1(original))``. As in
PyTorch:

- the module's class is replaced by a subclass (``ParametrizedLinear``) whose
  ``weight`` is a property; ``type_before_parametrizations`` gives the old class;
- the parametrizations live in ``module.parametrizations.weight``, a
  ``ParametrizationList`` that owns ``original`` (or ``original0``, ``original1``...
  when ``P.right_inverse`` returns several tensors), so ``state_dict`` keys are
  PyTorch's: ``parametrizations.weight.original``;
- with ``right_inverse``, registering keeps the tensor's value
  (``original = P.right_inverse(weight)``), and ``module.weight = value`` writes
  ``right_inverse(value)`` into ``original``;
- ``with cached():`` computes each parametrized tensor once inside the block;
- ``remove_parametrizations(module, "weight")`` puts back a plain parameter holding
  the current value (``leave_parametrized=True``) or the original.
"""

from __future__ import annotations

import contextlib

from minigrad.autograd.grad_mode import no_grad
from minigrad.nn.containers import ModuleDict, ModuleList
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "type_before_parametrizations",
]

_CACHE: dict | None = None  # {(module id, name): value} inside ``cached()``


@contextlib.contextmanager
def cached():
    """Inside the block each parametrized tensor is computed once, on first read."""
    global _CACHE
    outer = _CACHE
    _CACHE = {} if outer is None else outer
    try:
        yield
    finally:
        _CACHE = outer


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, and the ``original`` tensor(s)
    they are applied to (``original``, or ``original0``, ``original1``, ...)."""

    def __init__(self, modules, original, unsafe: bool = False) -> None:
        super().__init__(modules)
        self.unsafe = unsafe
        value = original
        for m in reversed(list(self)):
            if hasattr(m, "right_inverse"):
                with no_grad():
                    value = m.right_inverse(value)
        self.is_tensor = isinstance(value, Tensor)
        self.ntensors = 1 if self.is_tensor else len(value)
        trainable = isinstance(original, Parameter) or original.requires_grad
        if self.is_tensor:
            self._store("original", value, trainable)
        else:
            for i, v in enumerate(value):
                self._store(f"original{i}", v, trainable)

    def _store(self, name: str, value: Tensor, trainable: bool) -> None:
        data = value.detach().clone()
        if trainable:
            self.register_parameter(name, Parameter(data))
        else:
            self.register_buffer(name, data)

    def right_inverse(self, value: Tensor) -> None:
        """Write ``value`` as the parametrized tensor: the originals become its
        ``right_inverse`` (each parametrization's, last one first)."""
        with no_grad():
            for m in reversed(list(self)):
                if hasattr(m, "right_inverse"):
                    value = m.right_inverse(value)
            if self.is_tensor:
                self.original.copy_(value)
            else:
                for i, v in enumerate(value):
                    getattr(self, f"original{i}").copy_(v)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for m in list(self)[1:]:
            x = m(x)
        return x


def _value(module: Module, name: str) -> Tensor:
    if _CACHE is None:
        return module.parametrizations[name]()
    key = (id(module), name)
    if key not in _CACHE:
        _CACHE[key] = module.parametrizations[name]()
    return _CACHE[key]


def _property(name: str) -> property:
    def get(self):
        return _value(self, name)

    def set_(self, value):
        self.parametrizations[name].right_inverse(value)

    return property(get, set_, doc=f"``{name}``, computed by its parametrizations.")


def _inject_class(module: Module) -> None:
    """Give ``module`` a class of its own (a subclass of its class) to hold the
    properties, so other instances are untouched."""
    cls = type(module)
    new = type(f"Parametrized{cls.__name__}", (cls,), {"_type_before_parametrizations": cls})
    module.__class__ = new


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Make ``module.<tensor_name>`` equal ``parametrization(original)`` on each read.

    Args:
        module: the module holding the tensor (a parameter or a buffer).
        tensor_name: its attribute name (``"weight"``).
        parametrization: a module whose ``forward`` maps the original to the value
            (optionally with ``right_inverse``, its inverse on its image).
        unsafe: skip the check that the value keeps the tensor's shape and dtype.

    Example::

        >>> class Symmetric(nn.Module):
        ...     def forward(self, X):
        ...         return X.triu() + X.triu(1).mT
        >>> layer = nn.Linear(3, 3)
        >>> register_parametrization(layer, "weight", Symmetric())
        >>> (layer.weight == layer.weight.T).all()
        tensor(True)
    """
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        _check(module, tensor_name, plist.original if plist.is_tensor else None, unsafe)
        return module
    original = getattr(module, tensor_name)
    if not isinstance(original, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{tensor_name}'")
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _inject_class(module)
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = plist
    setattr(type(module), tensor_name, _property(tensor_name))
    _check(module, tensor_name, original, unsafe)
    return module


def _check(module: Module, name: str, original, unsafe: bool) -> None:
    if unsafe or original is None:
        return
    value = getattr(module, name)
    if not isinstance(value, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
    if value.shape != original.shape or value.dtype != original.dtype:
        raise ValueError(
            "Registering a parametrization may not change the shape or dtype of the tensor: "
            f"{tuple(original.shape)} {original.dtype} became {tuple(value.shape)} {value.dtype}"
            " (pass unsafe=True to allow it)"
        )


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has parametrizations (on ``tensor_name``, if given)."""
    plists = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(plists, ModuleDict):
        return False
    return tensor_name is None or tensor_name in plists


def type_before_parametrizations(module: Module) -> type:
    """The module's class before ``register_parametrization`` replaced it."""
    return getattr(type(module), "_type_before_parametrizations", type(module))


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Make ``tensor_name`` a plain parameter (or buffer) again: holding its current
    parametrized value (``leave_parametrized=True``) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    with no_grad():
        if leave_parametrized:
            value = getattr(module, tensor_name).detach().clone()
        elif plist.is_tensor:
            value = plist.original.detach().clone()
        else:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                "parametrized in terms of a sequence of tensors."
            )
    trainable = "original" in plist._parameters or "original0" in plist._parameters
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    if trainable:
        module.register_parameter(tensor_name, Parameter(value))
    else:
        module.register_buffer(tensor_name, value)
    if not module.parametrizations:
        del module.parametrizations
        module.__class__ = type_before_parametrizations(module)
    return module

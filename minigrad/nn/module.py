"""``Module``: the base class of every layer and model.

A module is a tree. Assigning an attribute registers what it holds:

- a ``Parameter`` goes to ``_parameters`` (the weights an optimizer updates),
- a ``Module`` goes to ``_modules`` (a child, whose own parameters become ours with a
  dotted prefix: ``encoder.layers.0.linear1.weight``),
- a tensor passed to ``register_buffer`` goes to ``_buffers`` (state that is saved but
  not trained, such as BatchNorm's running mean).

Everything else (``parameters``, ``state_dict``, ``train``, ``to``, ...) is a walk over
that tree. Names, defaults and ``state_dict`` keys follow PyTorch, so a model's weights
move between minigrad and PyTorch with no renaming.

Example::

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.fc2 = nn.Linear(8, 2)

        def forward(self, x):
            return self.fc2(self.fc1(x).relu())

    model = MLP()
    [name for name, _ in model.named_parameters()]
    # ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from minigrad import dtypes
from minigrad.autograd.recording import _recording, module_scope
from minigrad.nn.parameter import Buffer, Parameter
from minigrad.printing import shape_str
from minigrad.tensor import FloatCasts, Tensor

__all__ = ["Module"]

#: What ``load_state_dict`` returns: the keys that were missing and unexpected.
IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first (for nested reprs)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _check_new_name(kind: str, name, module: Module, registry: dict) -> None:
    """``name`` may name a ``kind`` (parameter, buffer or module) of ``module``: a
    non-empty string without ``.``, and no attribute unless one of this kind (those in
    ``registry``), which it replaces."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain ".", got {name!r}')
    if hasattr(module, name) and name not in registry:
        raise KeyError(f"attribute '{name}' already exists")


class Module(FloatCasts):
    """Base class for all layers and models; subclasses define ``forward``.

    Call ``super().__init__()`` before assigning parameters, buffers or sub-modules.
    Calling the module (``model(x)``) runs ``forward``.

    Attributes:
        training: True in training mode (``train()``), False after ``eval()``; layers
            such as Dropout and BatchNorm behave differently in the two modes.
    """

    training: bool
    _parameters: dict
    _buffers: dict
    _non_persistent_buffers: set
    _modules: dict

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", {})

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args, **kwargs):
        if not _recording.active:
            return self.forward(*args, **kwargs)
        with module_scope(self):  # graph_recording() names each node's module
            return self.forward(*args, **kwargs)

    # ------------------------------------------------------------------ registration
    def _require_init(self, what: str) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"cannot assign {what} before Module.__init__() call (call "
                "super().__init__() first in your module's __init__)"
            )

    def _check_registration(self, kind: str, name, value, required: type, label: str) -> None:
        """``value`` may be registered as this module's ``kind`` (parameter or buffer)
        ``name``: the module is initialized, the name is free (``_check_new_name``) and
        ``value`` is None or a ``required`` (called ``label`` in the error)."""
        self._require_init(kind + "s")
        _check_new_name(kind, name, self, self.__dict__["_" + kind + "s"])
        if value is not None and not isinstance(value, required):
            raise TypeError(
                f"cannot assign '{type(value).__name__}' object to {kind} '{name}' "
                f"({label} or None required)"
            )

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or ``None``, a declared but absent one, like ``bias=False``)."""
        self._check_registration("parameter", name, param, Parameter, "nn.Parameter")
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"cannot assign non-leaf tensor to parameter '{name}': a parameter must be "
                "created directly, not by an operation (use .detach())"
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter (not trained) but moves with the
        module's dtype and, if ``persistent``, is part of ``state_dict``."""
        self._check_registration("buffer", name, tensor, Tensor, "Tensor")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module (``self.name = module`` does the same)."""
        self._require_init("modules")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        _check_new_name("module", name, self, self._modules)
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            self._require_init("parameters")
            self._forget(name, keep="_parameters")  # a re-assigned one keeps its place
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                    "(nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            self._require_init("modules")
            self._forget(name, keep="_modules")
            self._modules[name] = value
        elif "_modules" in d and name in d["_modules"]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}' "
                    "(nn.Module or None expected)"
                )
            d["_modules"][name] = None
        elif isinstance(value, Buffer):
            self._require_init("buffers")
            self._forget(name, keep="_buffers")
            self.register_buffer(name, value, persistent=value.persistent)
        elif "_buffers" in d and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                    "(Tensor or None expected)"
                )
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str) -> None:
        """Remove ``name`` from the instance dict and every registry but ``keep``, the one
        it is about to be assigned in: there a re-assigned name keeps its place in the
        registration order (``state_dict`` keys, ``parameters()``), as in PyTorch."""
        d = self.__dict__
        d.pop(name, None)
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry != keep:
                d[registry].pop(name, None)
        d["_non_persistent_buffers"].discard(name)

    def __getattr__(self, name: str):
        # Only called when normal lookup fails: look in the registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            table = d.get(registry)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in ("_parameters", "_buffers", "_modules"):
            table = self.__dict__.get(registry)
            if table is not None and name in table:
                del table[name]
                self._non_persistent_buffers.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        names = list(super().__dir__())
        names += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(set(names))

    # ------------------------------------------------------------------ traversal
    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for this module and every descendant, depth first
        (this module first, with name ``prefix``); a shared module appears once."""
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if id(module) in memo:
                    continue
                memo.add(id(module))
            yield name, module
            children = [
                (name + ("." if name else "") + child_name, child)
                for child_name, child in module._modules.items()
                if child is not None
            ]
            stack.extend(reversed(children))

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def _named_members(self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool):
        seen = set()
        if recurse:
            modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            modules = [(prefix, self)]
        for mod_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None:
                    continue
                if remove_duplicate:
                    if id(value) in seen:
                        continue
                    seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)``; a parameter shared by two layers appears once,
        under the first name met."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` for persistent and non-persistent buffers."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> Module:
        """The sub-module at a dotted path (``"encoder.layers.0"``); ``""`` is self."""
        module = self
        if target == "":
            return module
        for part in target.split("."):
            child = module._modules.get(part)
            if child is None:
                raise AttributeError(
                    f"{type(module).__name__} has no sub-module '{part}' (looking up {target!r})"
                )
            module = child
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path (``"fc1.weight"``)."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if module._parameters.get(name) is None:
            raise AttributeError(f"{type(module).__name__} has no parameter '{name}'")
        return module._parameters[name]

    # ------------------------------------------------------------------ modes and grads
    def train(self, mode: bool = True) -> Module:
        """Set training mode on this module and every sub-module; returns self."""
        if not isinstance(mode, bool):
            raise ValueError(f"train: mode is expected to be a bool, got {mode!r}")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode (``train(False)``): Dropout is the identity, BatchNorm uses
        its running statistics. Returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Switch ``requires_grad`` on every parameter (to freeze or unfreeze them)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's gradient: set it to ``None`` (the default) or fill it
        with zeros."""
        for p in self.parameters():
            clear_grad(p, set_to_none)

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every sub-module (children first) and then on self; returns
        self. Typical use: custom weight initialisation."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ dtype
    def to(self, *args, **kwargs) -> Module:
        """``to(dtype)``: convert floating-point parameters, their gradients and floating
        buffers in place (the same ``Parameter`` objects, so an optimizer built earlier
        still holds them). Integer buffers (``num_batches_tracked``) are left alone. A
        device of ``"cpu"`` (or ``mg.device("cpu")``, with ``non_blocking``) is accepted
        and ignored; ``"cuda"`` / ``"mps"`` raise (minigrad runs on the CPU). Returns self."""
        from minigrad.devices import check_device, is_device

        dtype = kwargs.pop("dtype", None)
        check_device(kwargs.pop("device", None), "Module.to")
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"to: unexpected arguments {sorted(kwargs)}")
        for a in args:
            if is_device(a):
                check_device(a, "Module.to")
                continue
            if isinstance(a, bool):
                continue  # positional non_blocking
            dtype = a._data.dtype if isinstance(a, Tensor) else a
        if dtype is None:
            return self
        dtype = dtypes.as_dtype(dtype)
        if dtype.kind != "f":
            raise TypeError(
                f"Module.to only accepts floating point dtypes, but got desired dtype={dtype}"
            )
        self._cast_floating(dtype)
        return self

    def _cast_floating(self, dtype: np.dtype) -> None:
        for p in self.parameters():
            if p._data.dtype.kind == "f" and p._data.dtype != dtype:
                p._data = p._data.astype(dtype)
                if p._grad is not None:
                    p._grad = Tensor._make(p._grad._data.astype(dtype), False, None)
        for b in self.buffers():
            if b._data.dtype.kind == "f" and b._data.dtype != dtype:
                b._data = b._data.astype(dtype)

    def cpu(self) -> Module:
        return self

    def cuda(self, device=None) -> Module:
        """Raises: minigrad runs on the CPU only (the message says what to do instead)."""
        from minigrad.devices import check_device

        check_device("cuda" if device is None else device, "Module.cuda")
        return self

    # ------------------------------------------------------------------ state_dict
    def state_dict(
        self, destination: dict | None = None, prefix: str = "", keep_vars: bool = False
    ) -> OrderedDict:
        """Every parameter and persistent buffer, by dotted name, as a detached Tensor.

        As in PyTorch, the tensors share memory with the module: ``sd[k].copy_(w)``
        under ``mg.no_grad()`` changes the module, and later training steps show in
        them (``copy.deepcopy(sd)`` or ``{k: v.clone() ...}`` for a snapshot).
        With ``keep_vars=True`` the values are the ``Parameter`` / buffer tensors
        themselves. A parameter shared by two layers appears under both names, as in
        PyTorch (loading writes it twice, with the same value).
        """
        if destination is None:
            destination = OrderedDict()
        for name, value in self._own_state():
            key = prefix + name
            destination[key] = value if keep_vars else value.detach()
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination, prefix + name + ".", keep_vars)
        return destination

    def _own_state(self) -> Iterator[tuple[str, Tensor]]:
        for name, p in self._parameters.items():
            if p is not None:
                yield name, p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers:
                yield name, b

    def load_state_dict(self, state_dict: Mapping, strict: bool = True) -> IncompatibleKeys:
        """Copy values from ``state_dict`` into this module's parameters and buffers.

        Everything is checked before anything is written, so a load that fails leaves
        the module unchanged:

        - keys: with ``strict=True`` (default), missing and unexpected keys are errors;
          with ``strict=False`` they are returned;
        - shapes: each value must have its target's shape (an error even when not strict);
        - dtypes: values are cast to the target's dtype, but only within reason: floats
          and integers may fill a floating tensor, integers an integer buffer; other
          kinds (a float into ``num_batches_tracked``, strings, objects) are errors.
        - writeability: a target whose array is read-only (a parameter over a read-only
          memory map) is an error named by its key, before any other key is written.

        Values may be anything ``numpy.asarray`` accepts (arrays, Tensors, lists, and
        PyTorch tensors). Parameters keep their identity (the data is copied in place),
        so an optimizer created before the load keeps working.

        Returns:
            ``IncompatibleKeys(missing_keys, unexpected_keys)``.

        Raises:
            RuntimeError: listing every missing key, unexpected key and mismatch by name.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(
                f"Expected state_dict to be dict-like, got {type(state_dict).__name__}."
            )
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        if strict:
            if missing:
                errors.append(
                    "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + "."
                )
            if unexpected:
                errors.append(
                    "Unexpected key(s) in state_dict: "
                    + ", ".join(f'"{k}"' for k in unexpected)
                    + "."
                )
        staged = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value, problem = _convert_value(key, state_dict[key], target)
            if problem is None and not target._data.flags.writeable:
                problem = (
                    f'While copying the parameter named "{key}", its array is read-only '
                    "(e.g. a read-only memory map); give the module a writeable copy first."
                )
            if problem is not None:
                errors.append(problem)
                continue
            staged.append((target, value))
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        for target, value in staged:
            np.copyto(target._data, value, casting="unsafe")
        return IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------------ repr
    def extra_repr(self) -> str:
        """The text inside this module's parentheses in ``repr`` (override it)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, child in self._modules.items():
            child_repr = _addindent(repr(child), 2)
            lines.append(f"({name}): {child_repr}")
        if not self._modules and len(lines) <= 1:
            return f"{self._get_name()}({extra})"
        body = "\n  ".join(lines)
        return f"{self._get_name()}(\n  {body}\n)"


def clear_grad(p: Tensor, set_to_none: bool) -> None:
    """Clear ``p``'s gradient: drop it, or zero it (in place when it is a plain writable
    array). Shared by ``Module.zero_grad`` and ``Optimizer.zero_grad``."""
    if p._grad is None:
        return
    if set_to_none:
        p._grad = None
    elif p._grad.grad_fn is None and p._grad._data.flags.writeable:
        p._grad._data[...] = 0
    else:
        p._grad = Tensor._make(np.zeros_like(p._data), False, None)


def _convert_value(key: str, value, target: Tensor):
    """``(value as an array, None)``, or ``(None, message)`` when it cannot fill ``target``."""
    try:
        arr = np.asarray(value._data if isinstance(value, Tensor) else value)
    except Exception as e:  # ragged lists and the like
        return None, f"unreadable value for {key}: {type(e).__name__}: {e}"
    tk = target._data.dtype.kind
    allowed = {"f": "biuf", "i": "biu", "u": "biu", "b": "b"}.get(tk, tk)
    if arr.dtype.kind not in allowed:
        return None, (
            f"dtype mismatch for {key}: the checkpoint holds dtype {arr.dtype}, which cannot "
            f"be loaded into a tensor of dtype {target._data.dtype}."
        )
    if arr.shape != target._data.shape:
        return None, (
            f"size mismatch for {key}: copying a param with shape {shape_str(arr.shape)} "
            f"from checkpoint, the shape in current model is {shape_str(target._data.shape)}."
        )
    return arr, None

"""``Optimizer``: the base class of every optimizer.

An optimizer holds ``param_groups`` (a list of dicts: ``{'params': [...], 'lr': ...,
...}``; every group has every hyperparameter, defaults filled in) and ``state`` (per
parameter, e.g. Adam's moment estimates). ``step()`` updates each parameter's array in
place from its ``.grad``, so the ``Parameter`` objects, and any module holding them,
see the new values.

``state_dict()`` uses PyTorch's layout, with parameters replaced by their position in
the order they appear across the groups::

    {'state': {0: {'step': 3, 'exp_avg': array, ...}, 1: {...}},
     'param_groups': [{'lr': 0.001, ..., 'params': [0, 1]}, ...]}

so a checkpoint can be loaded into a freshly built optimizer over the same model (or
into PyTorch's, after turning arrays into tensors).
"""

from __future__ import annotations

import copy
import functools
import inspect
import warnings
from collections.abc import Callable

import numpy as np

from minigrad.autograd.grad_mode import enable_grad
from minigrad.nn.module import clear_grad
from minigrad.tensor import Tensor

__all__ = ["Optimizer", "required"]


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


#: Marks a hyperparameter that has no default (e.g. ``lr`` of a custom optimizer).
required = _Required()


# ------------------------------------------------------------------ implementation options
#: PyTorch's switches between implementations of the same update, with their defaults:
#: ``foreach`` (loop over tensors or batch them), ``fused`` (one kernel per step),
#: ``capturable`` (keep the step count on the device, for CUDA graphs) and
#: ``differentiable`` (record the step in the autograd graph).
IMPLEMENTATION_OPTIONS = {
    "foreach": None,
    "fused": None,
    "capturable": False,
    "differentiable": False,
}

#: Which of them each of PyTorch's optimizers takes (its signature in torch 2.13); the
#: base class accepts exactly those for minigrad's optimizer of the same name.
TAKES_OPTIONS = {
    "SGD": ("foreach", "differentiable", "fused"),
    "Adam": ("foreach", "capturable", "differentiable", "fused"),
    "AdamW": ("foreach", "capturable", "differentiable", "fused"),
    "Adagrad": ("foreach", "differentiable", "fused"),
    "Adadelta": ("foreach", "capturable", "differentiable"),
    "Adamax": ("foreach", "capturable", "differentiable"),
    "ASGD": ("foreach", "capturable", "differentiable"),
    "NAdam": ("foreach", "capturable", "differentiable"),
    "RAdam": ("foreach", "capturable", "differentiable"),
    "RMSprop": ("capturable", "foreach", "differentiable"),
    "Rprop": ("capturable", "foreach", "differentiable"),
    "Adafactor": ("foreach",),
}


def check_options(options: dict, params) -> None:
    """PyTorch's rules for the implementation options, on a CPU:

    - ``foreach`` and ``fused`` choose how the same arithmetic is run; minigrad runs one
      implementation (NumPy, with a fused Numba kernel where it has one, as for Adam),
      so any value is accepted and gives the same numbers. They cannot both be True, and
      ``fused=True`` needs floating-point parameters, as in PyTorch.
    - ``capturable=True`` keeps the step count on an accelerator for CUDA graphs; PyTorch
      refuses it for CPU parameters (unless fused), so does minigrad.
    - ``differentiable=True`` records the step in the autograd graph; minigrad's steps
      update arrays in place outside the graph, so it is refused rather than ignored.
    """
    if options.get("fused") and options.get("foreach"):
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if options.get("fused") and options.get("differentiable"):
        raise RuntimeError("`fused` does not support `differentiable`")
    if options.get("fused"):
        for p in params:
            if not p.is_floating_point():
                raise RuntimeError(
                    "`fused=True` requires all the params to be floating point Tensors of "
                    f"supported devices: ['cpu'], got a parameter of dtype {p.dtype}"
                )
    if options.get("capturable") and not options.get("fused"):
        raise AssertionError(
            "If capturable=True, params and state_steps must be on supported devices: "
            "['cuda', 'xpu', 'hpu', ...]; minigrad's tensors are on the CPU (capturable "
            "is for CUDA graphs: leave it False)"
        )
    if options.get("differentiable"):
        raise RuntimeError(
            "differentiable=True: minigrad's optimizers update the parameters in place "
            "outside the autograd graph, so gradients cannot flow through step(); leave it "
            "False (or write the update as tensor operations in your own code)"
        )


def _accepting_options(init, names: tuple[str, ...]):
    """``init`` (an optimizer's ``__init__``) that also takes PyTorch's implementation
    options ``names`` as keywords: it checks them (:func:`check_options`) and records
    them in ``defaults`` and every parameter group, where PyTorch keeps them."""
    sig = inspect.signature(init)
    extra = [
        inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=IMPLEMENTATION_OPTIONS[n])
        for n in names
        if n not in sig.parameters
    ]
    full = sig.replace(parameters=[*sig.parameters.values(), *extra])

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        bound = full.bind(self, *args, **kwargs)
        options = {n: bound.arguments.pop(n, IMPLEMENTATION_OPTIONS[n]) for n in names}
        init(*bound.args, **bound.kwargs)
        check_options(options, [p for g in self.param_groups for p in g["params"]])
        self.defaults.update(options)
        for group in self.param_groups:
            group.update(options)

    __init__.__signature__ = full
    return __init__


class Optimizer:
    """Base class. Subclasses set ``defaults`` and implement ``update`` (the rule for one
    parameter; ``step`` runs it on every parameter that has a gradient) and, if they keep
    something per parameter, ``new_state``; or, like LBFGS, their own ``step``.

    Args:
        params: an iterable of parameters, or of dicts defining parameter groups
            (``{'params': [...], 'lr': 0.1}``; missing options take the defaults).
        defaults: the default value of every hyperparameter.
    """

    def __init_subclass__(cls, **kwargs) -> None:
        """minigrad's optimizers take the implementation options PyTorch's optimizer of
        the same name takes (``AdamW(..., fused=True)``), here, in one place."""
        super().__init_subclass__(**kwargs)
        names = TAKES_OPTIONS.get(cls.__name__)
        if names and cls.__module__.startswith("minigrad.optim.") and "__init__" in vars(cls):
            cls.__init__ = _accepting_options(cls.__init__, names)

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict = {}  # Parameter -> dict (tensors hash by identity)
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {type(params).__name__}"
            )
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters (for instance newly unfrozen layers) with its own options."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    f"{type(p).__name__}"
                )
            if p.grad_fn is not None:
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in params}) != len(params):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error",
                stacklevel=3,
            )
        group = dict(param_group)
        group["params"] = params
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the gradient of every parameter (``None``, or zeros in place)."""
        for group in self.param_groups:
            for p in group["params"]:
                clear_grad(p, set_to_none)

    @staticmethod
    def _grads(group: dict):
        """``(parameter, gradient array)`` for each parameter of ``group`` that has a
        gradient; the gradient negated when the group maximizes."""
        maximize = group.get("maximize", False)
        for p in group["params"]:
            if p._grad is not None:
                yield p, (-p._grad._data if maximize else p._grad._data)

    def _evaluate_closure(self, closure: Callable | None):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def step(self, closure: Callable | None = None):
        """Update every parameter that has a gradient: ``update`` on each, with its state
        (made by ``new_state`` before its first step). ``closure``, if given, re-evaluates
        the model and returns the loss (called with gradients enabled); its loss is returned."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            for p, g in self._grads(group):
                state = self.state.get(p) or self.new_state(p._data, group)
                self.update(p._data, g, state, group)
                if state:  # an optimizer that keeps nothing for p leaves no entry
                    self.state[p] = state
        return loss

    def new_state(self, p: np.ndarray, group: dict) -> dict:
        """A parameter's state before its first step (``p`` its values)."""
        return {}

    def update(self, p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        """Update the parameter's values ``p`` in place from its gradient ``g``: the rule
        of the optimizer, for one parameter, with ``group``'s hyperparameters."""
        raise NotImplementedError(f"{type(self).__name__} implements neither step nor update")

    # ------------------------------------------------------------------ state_dict
    def state_dict(self) -> dict:
        """The optimizer's state in PyTorch's layout (see the module docstring).

        Arrays are copies; the hyperparameters of each group are included, so a load
        restores learning rates changed by a scheduler too.
        """
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: copy.deepcopy(v) for k, v in group.items() if k != "params"}
            ids = []
            for p in group["params"]:
                if id(p) not in index:
                    index[id(p)] = len(index)
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p in self.state and index[id(p)] not in state:
                    state[index[id(p)]] = copy.deepcopy(self.state[p])  # lists too
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore state saved by ``state_dict`` (ours or PyTorch's).

        Checked before anything changes: the number of groups, the number of
        parameters in each, and the shape of every state array against its parameter.
        Arrays are cast to their parameter's dtype; ``step`` becomes an int.
        """
        for key in ("state", "param_groups"):
            if key not in state_dict:
                raise ValueError(f"optimizer state_dict is missing the key {key!r}")
        groups, saved_groups = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError(
                f"loaded state dict has {len(saved_groups)} parameter groups, the optimizer "
                f"has {len(groups)}"
            )
        for i, (g, s) in enumerate(zip(groups, saved_groups)):
            if len(g["params"]) != len(s["params"]):
                raise ValueError(
                    f"loaded state dict contains a parameter group that doesn't match the size "
                    f"of optimizer's group: group {i} has {len(s['params'])} parameters in the "
                    f"state dict and {len(g['params'])} in the optimizer"
                )
        by_index = {}
        for g, s in zip(groups, saved_groups):
            for saved_id, p in zip(s["params"], g["params"]):
                by_index[int(saved_id)] = p
        new_state = {}
        for saved_id, values in state_dict["state"].items():
            p = by_index.get(int(saved_id))
            if p is None:
                continue  # like PyTorch: state of a parameter no group mentions is dropped
            free = getattr(self, "_factored_state", ())  # keys not shaped like p
            new_state[p] = {
                k: _restore_value(k, v, p, saved_id, k in free) for k, v in values.items()
            }
        self.state = new_state
        for g, s in zip(groups, saved_groups):
            params = g["params"]
            g.clear()
            g.update({k: copy.deepcopy(v) for k, v in s.items() if k != "params"})
            g["params"] = params


def _restore_value(key: str, value, p: Tensor, saved_id, any_shape: bool = False):
    if value is None:
        return None
    if key == "step":
        return int(np.asarray(value).item())
    arr = np.asarray(value._data if isinstance(value, Tensor) else value)
    if arr.ndim == 0 and arr.dtype.kind in "biuf" and p._data.ndim != 0:
        return arr.item()  # a scalar entry of a custom optimizer
    if arr.shape != p._data.shape and not any_shape:
        raise ValueError(
            f"optimizer state {key!r} of parameter {saved_id} has shape {list(arr.shape)}, but "
            f"the parameter has shape {list(p._data.shape)}"
        )
    dtype = p._data.dtype if arr.dtype.kind == "f" else arr.dtype
    return np.array(arr, dtype=dtype, copy=True)

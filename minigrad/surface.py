"""Where operations written outside ``tensor.py`` become Tensor methods and ``mg.*`` names.

One place for all of them: the elementwise table (``elementwise.py``: ``x.sin()``,
``mg.atan2``, operators, in-place variants), the reductions and scans
(``reductions.py``: ``x.prod()``, ``mg.cummax``) and the indexing family
(``selection.py``: ``x.scatter_add(...)``, ``mg.meshgrid``) and arithmetic with extra
arguments (``arithmetic.py``: ``x.add(y, alpha=2)``, ``mg.div(x, y, rounding_mode=...)``).
``joining.py`` adds joining, splitting and products (``mg.hstack``, ``x.mm(y)``) and
``legacy.py`` creation functions (``logspace``, ``mg.FloatTensor``), ``linalg_names.py``
the torch-level linear-algebra names (``mg.svd``, ``x.cholesky_solve(L)``, ``mg.cdist``);
``tensor_memory.py`` the memory questions (``x.stride()``, ``mg.from_dlpack``) and
``restride.py`` the in-place shape changes and raw strided views (``x.t_()``,
``mg.as_strided``).
A function there takes the tensor as its first argument (``input``), so the same
function is the method.
"""

from __future__ import annotations

from minigrad import (
    arithmetic,
    calculus,
    elementwise,
    enumeration,
    function_forms,
    histograms,
    joining,
    legacy,
    linalg_names,
    reductions,
    restride,
    sampling,
    scatters,
    selection,
    statistics,
    tensor_flags,
    tensor_memory,
)

_MODULES = (arithmetic, reductions, selection, joining, legacy, linalg_names)
_MODULES += (tensor_memory, restride, tensor_flags)  # tensor_flags: t.is_sparse, t.layout ...
#: The torch namespace's numeric functions and their Tensor methods (issue 24).
_MODULES += (statistics, histograms, calculus, enumeration, scatters, sampling, function_forms)


#: Methods that take ``dim`` / ``keepdim`` and so, as in PyTorch, also NumPy's spellings
#: ``axis`` / ``keepdims``.
NUMPY_KEYWORDS = (
    "sum mean var std amax amin max min argmax argmin logsumexp softmax log_softmax prod "
    "all any cumsum cumprod cummax cummin logcumsumexp count_nonzero median nansum nanmean "
    "aminmax kthvalue norm squeeze unsqueeze flip mode nanmedian quantile nanquantile"
).split()


#: In-place variants of operations written as compositions: ``x.index_add_(...)`` writes
#: ``x.index_add(...)`` into ``x`` through ``Tensor._inplace``, the one entry point of
#: in-place ops (the elementwise table makes its own in ``elementwise.py``).
INPLACE = (
    "addcdiv addcmul clamp_max clamp_min cumprod cumsum divide float_power index_add "
    "index_copy index_fill index_put ldexp lerp masked_scatter multiply scatter scatter_add "
    "scatter_reduce subtract true_divide tril triu polygamma mvlgamma"
).split()


def _inplace_method(name: str):
    def method(self, *args, **kwargs):
        return self._inplace(name + "_", getattr(self, name)(*args, **kwargs))

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"``x.{name}_(...)``: ``x.{name}(...)`` written into ``x``."
    return method


def _accept_numpy_keywords(method):
    """``method`` also called with ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``."""

    def wrapper(self, *args, **kwargs):
        if "axis" in kwargs:
            kwargs["dim"] = kwargs.pop("axis")
        if "keepdims" in kwargs:
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return method(self, *args, **kwargs)

    wrapper.__name__ = method.__name__
    wrapper.__qualname__ = method.__qualname__
    wrapper.__doc__ = method.__doc__
    wrapper.__wrapped__ = method
    return wrapper


def attach_methods(tensor_cls) -> None:
    """Give the Tensor class every method defined outside ``tensor.py``, and NumPy's
    keyword spellings to the methods that take ``dim``."""
    elementwise.attach(tensor_cls)
    for module in _MODULES:
        for name in module.METHODS:
            setattr(tensor_cls, name, getattr(module, name))
        for alias, target in getattr(module, "ALIASES", {}).items():
            if target in module.METHODS:
                setattr(tensor_cls, alias, getattr(module, target))
        for name, method in getattr(module, "TENSOR_METHODS", {}).items():
            setattr(tensor_cls, name, method)  # methods with no function of that name
    for name, method in arithmetic.DUNDERS.items():
        setattr(tensor_cls, name, method)
    for name in NUMPY_KEYWORDS:
        setattr(tensor_cls, name, _accept_numpy_keywords(getattr(tensor_cls, name)))
    for name in INPLACE:
        setattr(tensor_cls, name + "_", _inplace_method(name))


def functions() -> dict:
    """Every ``mg.X`` defined outside ``minigrad/__init__.py``'s own imports, by name."""
    from minigrad.special import polygamma  # torch.polygamma(n, x): n first

    out = elementwise.functions()
    out["polygamma"] = polygamma
    for module in _MODULES:
        out.update({name: getattr(module, name) for name in module.FUNCTIONS})
        for alias, target in getattr(module, "ALIASES", {}).items():
            out[alias] = getattr(module, target)
    for name in NUMPY_KEYWORDS:
        if name in out:  # mg.quantile(x, 0.5, axis=1), as the method
            out[name] = _accept_numpy_keywords(out[name])
    return out

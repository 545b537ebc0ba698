"""Where operations written outside ``tensor.py`` become Tensor methods and ``mg.*`` names.

One place for all of them: the elementwise table (``elementwise.py``: ``x.sin()``,
``mg.atan2``, operators, in-place variants), the reductions and scans
(``reductions.py``: ``x.prod()``, ``mg.cummax``) and the indexing family
(``selection.py``: ``x.scatter_add(...)``, ``mg.meshgrid``) and arithmetic with extra
arguments (``arithmetic.py``: ``x.add(y, alpha=2)``, ``mg.div(x, y, rounding_mode=...)``).
``joining.py`` adds joining, splitting and products (``mg.hstack``, ``x.mm(y)``) and
``legacy.py`` creation functions (``logspace``, ``mg.FloatTensor``).
A function there takes the tensor as its first argument (``input``), so the same
function is the method.
"""

from __future__ import annotations

from minigrad import arithmetic, elementwise, joining, legacy, reductions, selection

_MODULES = (arithmetic, reductions, selection, joining, legacy)


#: Methods that take ``dim`` / ``keepdim`` and so, as in PyTorch, also NumPy's spellings
#: ``axis`` / ``keepdims``.
NUMPY_KEYWORDS = (
    "sum mean var std amax amin max min argmax argmin logsumexp softmax log_softmax prod "
    "all any cumsum cumprod cummax cummin logcumsumexp count_nonzero median nansum nanmean "
    "aminmax kthvalue norm squeeze unsqueeze flip"
).split()


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
    for name, method in arithmetic.DUNDERS.items():
        setattr(tensor_cls, name, method)
    for name in NUMPY_KEYWORDS:
        setattr(tensor_cls, name, _accept_numpy_keywords(getattr(tensor_cls, name)))


def functions() -> dict:
    """Every ``mg.X`` defined outside ``minigrad/__init__.py``'s own imports, by name."""
    out = elementwise.functions()
    for module in _MODULES:
        out.update({name: getattr(module, name) for name in module.FUNCTIONS})
        for alias, target in getattr(module, "ALIASES", {}).items():
            out[alias] = getattr(module, target)
    return out

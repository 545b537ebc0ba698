"""Where operations written outside ``tensor.py`` become Tensor methods and ``mg.*`` names.

One place for all of them: the elementwise table (``elementwise.py``: ``x.sin()``,
``mg.atan2``, operators, in-place variants), the reductions and scans
(``reductions.py``: ``x.prod()``, ``mg.cummax``) and the indexing family
(``selection.py``: ``x.scatter_add(...)``, ``mg.meshgrid``) and arithmetic with extra
arguments (``arithmetic.py``: ``x.add(y, alpha=2)``, ``mg.div(x, y, rounding_mode=...)``).
A function there takes the tensor as its first argument (``input``), so the same
function is the method.
"""

from __future__ import annotations

from minigrad import arithmetic, elementwise, reductions, selection

_MODULES = (arithmetic, reductions, selection)


def attach_methods(tensor_cls) -> None:
    """Give the Tensor class every method defined outside ``tensor.py``."""
    elementwise.attach(tensor_cls)
    for module in _MODULES:
        for name in module.METHODS:
            setattr(tensor_cls, name, getattr(module, name))
        for alias, target in getattr(module, "ALIASES", {}).items():
            setattr(tensor_cls, alias, getattr(module, target))


def functions() -> dict:
    """Every ``mg.X`` defined outside ``minigrad/__init__.py``'s own imports, by name."""
    out = elementwise.functions()
    for module in _MODULES:
        out.update({name: getattr(module, name) for name in module.FUNCTIONS})
        for alias, target in getattr(module, "ALIASES", {}).items():
            out[alias] = getattr(module, target)
    return out

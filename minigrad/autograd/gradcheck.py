"""``torch.autograd.gradcheck`` as a module path (``from torch.autograd.gradcheck import
gradcheck, gradgradcheck, GradcheckError``): the checker itself is the package
``minigrad.gradcheck``, re-exported here.

In PyTorch the name ``torch.autograd.gradcheck`` is both this module and, as an
attribute of ``torch.autograd``, the function. Importing a submodule makes Python bind
it as an attribute of its package, so this module is made callable: after
``import minigrad.autograd.gradcheck``, ``mg.autograd.gradcheck(fn, inputs)`` still
checks ``fn``.
"""

from __future__ import annotations

import sys
import types

from minigrad.gradcheck import (
    GradcheckError,
    gradcheck,
    gradgradcheck,
)

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return gradcheck(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

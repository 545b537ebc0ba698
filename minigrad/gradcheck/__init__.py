"""Gradient checking: autograd's derivatives against finite differences of the forward.

Read it from the core outwards:

- ``core``: the idea in one screen (central differences, backward row by row, compare,
  report the worst entries);
- ``numeric``: finite differences with an estimate of their own error;
- ``analytic``: the Jacobian from as few backward passes as possible, and probes of the
  backward (determinism, linearity in the cotangent);
- ``verdict``: the rule that turns numbers into passed / failed / inconclusive /
  vacuous / non-differentiable;
- ``steps``: a second look at smaller steps for the entries the first step could not
  decide (or failed), so that a function changing on the scale of the step is not
  called wrong;
- ``run``: the steps of one check; ``fast``: random projections for large inputs;
- ``report``: ``GradcheckResult`` and the readable message;
- ``api``: ``gradcheck`` and ``gradgradcheck`` (``second``: the second-order check
  they and the node checks share); ``module``: ``gradcheck_module``;
- ``graph``: ``gradcheck_graph``, every node of a recorded graph checked on its own
  inputs (``node``: the check of one node, and how the elements of a large input are
  chosen);
- ``implementations``: ``compare_implementations``, a norm's fused, reference and
  composite implementations against each other and finite differences.

The package sits above ``autograd`` and ``nn``; neither imports it (``minigrad.autograd``
re-exports the public names lazily, for PyTorch's spelling).
"""

import sys

from minigrad.gradcheck.api import gradcheck, gradgradcheck
from minigrad.gradcheck.graph import GraphCheckResult, gradcheck_graph
from minigrad.gradcheck.implementations import NormComparison, compare_implementations
from minigrad.gradcheck.module import gradcheck_module
from minigrad.gradcheck.report import (
    GradcheckError,
    GradcheckResult,
    GradcheckWarning,
    PairResult,
)

__all__ = [
    "GradcheckError",
    "GradcheckResult",
    "GradcheckWarning",
    "GraphCheckResult",
    "NormComparison",
    "PairResult",
    "compare_implementations",
    "gradcheck",
    "gradcheck_graph",
    "gradcheck_module",
    "gradgradcheck",
]

# PyTorch's module path ``torch.autograd.gradcheck`` (``from torch.autograd.gradcheck import
# gradcheck, GradcheckError``) names this package: the checker sits above autograd, so it
# answers for that path rather than living inside ``minigrad/autograd/``. (As in PyTorch,
# the attribute ``mg.autograd.gradcheck`` stays the function.)
sys.modules.setdefault("minigrad.autograd.gradcheck", sys.modules[__name__])

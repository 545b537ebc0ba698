"""Helpers for users' own test suites.

``assert_gradients(fn, *shapes_or_inputs)`` is the one-line gradient test: it builds
random float64 inputs from shapes, runs ``gradcheck`` and ``gradgradcheck``, and
fails with the checker's readable report::

    from minigrad.testing import assert_gradients

    def test_my_layer_norm():
        assert_gradients(lambda x, w: my_layer_norm(x, w), (4, 8), (8,))
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from minigrad.gradcheck.api import finish, gradcheck, gradgradcheck
from minigrad.tensor import Tensor

__all__ = ["assert_gradients"]


def assert_gradients(
    fn: Callable,
    *shapes_or_inputs,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    second_order: bool = True,
    allow_vacuous: bool = False,
    fast_mode: bool = False,
    seed: int = 0,
):
    """Assert that ``fn``'s first (and second) derivatives match finite differences.

    Each positional argument after ``fn`` is either a shape (a tuple or list of ints,
    ``()`` for a scalar), which becomes a random standard-normal float64 tensor that
    requires grad, or anything else (a Tensor, a number, an array of indices), passed
    to ``fn`` as it is; a Tensor is checked if it requires grad.

    Args:
        fn: the function under test, returning a Tensor or a tuple.
        atol, rtol: tolerances, as for ``gradcheck``.
        second_order: also run ``gradgradcheck`` (needs backwards written with Tensor
            operations).
        allow_vacuous: accept a check in which every Jacobian is zero (by default that
            fails: such a test checks nothing; see ``docs/gradcheck.md``).
        fast_mode: use random directions (for large inputs).
        seed: seeds the random inputs and the checker's cotangents.

    Returns:
        The ``GradcheckResult`` of gradcheck and of gradgradcheck (or None).

    Raises:
        AssertionError: with the checker's report as the message, if a check failed or
            (unless ``allow_vacuous``) checked nothing. Inconclusive and
            non-differentiable verdicts warn but pass.

    Example::

        >>> assert_gradients(lambda x, y: (x * y).tanh(), (3, 4), (4,))
    """
    rng = np.random.default_rng(seed)
    args = []
    for a in shapes_or_inputs:
        if _is_shape(a):
            args.append(Tensor(rng.standard_normal(tuple(a)), requires_grad=True))
        else:
            args.append(a)
    kwargs = dict(atol=atol, rtol=rtol, fast_mode=fast_mode, seed=seed, return_result=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # re-issued below, pointing at the caller
        first = gradcheck(fn, tuple(args), **kwargs)
        second = gradgradcheck(fn, tuple(args), **kwargs) if second_order else None
    for result in (first, second):
        if result is None:
            continue
        if result.verdict == "failed" or (result.verdict == "vacuous" and not allow_vacuous):
            raise AssertionError("\n" + str(result))
        finish(result, raise_exception=False, return_result=True, stacklevel=2)
    return first, second


def _is_shape(a) -> bool:
    return isinstance(a, (tuple, list)) and all(
        isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0 for s in a
    )

"""The functions you call: ``gradcheck`` (first derivatives) and ``gradgradcheck``
(second derivatives, through ``create_graph``), and ``finish``, which turns a result
into the promised return value, warnings or ``GradcheckError``.

How a check measures and decides is in ``run`` (its steps), ``numeric`` (finite
differences and their error) and ``verdict`` (the rule); ``docs/gradcheck.md`` tells it
with examples.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np

from minigrad.autograd.api import grad as autograd_grad
from minigrad.autograd.grad_mode import enable_grad
from minigrad.functions.constant import constant
from minigrad.gradcheck.graph import gradcheck_graph
from minigrad.gradcheck.options import (
    DEFAULT_EPS,
    Target,
    as_tuple,
    machine_eps,
    make_options,
    step_for,
)
from minigrad.gradcheck.report import GradcheckError, GradcheckResult, GradcheckWarning
from minigrad.gradcheck.run import low_precision_note, run_check
from minigrad.gradcheck.second import differentiable_outputs, second_order_check
from minigrad.printing import shape_str
from minigrad.tensor import Tensor

__all__ = ["finish", "gradcheck", "gradgradcheck"]


def gradcheck(
    fn: Callable,
    inputs,
    eps: float = DEFAULT_EPS,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    fast_mode: bool = False,
    *,
    return_result: bool = False,
    num_directions: int = 4,
    seed: int = 0,
):
    """Check the gradients of ``fn`` at ``inputs`` against central finite differences.

    For every floating-point output of ``fn`` and every input that requires grad, the
    analytical Jacobian (from backward passes, one per group of output elements that
    depend on disjoint inputs) is compared entry by entry with central differences,
    each with an estimate of its own error (from a second step size and the rounding
    of the dtype). An entry fails only when
    ``|numerical - analytical| > atol + rtol * |numerical| + estimated error``; where
    the estimated error exceeds the tolerance it is inconclusive instead. Backward is
    also run twice with a random, non-uniform cotangent: the results must agree within
    ``nondet_tol`` and match the Jacobian (linearity). See ``docs/gradcheck.md``.

    Args:
        fn: a function of the inputs returning a Tensor or a tuple (non-float outputs
            are ignored).
        inputs: a Tensor or a tuple of arguments; tensors with ``requires_grad`` are
            checked, everything else is passed through unchanged.
        eps: the finite-difference step. Left at its default, it is 1e-6 for float64
            inputs and ``eps_dtype ** (1/3)`` rounded to a power of two for lower
            precisions (3.9e-3 for float32); a value you pass is used for every input.
        atol, rtol: an entry agrees when ``|num - ana| <= atol + rtol * |num|``.
        raise_exception: raise ``GradcheckError`` on failure (else return False).
        nondet_tol: how much two backward passes (or two forward passes) may differ.
        fast_mode: compare ``v^T J u`` along ``num_directions`` random directions
            instead of whole Jacobians: one backward and four function calls per
            direction, for inputs too large for a full check. It cannot pinpoint
            entries.
        return_result: return the ``GradcheckResult`` instead of True/False (and
            never raise for a failed check).
        num_directions: random directions per input in fast mode.
        seed: seed of the checker's own random cotangents and directions (the global
            generator is not touched).

    Returns:
        True (also for inconclusive, vacuous or non-differentiable verdicts, which
        warn with ``GradcheckWarning``), False on failure with
        ``raise_exception=False``, or the ``GradcheckResult``.

    Raises:
        GradcheckError: on failure; the message names the output and the input and
            lists the worst entries. ``error.result.graph_check()`` then checks each
            node of ``fn``'s graph on its own and names the wrong one
            (``gradcheck_graph``).

    Example::

        >>> x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
        >>> mg.gradcheck(lambda x: x.tanh() * x, (x,))
        True
    """
    inputs = as_tuple(inputs)
    targets = targets_of(inputs, "gradcheck")
    options = make_options(eps, atol, rtol, nondet_tol, fast_mode, num_directions, seed)
    warn_low_precision(targets, eps, stacklevel=2)
    result = run_check(lambda: fn(*inputs), targets, options, "gradcheck")
    result.graph_check = follow_up(result, lambda **kw: gradcheck_graph(fn, *inputs, **kw))
    return finish(result, raise_exception, return_result, stacklevel=2)


def gradgradcheck(
    fn: Callable,
    inputs,
    grad_outputs=None,
    eps: float = DEFAULT_EPS,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    fast_mode: bool = False,
    *,
    return_result: bool = False,
    num_directions: int = 4,
    seed: int = 0,
):
    """Check second derivatives: gradcheck of ``(inputs, v) -> J(inputs)^T v``.

    The gradient of ``fn``'s outputs (weighted by ``grad_outputs`` = v) with respect to
    the inputs is computed with ``create_graph=True``, and that function of both the
    inputs and v is gradchecked. This verifies that each backward is itself correctly
    differentiable (Hessian-vector products, gradient penalties).

    Args:
        fn, inputs, eps, atol, rtol, raise_exception, nondet_tol, fast_mode,
        return_result, num_directions, seed: as for ``gradcheck``.
        grad_outputs: one cotangent per floating-point output of ``fn`` (a Tensor or a
            tuple). Default: random and non-uniform (standard normal, seeded by
            ``seed``). A cotangent for which ``J^T v = 0`` (a constant along an axis
            that ``fn`` normalizes) makes the check blind: that is detected, reported in
            a note, and the check is made with a random cotangent instead.

    Example::

        >>> x = mg.randn(5, dtype=mg.float64, requires_grad=True)
        >>> mg.gradgradcheck(lambda x: (x ** 3).sum() * x, (x,))
        True
    """
    inputs = as_tuple(inputs)
    targets = targets_of(inputs, "gradgradcheck")
    options = make_options(eps, atol, rtol, nondet_tol, fast_mode, num_directions, seed)
    tensors = [t.tensor for t in targets]
    with enable_grad():
        outputs = as_tuple(fn(*inputs))
    positions = differentiable_outputs(outputs)
    rng = np.random.default_rng(seed)
    cotangents = None
    if grad_outputs is not None:
        grad_outputs = as_tuple(grad_outputs)
        if len(grad_outputs) != len(positions):
            raise ValueError(
                f"gradgradcheck: got {len(grad_outputs)} grad_outputs for {len(positions)} "
                "differentiable output(s)"
            )
        cotangents = []
        for j, g in zip(positions, grad_outputs):
            data = np.array(getattr(g, "_data", g), dtype=outputs[j].dtype)
            if data.shape != outputs[j].shape:
                raise ValueError(
                    f"gradgradcheck: grad_outputs for output {j} has shape "
                    f"{shape_str(data.shape)}, but the output has shape "
                    f"{shape_str(outputs[j].shape)}"
                )
            cotangents.append(Tensor(data, requires_grad=True))
        blind = _blind_cotangent(fn, inputs, positions, tensors, cotangents, rng)
        if blind:
            # Nothing can be learnt at this v; a random one still tests the backward's
            # own derivative, which is what the caller wants to know.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", GradcheckWarning)
                result = gradgradcheck(
                    fn,
                    inputs,
                    None,
                    eps,
                    atol,
                    rtol,
                    nondet_tol=nondet_tol,
                    fast_mode=fast_mode,
                    return_result=True,
                    num_directions=num_directions,
                    seed=seed,
                )
            result.notes.insert(
                0,
                f"{blind} The check was therefore made with a random cotangent instead: "
                f"{result.verdict}.",
            )
            return finish(result, raise_exception, return_result, stacklevel=2, pair_warnings=False)
    warn_low_precision(targets, eps, stacklevel=2)
    result = second_order_check(
        lambda: fn(*inputs), targets, options, "gradgradcheck", rng, cotangents
    )
    result.graph_check = follow_up(result, lambda **kw: gradcheck_graph(fn, *inputs, **kw), order=2)
    return finish(result, raise_exception, return_result, stacklevel=2, pair_warnings=False)


def follow_up(result: GradcheckResult, check_graph, order: int = 1):
    """``result.graph_check``: ``gradcheck_graph`` of the same computation, with the
    result's tolerances; where no node is wrong it checks the nodes whose inputs were
    checked on a selection again on every element (``recheck``), and its report says
    what a whole check that failed with no wrong node means."""

    def graph_check(**kwargs):
        kwargs = {
            "atol": result.atol,
            "rtol": result.rtol,
            "order": order,
            "recheck": True,
            **kwargs,
        }
        found = check_graph(**kwargs)
        found.after = result.verdict
        return found

    return graph_check


def finish(
    result: GradcheckResult,
    raise_exception: bool,
    return_result: bool,
    stacklevel: int,
    pair_warnings: bool = True,
):
    """Warn about what deserves it, then return or raise as ``gradcheck`` promises."""
    for message in warning_messages(result, pair_warnings):
        warnings.warn(message, GradcheckWarning, stacklevel=stacklevel + 1)
    if return_result:
        return result
    if result.verdict == "failed":
        if raise_exception:
            raise GradcheckError(str(result), result)
        return False
    return True


def warning_messages(result: GradcheckResult, pair_warnings: bool = True) -> list:
    """The GradcheckWarnings a result deserves (low precision is warned about earlier)."""
    out = []
    if result.verdict == "failed":
        return out
    # A vacuous pair is worth a warning when nothing at all was checked about its input
    # (an output that does not depend on an input another output depends on is normal).
    vacuous_inputs = {name for name, v in result.by_input().items() if v == "vacuous"}
    for p in result.pairs:
        if p.verdict == "vacuous":
            if result.verdict == "vacuous" or (pair_warnings and p.input_name in vacuous_inputs):
                out.append(f"{result.kind}: vacuous check: {p.headline()}")
        elif p.verdict in ("inconclusive", "non-differentiable"):
            out.append(f"{result.kind}: {p.headline()}")
    out += [f"{result.kind}: {n}" for n in result.notes if "not float64" not in n]
    return out


# ---------------------------------------------------------------------------- helpers
def targets_of(inputs: tuple, kind: str) -> list:
    targets, seen = [], set()
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and id(x) not in seen:
            seen.add(id(x))
            targets.append(Target(x, f"input {i}", i))
    if not targets:
        raise ValueError(
            f"{kind}: no input requires grad; pass the tensors to check with "
            "requires_grad=True (float64 for a decisive check)"
        )
    return targets


def warn_low_precision(targets: Sequence[Target], eps, stacklevel: int) -> None:
    note = low_precision_note(targets, [step_for(t.tensor, eps) for t in targets])
    if note:
        warnings.warn(f"gradcheck: {note}", GradcheckWarning, stacklevel=stacklevel + 1)


def _blind_cotangent(fn, inputs, positions, tensors, cotangents, rng) -> str | None:
    """A cotangent v is blind when J^T v = 0 although J is not zero (e.g. v constant
    along an axis that fn normalizes): every derivative of J^T v is then zero too."""
    with enable_grad():
        outs = as_tuple(fn(*inputs))
        selected = [outs[j] for j in positions]
        given = autograd_grad(
            selected,
            tensors,
            [constant(v._data) for v in cotangents],
            retain_graph=True,
            allow_unused=True,
        )
        probe = [constant(rng.standard_normal(o.shape).astype(o.dtype)) for o in selected]
        random = autograd_grad(selected, tensors, probe, allow_unused=True)

    def size(grads, vs):
        g = np.sqrt(
            sum(float(np.sum(x._data.astype(np.float64) ** 2)) for x in grads if x is not None)
        )
        v = np.sqrt(sum(float(np.sum(x._data.astype(np.float64) ** 2)) for x in vs))
        return g / v if v > 0 else 0.0

    seen, reference = size(given, cotangents), size(random, probe)
    eps = max(machine_eps(v.dtype) for v in cotangents)
    if reference > 0 and seen <= 1e3 * eps * reference:
        return (
            "the cotangent grad_outputs is blind: J^T v is zero although J is not (for "
            "example v is constant along an axis that fn normalizes), so a second-order "
            "check with it sees only zeros."
        )
    return None

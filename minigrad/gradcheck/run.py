"""The engine behind ``gradcheck``, ``gradgradcheck`` and ``gradcheck_module``.

``run_check(evaluate, targets, options, kind)`` compares, for every floating-point
output of ``evaluate()`` and every target tensor, the derivatives from backward with
finite differences, and decides. The steps of a full check:

1. a forward with grad recording on (the graph every backward pass reuses), then two
   more calls that must agree (a random function cannot be checked);
2. the numerical Jacobian, steps +-h for every input element (``numeric``);
3. the analytical Jacobian, one backward per group of output rows whose numerical
   supports are disjoint, and a random-cotangent probe of the backward
   (``analytic``);
4. the error of the finite differences: a random sample of columns, and every column
   with a suspicious entry, gets steps +-2h (and the sample +-4h);
5. a status per entry and a verdict per (output, input) pair (``verdict``).

Fast mode replaces 2-4 with random projections (``fast``).

Targets are perturbed in place through a private copy of their data that replaces
``tensor._data`` for the duration of the check; the original arrays are put back
afterwards, untouched.
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np

from minigrad.autograd.grad_mode import enable_grad, no_grad
from minigrad.gradcheck.analytic import (
    AnalyticalJacobian,
    backward_consistency,
    max_difference,
)
from minigrad.gradcheck.fast import fast_check
from minigrad.gradcheck.numeric import Evaluator, Stencil, needs_refinement
from minigrad.gradcheck.options import Options, as_tuple, machine_eps, step_for
from minigrad.gradcheck.report import GradcheckResult
from minigrad.gradcheck.steps import revisit
from minigrad.gradcheck.verdict import overall_verdict, pair_result

#: Beyond this many Jacobian entries per (all outputs, one input) a full check would
#: be slow and memory hungry; fast mode is the tool.
MAX_FULL_ENTRIES = 2**22


def low_precision_note(targets, steps) -> str | None:
    """The warning for targets that are not float64 (None if all are)."""
    low = [(t, h) for t, h in zip(targets, steps) if t.tensor.dtype != np.float64]
    if not low:
        return None
    names = ", ".join(f"{t.name} ({t.tensor.dtype})" for t, _ in low)
    dtype = low[0][0].tensor.dtype
    step_text = ", ".join(sorted({f"{h:.2g}" for _, h in low}))
    return (
        f"{names}: not float64. Finite differences in low precision are dominated by "
        f"rounding (each evaluation is off by about {machine_eps(dtype):.0e} relative, "
        f"divided by the step), so the checker uses a step of {step_text} and reports "
        "'inconclusive' where that noise exceeds the tolerance. Convert the inputs with "
        ".double() for a decisive check."
    )


@contextlib.contextmanager
def private_copies(targets):
    """Give every target a private, contiguous, writable copy of its data; restore after."""
    originals = {}
    try:
        for t in targets:
            tensor = t.tensor
            if id(tensor) not in originals:
                originals[id(tensor)] = (tensor, tensor._data)
                tensor._data = np.array(tensor._data, copy=True, order="C")
        yield
    finally:
        for tensor, data in originals.values():
            tensor._data = data


def run_check(evaluate, targets, options: Options, kind: str, output_names=None):
    """Check the derivatives of ``evaluate()``'s outputs with respect to ``targets``.

    Args:
        evaluate: a function of no arguments that runs the checked computation (it
            reads the targets' ``._data``).
        targets: the ``Target`` tensors to differentiate with respect to.
        options: tolerances, step and mode.
        kind: the check's name in the report.
        output_names: optional names for the outputs, by position.

    Returns:
        A ``GradcheckResult``.
    """
    steps = [step_for(t.tensor, options.eps) for t in targets]
    low = low_precision_note(targets, steps)
    notes = [low] if low else []
    problems = []
    user_evaluate = evaluate

    def evaluate():
        options.cost["function_calls"] += 1
        return user_evaluate()

    with private_copies(targets):
        with enable_grad():
            outputs = as_tuple(evaluate())
        evaluator = Evaluator(evaluate, outputs)
        if not evaluator.positions:
            raise ValueError(
                f"{kind}: the function returned no floating-point tensor to check "
                f"(got {', '.join(type(o).__name__ for o in outputs)})"
            )
        names = output_names or {j: f"output {j}" for j in evaluator.positions}
        with no_grad():
            base = evaluator.values()
            again = evaluator.values()
        spread = max_difference(base, again)
        if not spread <= options.nondet_tol:
            problems.append(
                "The function is not deterministic: two calls with the same inputs "
                f"returned outputs that differ by {spread:.3g} (nondet_tol="
                f"{options.nondet_tol:g}), so finite differences are meaningless. Switch "
                "off or seed the randomness (dropout, sampling) before checking."
            )
            return GradcheckResult(kind, [], problems, notes, options, "failed")
        checked = [outputs[j] for j in evaluator.positions]
        if options.fast_mode:
            pairs = fast_check(evaluator, checked, targets, steps, base, names, options, problems)
        else:
            pairs = _full(
                evaluate, evaluator, checked, targets, steps, base, names, options, problems
            )
    verdict = overall_verdict([p.verdict for p in pairs], problems)
    return GradcheckResult(kind, pairs, problems, notes, options, verdict)


# ---------------------------------------------------------------------------- full mode
def _full(evaluate, evaluator, checked, targets, steps, base, names, options, problems):
    tensors = [t.tensor for t in targets]
    for t in targets:
        entries = t.tensor._data.size * evaluator.size
        if entries > MAX_FULL_ENTRIES:
            raise ValueError(
                f"gradcheck: the Jacobian of the outputs ({evaluator.size} elements) with "
                f"respect to {t.name} ({t.tensor._data.size} elements) has {entries} "
                "entries, too many for a full check; use fast_mode=True"
            )
    rng = np.random.default_rng(options.seed)
    # Numerical first (steps +-h): it is the reference, and its sparsity lets the
    # analytical Jacobian be computed with one backward per group of unrelated rows.
    stencils = [Stencil(evaluator, t.tensor._data, h, base) for t, h in zip(targets, steps)]
    supports = [s.support() for s in stencils]
    jacobian = AnalyticalJacobian(evaluator, checked, tensors, supports, options)
    try:
        jacobian.compute()
        extra = backward_consistency(
            evaluate, evaluator, checked, tensors, jacobian, options, problems
        )
    except Exception as err:  # a broken backward is a finding, not a crash
        problems.append(f"Backward raised: {type(err).__name__}: {err}")
        return []
    pairs = []
    for i, (t, stencil) in enumerate(zip(targets, stencils)):
        stencil.calibrate(rng)
        blocks = []
        for n, out in enumerate(checked):
            rows = evaluator.block(n)
            # Rounding happens in the computation, at the output's precision (the input's
            # step is realized exactly); lower precision inside is measured by kappa.
            noise_eps = machine_eps(out.dtype)
            analytical = jacobian.jac[i][rows]
            blocks.append((rows, noise_eps, analytical))
        # Refine (steps +-2h) every column with a suspicious entry, then decide.
        for rows, noise_eps, analytical in blocks:
            diffs = stencil.differences(rows, noise_eps)
            stencil.refine(needs_refinement(diffs, analytical, options.atol, options.rtol))
        for n, (rows, noise_eps, analytical) in enumerate(blocks):
            diffs = stencil.differences(rows, noise_eps)
            # The analytical side rounds too (a float32 backward): a few ulps of the row.
            row_max = np.max(np.abs(np.nan_to_num(analytical)), axis=1, keepdims=True, initial=0.0)
            rounding = 16.0 * machine_eps(t.tensor.dtype) * row_max
            error = diffs.error + rounding
            # Where backward claims a slope but the output did not move, the slope may
            # hide below the rounding of the outputs that did move.
            claimed = ~diffs.coupled & (analytical != 0)
            hidden = np.broadcast_to(stencil.hidden_slope(rows, noise_eps), error.shape)
            error = np.where(claimed, np.maximum(error, hidden), error)
            look = functools.partial(
                _second_look, stencil, rows, noise_eps, analytical, rounding, diffs.kappa, options
            )
            pairs.append(
                pair_result(
                    n,
                    checked[n],
                    t,
                    evaluator,
                    names,
                    diffs,
                    analytical,
                    error,
                    options,
                    extra.get((n, i)),
                    scale=0.0,
                    precision_loss=diffs.kappa * noise_eps / machine_eps(t.tensor.dtype),
                    second_look=look,
                )
            )
    return pairs


def _second_look(stencil, rows, noise_eps, analytical, rounding, kappa, options, status):
    """``steps.revisit`` for one (output, input) block: the failed, undecided and
    non-differentiable entries decided again at smaller steps (the analytical rounding
    added to their error bounds)."""
    unit = stencil.resolution(rows, noise_eps)
    found = revisit(stencil, rows, status, analytical, unit, kappa, options.atol, options.rtol)
    found.error = found.error + np.broadcast_to(rounding, analytical.shape).reshape(-1)[found.flat]
    return found

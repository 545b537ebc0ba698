"""The engine behind ``gradcheck``, ``gradgradcheck`` and ``gradcheck_module``.

``run_check(evaluate, targets, ...)`` compares, for every floating-point output of
``evaluate()`` and every target tensor, the analytical derivatives (from backward)
with finite differences (``gradcheck_numeric``), and decides (``gradcheck_verdict``).

- Full mode: the analytical Jacobian takes one backward per output element, all on the
  graph of a single forward (``retain_graph=True``); the numerical one takes four
  function evaluations per input element (steps +-h, +-2h).
- Fast mode: for each of a few random directions u (one per input) and cotangents v
  (one per output), one backward gives J^T v and four evaluations along u give J u;
  the check compares v^T J u both ways.

Targets are perturbed in place through a private copy of their data that replaces
``tensor.data`` for the duration of the check; the original arrays are put back
afterwards, untouched.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from minigrad.autograd.api import grad as autograd_grad
from minigrad.autograd.grad_mode import enable_grad, no_grad
from minigrad.autograd.gradcheck_numeric import (
    Evaluator,
    Stencil,
    analyse_directional,
    as_tuple,
    default_step,
    directional_values,
    machine_eps,
    needs_refinement,
)
from minigrad.autograd.gradcheck_result import Entry, GradcheckResult, PairResult
from minigrad.autograd.gradcheck_verdict import (
    INCONCLUSIVE,
    STATUS_NAMES,
    classify,
    pair_verdict,
    tolerance,
    worst_entries,
)

#: Beyond this many Jacobian entries per (all outputs, one input) a full check would
#: be slow and memory hungry; fast mode is the tool.
MAX_FULL_ENTRIES = 2**22

#: How many entries the report lists per pair.
WORST = 5


class _DefaultStep(float):
    """The default ``eps`` (1e-6). A float that remembers the caller did not choose it,
    so that the step can follow each input's dtype instead."""

    def __repr__(self) -> str:
        return "1e-06"


DEFAULT_EPS = _DefaultStep(1e-6)


@dataclass
class Target:
    """A tensor whose derivatives are checked, and how the report names it."""

    tensor: object
    name: str
    position: int


@dataclass
class Options:
    eps: float
    atol: float
    rtol: float
    nondet_tol: float
    fast_mode: bool
    num_directions: int
    seed: int
    cost: dict = field(default_factory=lambda: {"function_calls": 0, "backward_passes": 0})

    def backward(self, *args, **kwargs):
        """``autograd.grad``, counted."""
        self.cost["backward_passes"] += 1
        return autograd_grad(*args, **kwargs)


def step_for(tensor, eps) -> float:
    """The finite-difference step for a tensor: the caller's ``eps``, or, when left at
    its default, the step for the tensor's dtype (``default_step``)."""
    if eps is None or eps is DEFAULT_EPS:
        return default_step(tensor.dtype)
    return float(eps)


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
                originals[id(tensor)] = (tensor, tensor.data)
                tensor.data = np.array(tensor.data, copy=True, order="C")
        yield
    finally:
        for tensor, data in originals.values():
            tensor.data = data


def run_check(evaluate, targets, options: Options, kind: str, output_names=None):
    """Check the derivatives of ``evaluate()``'s outputs with respect to ``targets``.

    Args:
        evaluate: a function of no arguments that runs the checked computation (it
            reads the targets' ``.data``).
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
        spread = _max_difference(base, again)
        if not spread <= options.nondet_tol:
            problems.append(
                "The function is not deterministic: two calls with the same inputs "
                f"returned outputs that differ by {spread:.3g} (nondet_tol="
                f"{options.nondet_tol:g}), so finite differences are meaningless. Switch "
                "off or seed the randomness (dropout, sampling) before checking."
            )
            return GradcheckResult(kind, [], problems, notes, options)
        checked = [outputs[j] for j in evaluator.positions]
        if options.fast_mode:
            pairs = _fast(
                evaluate, evaluator, checked, targets, steps, base, names, options, problems
            )
        else:
            pairs = _full(
                evaluate, evaluator, checked, targets, steps, base, names, options, problems
            )
    return GradcheckResult(kind, pairs, problems, notes, options)


# ---------------------------------------------------------------------------- full mode
def _full(evaluate, evaluator, checked, targets, steps, base, names, options, problems):
    tensors = [t.tensor for t in targets]
    for t in targets:
        entries = t.tensor.data.size * evaluator.size
        if entries > MAX_FULL_ENTRIES:
            raise ValueError(
                f"gradcheck: the Jacobian of the outputs ({evaluator.size} elements) with "
                f"respect to {t.name} ({t.tensor.data.size} elements) has {entries} "
                "entries, too many for a full check; use fast_mode=True"
            )
    rng = np.random.default_rng(options.seed)
    # Numerical first (steps +-h): it is the reference, and its sparsity lets the
    # analytical Jacobian be computed with one backward per group of unrelated rows.
    stencils = [Stencil(evaluator, t.tensor.data, h, base) for t, h in zip(targets, steps)]
    supports = [s.support() for s in stencils]
    jacobian = AnalyticalJacobian(evaluator, checked, tensors, supports, options)
    try:
        jacobian.compute()
    except Exception as err:  # a broken backward is a finding, not a crash
        problems.append(f"Backward raised: {type(err).__name__}: {err}")
        return []
    extra = _backward_consistency(
        evaluate, evaluator, checked, tensors, jacobian, options, problems
    )
    pairs = []
    for i, (t, stencil) in enumerate(zip(targets, stencils)):
        stencil.calibrate(rng)
        blocks = []
        for n, out in enumerate(checked):
            rows = evaluator.block(n)
            # Rounding happens in the computation, at the output's precision (the input's
            # step is realized exactly); lower precision inside is measured by kappa.
            noise_eps = machine_eps(out.dtype)
            scale = _output_scale(base[rows])
            analytical = jacobian.jac[i][rows]
            blocks.append((rows, noise_eps, scale, analytical))
        # Refine (steps +-2h) every column with a suspicious entry, then decide.
        for rows, noise_eps, scale, analytical in blocks:
            diffs = stencil.differences(rows, noise_eps, scale)
            stencil.refine(needs_refinement(diffs, analytical, options.atol, options.rtol))
        for n, (rows, noise_eps, scale, analytical) in enumerate(blocks):
            diffs = stencil.differences(rows, noise_eps, scale)
            # The analytical side rounds too (a float32 backward): a few ulps of the row.
            row_max = np.max(np.abs(np.nan_to_num(analytical)), axis=1, keepdims=True, initial=0.0)
            error = diffs.error + 16.0 * machine_eps(t.tensor.dtype) * row_max
            pairs.append(
                _pair_result(
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
                )
            )
    return pairs


class AnalyticalJacobian:
    """J[i] of shape (all output elements, elements of input i), from backward passes.

    One backward with a unit cotangent gives one row. Rows whose numerical supports
    (the input elements that moved them) are disjoint can share a backward: with the
    cotangent e_r1 + e_r2 + ..., each input element's gradient belongs to the one row
    whose support holds it (Curtis-Powell-Reid compression; rows are grouped by greedy
    colouring). A nonzero gradient outside every support of the group is ambiguous: the
    group's rows are then redone one by one. Leaks *inside* another row's support are
    caught afterwards by a random-cotangent probe (``_backward_consistency``), which
    triggers an exact, row-by-row recomputation.
    """

    def __init__(self, evaluator, checked, tensors, supports, options):
        self.evaluator, self.checked, self.tensors = evaluator, checked, tensors
        self.options = options
        self.supports = supports
        self.jac = [np.zeros((evaluator.size, t.data.size)) for t in tensors]
        self.compressed = [False] * len(checked)
        self.backward_passes = 0

    def compute(self) -> None:
        for n, out in enumerate(self.checked):
            if out.requires_grad:  # otherwise not connected: the rows stay zero
                self._output(n, out)

    def _backward(self, out, seed):
        from minigrad.tensor import Tensor

        self.backward_passes += 1
        return self.options.backward(
            out, self.tensors, Tensor._make(seed, False, None), retain_graph=True, allow_unused=True
        )

    def _output(self, n, out) -> None:
        rows = self.evaluator.block(n)
        start = rows.start
        supports = [s[rows] for s in self.supports]  # per input: (n_rows, n_in_i)
        colors = color_rows(np.concatenate(supports, axis=1))
        redo = []
        for c in range(int(colors.max()) + 1 if colors.size else 0):
            group = np.flatnonzero(colors == c)
            grads = self._backward(out, _unit_seed(out, group))
            if group.size == 1:
                for i, g in enumerate(grads):
                    if g is not None:
                        self.jac[i][start + group[0]] = g.data.reshape(-1)
                continue
            self.compressed[n] = True
            for i, g in enumerate(grads):
                if g is None:
                    continue
                vec = g.data.reshape(-1)
                sub = supports[i][group]  # (len(group), n_in_i), disjoint rows
                owned = sub.any(axis=0)
                owner = group[np.argmax(sub, axis=0)]
                cols = np.flatnonzero(owned)
                self.jac[i][start + owner[cols], cols] = vec[cols]
                if np.any(vec[~owned] != 0):
                    redo.extend(group.tolist())
        self._exact_rows(n, out, sorted(set(redo)))

    def _exact_rows(self, n, out, row_list) -> None:
        rows = self.evaluator.block(n)
        for r in row_list:
            grads = self._backward(out, _unit_seed(out, [r]))
            for i, g in enumerate(grads):
                self.jac[i][rows.start + r] = 0.0 if g is None else g.data.reshape(-1)

    def recompute_exactly(self, n) -> None:
        """Row by row, no compression (after a failed consistency probe)."""
        out = self.checked[n]
        self._exact_rows(n, out, range(out.data.size))
        self.compressed[n] = False


def _unit_seed(out, rows) -> np.ndarray:
    """A cotangent of ones at ``rows`` (flat indices), zeros elsewhere. A new array each
    time: the engine may hand the seed itself back as a gradient (an add does)."""
    seed = np.zeros(out.data.size, dtype=out.dtype)
    seed[rows] = 1
    return seed.reshape(out.shape)


def color_rows(support: np.ndarray) -> np.ndarray:
    """Greedy colouring: rows sharing a column never share a colour."""
    n_rows, n_cols = support.shape
    colors = np.zeros(n_rows, dtype=int)
    used = np.zeros((n_cols, 8), dtype=bool)  # used[k, c]: colour c already touches column k
    for r in range(n_rows):
        cols = np.flatnonzero(support[r])
        free = np.flatnonzero(~used[cols].any(axis=0))
        if free.size:
            c = int(free[0])
        else:
            c = used.shape[1]
            used = np.concatenate([used, np.zeros_like(used)], axis=1)
        colors[r] = c
        used[cols, c] = True
    return colors


def _backward_consistency(evaluate, evaluator, checked, tensors, jacobian, options, problems):
    """Probe the backward with one random cotangent v per output:

    - determinism: J^T v computed twice on the same graph and once on a fresh forward
      must agree within ``nondet_tol``;
    - the assembled Jacobian: J^T v must equal v^T J. A compressed Jacobian that fails
      this is recomputed row by row; an exact one that still fails means the backward
      is not linear in its incoming gradient (it may pass unit cotangents and be wrong
      for every other).

    Returns {(output n, input i): message} for the pairs that fail the linearity check.
    """
    from minigrad.tensor import Tensor

    rng = np.random.default_rng(options.seed + 7919)
    failures = {}
    for n, out in enumerate(checked):
        if not out.requires_grad or out.data.size == 0:
            continue
        v = Tensor._make(rng.standard_normal(out.shape).astype(out.dtype), False, None)
        first = options.backward(out, tensors, v, retain_graph=True, allow_unused=True)
        second = options.backward(out, tensors, v, retain_graph=True, allow_unused=True)
        with enable_grad():
            fresh_out = as_tuple(evaluate())[evaluator.positions[n]]
        fresh = (
            options.backward(fresh_out, tensors, v, allow_unused=True)
            if fresh_out.requires_grad
            else (None,) * len(tensors)
        )
        for i, t in enumerate(tensors):
            g1 = _dense(first[i], t)
            for other, how in ((second[i], "on the same graph"), (fresh[i], "after a new forward")):
                spread = _max_difference(g1, _dense(other, t))
                if not spread <= options.nondet_tol:
                    problems.append(
                        f"Backward is not deterministic: the gradient of output "
                        f"{evaluator.positions[n]} with respect to input {i} changed by "
                        f"{spread:.3g} when run again {how} (nondet_tol={options.nondet_tol:g})."
                    )
        v64 = v.data.astype(np.float64).reshape(-1)
        mismatch = _probe(evaluator, n, first, tensors, jacobian, v64, options.atol)
        if mismatch and jacobian.compressed[n]:
            jacobian.recompute_exactly(n)
            mismatch = _probe(evaluator, n, first, tensors, jacobian, v64, options.atol)
        for i, (k, direct, assembled) in mismatch.items():
            failures[(n, i)] = (
                "the backward is not linear in its incoming gradient: for a random "
                f"cotangent v it returned J^T v = {direct:.6g} at input index "
                f"{[int(x) for x in np.unravel_index(k, tensors[i].shape)]}, but the Jacobian "
                "built from "
                f"unit cotangents gives {assembled:.6g}"
            )
    return failures


def _probe(evaluator, n, direct_grads, tensors, jacobian, v64, atol) -> dict:
    """{input i: (flat index, J^T v, v^T J)} where the two disagree beyond rounding."""
    rows = evaluator.block(n)
    out = {}
    for i, t in enumerate(tensors):
        jac = jacobian.jac[i][rows]
        direct = _dense(direct_grads[i], t)
        assembled = v64 @ jac
        # Relative to the sizes involved, plus a floor: 1/1000 of atol per unit of |v|
        # (smaller mismatches cannot matter at the check's tolerance) and rounding.
        eps = machine_eps(t.dtype)
        v_norm = float(np.sqrt(v64 @ v64))
        allowed = max(1e-6, 100 * eps) * (np.abs(v64) @ np.abs(jac))
        allowed += v_norm * (1e-3 * atol + 100 * eps)
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(direct - assembled) <= allowed)
        if bad.any():
            k = int(
                np.argmax(np.where(bad, np.nan_to_num(np.abs(direct - assembled), nan=1e300), -1))
            )
            out[i] = (k, float(direct[k]), float(assembled[k]))
    return out


# ---------------------------------------------------------------------------- fast mode
def _fast(evaluate, evaluator, checked, targets, steps, base, names, options, problems):
    """Compare v^T J u both ways along ``num_directions`` random directions."""
    from minigrad.tensor import Tensor

    rng = np.random.default_rng(options.seed)
    n_dir = options.num_directions
    tensors = [t.tensor for t in targets]
    # Cotangents, rounded to each output's dtype so both sides use the same v.
    cot = rng.standard_normal((n_dir, evaluator.size))
    for n, out in enumerate(checked):
        block = evaluator.block(n)
        cot[:, block] = cot[:, block].astype(out.dtype).astype(np.float64)
    # Analytical: one backward per direction and output gives J^T v for every input.
    vjp = [np.zeros((len(checked), n_dir, t.data.size)) for t in tensors]
    try:
        for n, out in enumerate(checked):
            if not out.requires_grad:
                continue
            for d in range(n_dir):
                v = Tensor._make(
                    cot[d, evaluator.block(n)].astype(out.dtype).reshape(out.shape), False, None
                )
                grads = options.backward(out, tensors, v, retain_graph=True, allow_unused=True)
                for i, g in enumerate(grads):
                    if g is not None:
                        vjp[i][n, d] = g.data.reshape(-1)
                if d == 0:
                    again = options.backward(out, tensors, v, retain_graph=True, allow_unused=True)
                    for i, g in enumerate(again):
                        spread = _max_difference(vjp[i][n, 0], _dense(g, tensors[i]))
                        if not spread <= options.nondet_tol:
                            problems.append(
                                "Backward is not deterministic: the gradient of output "
                                f"{evaluator.positions[n]} with respect to input {i} "
                                f"changed by {spread:.3g} when run again (nondet_tol="
                                f"{options.nondet_tol:g})."
                            )
    except Exception as err:
        problems.append(f"Backward raised: {type(err).__name__}: {err}")
        return []
    pairs = []
    for i, t in enumerate(targets):
        size = t.tensor.data.size
        directions = rng.standard_normal((n_dir, size))
        values = np.empty((n_dir, 4, evaluator.size))
        shifts = np.empty((n_dir, 4, size))
        for d in range(n_dir):
            values[d], shifts[d] = directional_values(
                evaluator, t.tensor.data, directions[d], steps[i]
            )
        # The realized direction of the central difference at h.
        w = (shifts[:, 0] - shifts[:, 1]) / (2.0 * steps[i])  # (n_dir, n_in)
        w_norm = np.sqrt(np.sum(w * w, axis=1))
        for n, out in enumerate(checked):
            block = evaluator.block(n)
            v = cot[:, block]
            # Rounding happens in the computation, at the output's precision (the input's
            # step is realized exactly); lower precision inside is measured by kappa.
            noise_eps = machine_eps(out.dtype)
            scale_out = _output_scale(base[block])
            diffs, jvp_norm = analyse_directional(
                values[:, :, block], base[block], v, noise_eps, scale_out, steps[i]
            )
            analytical = np.sum(vjp[i][n] * w, axis=1)
            ana_noise = 16 * machine_eps(t.tensor.dtype) * np.sum(np.abs(vjp[i][n] * w), axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                norm = w_norm * np.sqrt(np.sum(v * v, axis=1))
                norm = np.where(norm > 0, norm, 1.0)
                diffs.central, diffs.right, diffs.left = (
                    diffs.central / norm,
                    diffs.right / norm,
                    diffs.left / norm,
                )
                diffs.error = (diffs.error + ana_noise) / norm
                # The typical size of v^T J u for unit u and v, for the relative tolerance.
                typical = jvp_norm / (
                    np.where(w_norm > 0, w_norm, 1.0) * np.sqrt(max(block.stop - block.start, 1))
                )
            pairs.append(
                _pair_result(
                    n,
                    out,
                    t,
                    evaluator,
                    names,
                    diffs,
                    analytical / norm,
                    diffs.error,
                    options,
                    None,
                    scale=typical,
                )
            )
    return pairs


# ---------------------------------------------------------------------------- report
def _pair_result(
    n, out, target, evaluator, names, diffs, analytical, error, options, extra_failure, scale
):
    numerical = diffs.central
    status = classify(diffs, analytical, error, options.atol, options.rtol, scale)
    verdict = pair_verdict(status, numerical, analytical, error, options.atol)
    counts = dict(zip(STATUS_NAMES.values(), np.bincount(status.ravel(), minlength=4).tolist()))
    with np.errstate(invalid="ignore"):
        abs_err = np.abs(numerical - analytical)
    max_abs = float(np.nanmax(abs_err)) if abs_err.size else 0.0
    finite_err = error[np.isfinite(error)]
    fd_error = float(finite_err.max()) if finite_err.size else 0.0
    reason = _reason(verdict, status, counts, numerical, error, out, target, options, diffs.step)
    if extra_failure is not None:
        verdict = "failed"
        reason = extra_failure if counts["failed"] == 0 else reason + "; and " + extra_failure
    _, idx = worst_entries(
        status, numerical, analytical, error, options.atol, options.rtol, WORST, scale
    )
    worst = [
        _entry(k, status, numerical, analytical, error, diffs, out, target, options, scale)
        for k in idx
    ]
    return PairResult(
        output=evaluator.positions[n],
        output_name=names[evaluator.positions[n]],
        output_shape=tuple(out.shape),
        input=target.position,
        input_name=target.name,
        input_shape=tuple(target.tensor.shape),
        dtype=target.tensor.dtype,
        verdict=verdict,
        reason=reason,
        step=diffs.step,
        max_abs_error=max_abs,
        fd_error=fd_error,
        counts=counts,
        worst=worst,
        fast_mode=options.fast_mode,
    )


def _entry(k, status, numerical, analytical, error, diffs, out, target, options, scale):
    at = np.unravel_index(int(k), numerical.shape)
    if options.fast_mode:
        out_ix, in_ix = (), (int(k),)
    else:
        out_ix = tuple(int(x) for x in np.unravel_index(at[0], out.shape))
        in_ix = tuple(int(x) for x in np.unravel_index(at[1], target.tensor.shape))
    num, ana = float(numerical[at]), float(analytical[at])
    scale_k = float(np.broadcast_to(scale, numerical.shape)[at])
    abs_err = abs(num - ana)
    return Entry(
        output_index=out_ix,
        input_index=in_ix,
        numerical=num,
        analytical=ana,
        abs_error=abs_err,
        rel_error=abs_err / abs(num) if num != 0 else (0.0 if abs_err == 0 else float("inf")),
        tolerance=float(tolerance(num, options.atol, options.rtol, scale_k)),
        fd_error=float(error[at]),
        status=STATUS_NAMES[int(status[at])],
        left=float(diffs.left[at]),
        right=float(diffs.right[at]),
    )


def _reason(verdict, status, counts, numerical, error, out, target, options, step) -> str:
    total = status.size
    what = "directions" if options.fast_mode else "entries"
    if verdict == "passed":
        return f"all {total} {what} agree within atol + rtol*|numerical|"
    if verdict == "failed":
        text = (
            f"{counts['failed']} of {total} {what} differ by more than atol + "
            "rtol*|numerical| plus the estimated finite-difference error"
        )
        if not out.requires_grad:
            text += (
                "; the output does not require grad, so backward never reached this input: "
                "the computation was detached (detach(), NumPy, no_grad, or a backward "
                "not written with Tensor operations)"
            )
        return text
    if verdict == "vacuous":
        if total == 0:
            return "there is nothing to compare (an empty input or output)"
        text = (
            "both Jacobians are zero (every entry within atol): a backward that returned "
            "zeros would pass too, so nothing was checked"
        )
        if out.data.size == 1:
            text += (
                ". A scalar such as y.sum() of a normalized y is constant; reduce with "
                "random weights, (y * w).sum(), or check y itself"
            )
        return text
    if verdict == "inconclusive":
        mask = status == INCONCLUSIVE
        with np.errstate(invalid="ignore"):
            worst_error = float(np.nanmax(np.where(np.isfinite(error[mask]), error[mask], 0)))
        not_finite = int(np.sum(~np.isfinite(numerical[mask])))
        text = (
            f"{counts['inconclusive']} of {total} {what} cannot be decided: the estimated "
            f"finite-difference error (up to {worst_error:.1e}) is larger than the "
            "tolerance or than the disagreement"
        )
        if not_finite:
            text += f"; {not_finite} are not finite at x +- step"
        if target.tensor.dtype != np.float64:
            text += (
                f" ({target.tensor.dtype} rounding: check in float64, or loosen atol to "
                f"about {_round_up(worst_error)})"
            )
        elif np.isfinite(worst_error):
            text += (
                f" (rounding of outputs as large as {np.nanmax(np.abs(out.data)):.2g} limits "
                f"what a step of {step:g} resolves: pass a larger eps, or atol of about "
                f"{_round_up(worst_error)})"
            )
        return text
    return (
        f"{counts['non-differentiable']} of {total} {what} sit where the function is not "
        "differentiable (the one-sided derivatives differ, e.g. relu or abs at 0, max with "
        "ties); the analytical values there are valid one-sided derivatives. The other "
        "entries agree"
    )


# ---------------------------------------------------------------------------- helpers
def _output_scale(values: np.ndarray) -> np.ndarray:
    """The magnitude that sets each output element's rounding: its own size, and at least
    the median size of its output tensor (an element that happens to be near zero is
    still computed from intermediates of the usual size). Systematic amplification,
    such as cancellation of large terms, is measured separately (``kappa``)."""
    mags = np.abs(np.nan_to_num(values, nan=0.0, posinf=0.0, neginf=0.0))
    return np.maximum(mags, np.median(mags) if mags.size else 0.0)


def _dense(g, tensor) -> np.ndarray:
    if g is None:
        return np.zeros(tensor.data.size)
    return g.data.reshape(-1).astype(np.float64)


def _max_difference(a: np.ndarray, b: np.ndarray) -> float:
    if a.size == 0:
        return 0.0
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    if same.all():
        return 0.0
    with np.errstate(invalid="ignore"):
        d = np.abs(a - b)[~same]
    return float(np.nanmax(d)) if np.isfinite(d).any() else float("inf")


def _round_up(x: float) -> str:
    if not np.isfinite(x) or x <= 0:
        return "a larger value"
    return f"{10 ** np.ceil(np.log10(x)):.0e}"

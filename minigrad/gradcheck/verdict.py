"""How gradcheck decides: one status per Jacobian entry, one verdict per (output, input).

For each entry, with D the numerical derivative, E its estimated error (see
``numeric``) and A the analytical one (the core's rule, ``core.tolerance``, with E):

    tolerance  tol = atol + rtol * |D|
    passed         |D - A| <= tol  and  E <= tol    (agreement, and D is precise enough
                                                     to vouch for it)
    failed         |D - A| >  tol + E               (no rounding or truncation explains
                                                     it), where the differences converge
    inconclusive   otherwise                        (the finite difference cannot tell),
                                                     and where the step is too wide
    non-differentiable
                   the one-sided derivatives differ by more than tol + 2E, their jump does
                   not shrink with the step as a smooth function's would, the central
                   differences converge, and A lies between them (a valid one-sided
                   derivative or subgradient). If A lies outside, the entry is failed.

Entries this rule fails or leaves undecided get a second look at smaller steps
(``steps``, passed in as ``second_look``): its verdict replaces this one, and where
the differences at no step agree the entry is inconclusive, never failed.

A forward that loses precision (its rounding noise a thousand times what rounding at
the input's dtype explains) is said in the reason; its undecided entries stay
inconclusive, in float64 as in lower precision.

A (output, input) pair is *failed* if any entry failed; otherwise *vacuous* if a
backward returning zeros would have passed too (every |A| <= atol and every
|D| <= atol + E); otherwise *inconclusive* if any entry was; otherwise
*non-differentiable* if any entry was; otherwise *passed*.

Most entries of a large Jacobian are structural zeros (D = A = 0 exactly, the output
did not move); they pass when E <= atol + rtol * (the largest |D| of their output), else
they are inconclusive, so the full rule runs on the others only.
"""

from __future__ import annotations

import numpy as np

from minigrad.gradcheck import core
from minigrad.gradcheck.report import Entry, PairResult

#: How many entries the report lists per pair.
WORST = 5

#: A forward whose rounding noise is this many times what rounding at its dtype
#: explains has lost at least three digits (float32 arithmetic inside a float64
#: function loses about eight, float16 inside float32 about four).
LOST_PRECISION = 1e3

PASSED, INCONCLUSIVE, NONDIFF, FAILED = 0, 1, 2, 3
#: Why the smaller steps (``steps``) left an entry inconclusive: their differences never
#: agree (noise), they disagree beyond rounding (the function changes within the step),
#: or the output moved only at larger steps (its rounding hides the slope).
NOISE, WITHIN_STEP, HIDDEN = 1, 2, 3

STATUS_NAMES = {
    PASSED: "passed",
    INCONCLUSIVE: "inconclusive",
    NONDIFF: "non-differentiable",
    FAILED: "failed",
}


def tolerance(numerical, atol: float, rtol: float, scale=0.0):
    """The allowed |numerical - analytical|: atol + rtol * max(|D|, scale) (the core's
    tolerance; ``scale`` is fast mode's typical size of a projection)."""
    return core.tolerance(np.maximum(np.abs(numerical), scale), atol, rtol)


def classify(diffs, analytical, error, atol: float, rtol: float, scale=0.0) -> np.ndarray:
    """The status of every entry: PASSED, INCONCLUSIVE, NONDIFF or FAILED (int8 array).

    ``scale`` (fast mode) raises the relative part of the tolerance to
    ``rtol * max(|D|, scale)``, where scale is the typical size of a projection.
    """
    d = diffs.central
    # Structural zeros (D = A = 0, the output did not move): whatever slope hides below
    # the resolution is judged against the output's largest derivative.
    floor = atol + rtol * np.asarray(diffs.row_scale)
    status = np.where(error <= floor, PASSED, INCONCLUSIVE).astype(np.int8)
    interesting = diffs.coupled | (d != 0) | (analytical != 0) | ~diffs.finite
    interesting |= ~np.isfinite(analytical)
    idx = np.flatnonzero(interesting)
    if idx.size == 0:
        return status
    flat = status.reshape(-1)
    d, a, e = (np.ravel(x)[idx] for x in (d, analytical, error))
    right, left = np.ravel(diffs.right)[idx], np.ravel(diffs.left)[idx]
    residual, finite = np.ravel(diffs.kink_residual)[idx], np.ravel(diffs.finite)[idx]
    if np.ndim(scale):
        scale = np.ravel(np.broadcast_to(scale, diffs.central.shape))[idx]
    with np.errstate(invalid="ignore", over="ignore"):
        tol = tolerance(d, atol, rtol, scale)
        diff = np.abs(d - a)
        sub = np.full(idx.size, INCONCLUSIVE, dtype=np.int8)
        sub[(diff <= tol) & (e <= tol)] = PASSED
        sub[diff > tol + e] = FAILED
        # A kink: the one-sided derivatives differ by more than the tolerance and twice
        # the error estimate (a one-sided difference is noisier than a central one), and
        # the jump does not grow with the step as a smooth function's h g'' would.
        jump = np.abs(right - left)
        shape = diffs.central.shape
        converging = np.ravel(np.broadcast_to(diffs.converging, shape))[idx]
        smooth = np.ravel(np.broadcast_to(diffs.smooth, shape))[idx]
        # (A kink's central differences converge, relu's are 1/2 at every step; a
        # pole's do not.)
        kink = finite & converging & (jump > tol + 2 * e) & (residual > 0.25 * jump + 2 * e)
        if kink.any():
            low = np.minimum(left, right) - tol - e
            high = np.maximum(left, right) + tol + e
            between = (a >= low) & (a <= high)
            sub[kink & between] = NONDIFF
            sub[kink & ~between] = FAILED
        # A failure needs central(h) to be evidence. Where the differences at h, 2h, 4h
        # do not converge, or (away from a kink) the slope changes by more than itself
        # within a step, the step is wide against the function's own scale or crosses
        # a pole: the entry is inconclusive.
        wide = ~converging | (~smooth & ~kink)
        sub[(sub == FAILED) & wide] = INCONCLUSIVE
        # A non-finite numerical value (the function is not finite at x +- h) decides
        # nothing; a NaN/inf analytical value where the numerical one is finite is wrong.
        sub[~finite] = INCONCLUSIVE
        sub[finite & ~np.isfinite(a)] = FAILED
    flat[idx] = sub
    # Input elements that are not finite (a mask's -inf) cannot be moved: not checked.
    status[:, np.broadcast_to(diffs.frozen, status.shape[1:])] = PASSED
    return status


def pair_verdict(status, numerical, analytical, error, atol: float) -> str:
    """The verdict of one (output, input) pair from its entries' statuses."""
    if status.size == 0:
        return "vacuous"
    if (status == FAILED).any():
        return "failed"
    with np.errstate(invalid="ignore"):
        zero_analytical = np.all(np.abs(analytical) <= atol)
        zero_numerical = zero_analytical and np.all(np.abs(numerical) <= atol + error)
    if zero_numerical:
        return "vacuous"
    if (status == INCONCLUSIVE).any():
        return "inconclusive"
    if (status == NONDIFF).any():
        return "non-differentiable"
    return "passed"


def overall_verdict(verdicts: list[str], problems: list[str]) -> str:
    """The verdict of a whole check: failed > inconclusive > non-differentiable > passed;
    vacuous only when every pair is."""
    if problems or "failed" in verdicts:
        return "failed"
    if verdicts and all(v == "vacuous" for v in verdicts):
        return "vacuous"
    for v in ("inconclusive", "non-differentiable"):
        if v in verdicts:
            return v
    return "passed"


def worst_entries(status, numerical, analytical, error, atol, rtol, limit: int, scale=0.0):
    """Flat indices of the entries worth showing, worst first: failed entries by how far
    beyond tolerance they are, else inconclusive ones by disagreement (then error),
    else non-differentiable ones."""
    for code in (FAILED, INCONCLUSIVE, NONDIFF):
        idx = np.flatnonzero(status == code)
        if idx.size == 0:
            continue
        d, a, e = (np.ravel(x)[idx] for x in (numerical, analytical, error))
        if np.ndim(scale):
            scale = np.ravel(np.broadcast_to(scale, np.shape(numerical)))[idx]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            tol = tolerance(d, atol, rtol, scale)
            diff = np.nan_to_num(np.abs(d - a), nan=np.inf)
            e = np.nan_to_num(e, nan=np.inf, posinf=np.finfo(float).max)
            if code == FAILED:
                order = np.argsort(-(diff / (tol + e)), kind="stable")
            elif code == INCONCLUSIVE:
                order = np.lexsort((-e / tol, -(diff / tol)))
            else:
                order = np.argsort(-diff, kind="stable")
        return code, idx[order[:limit]]
    return PASSED, np.zeros(0, dtype=int)


# ---------------------------------------------------------------------------- the report
def pair_result(
    n,
    out,
    target,
    evaluator,
    names,
    diffs,
    analytical,
    error,
    options,
    extra_failure,
    scale,
    precision_loss=1.0,
    second_look=None,
):
    numerical = diffs.central
    status = classify(diffs, analytical, error, options.atol, options.rtol, scale)
    # Entries the step h could not decide, or failed, get a second look at smaller
    # steps (``steps.revisit``): where the estimates never agree, they are inconclusive.
    why = {}
    if second_look is not None:
        found = second_look(status)
        if found.flat.size:
            status.flat[found.flat] = found.status
            why = {c: int(np.count_nonzero(found.why == c)) for c in (NOISE, WITHIN_STEP, HIDDEN)}
            # Where a smaller step decided the entry, its estimate replaces the first;
            # an entry no step settles is reported as the first step saw it.
            bounded = np.isfinite(found.error) & (found.status != INCONCLUSIVE)
            bounded &= found.status != NONDIFF
            numerical, error = numerical.copy(), error.copy()
            numerical.flat[found.flat[bounded]] = found.numerical[bounded]
            error.flat[found.flat[bounded]] = found.error[bounded]
    # A forward that loses precision leaves entries undecided: that is said, and the
    # entries stay inconclusive, in float64 as in lower precision.
    undecided = (status == INCONCLUSIVE) & np.isfinite(error)
    explained = why.get(WITHIN_STEP, 0) + why.get(HIDDEN, 0)
    lost = precision_loss > LOST_PRECISION and int(undecided.sum()) > explained
    verdict = pair_verdict(status, numerical, analytical, error, options.atol)
    counts = dict(zip(STATUS_NAMES.values(), np.bincount(status.ravel(), minlength=4).tolist()))
    with np.errstate(invalid="ignore"):
        abs_err = np.abs(numerical - analytical)
    max_abs = float(np.nanmax(abs_err)) if abs_err.size else 0.0
    finite_err = error[np.isfinite(error)]
    fd_error = float(finite_err.max()) if finite_err.size else 0.0
    frozen = np.broadcast_to(diffs.frozen, status.shape[1:])
    reason = _reason(verdict, status, counts, error, out, target, options, diffs.step, frozen)
    if verdict == "inconclusive":
        reason += _ladder_reason(why, diffs.step)
        if why.get(WITHIN_STEP):
            reason += _flat_slice_hint(target.tensor._data, status == INCONCLUSIVE, diffs.step)
    reason += _not_finite_note(frozen, status.shape[0], out)
    if lost:
        reason = _lost_precision_reason(precision_loss, target, reason, diffs.step)
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
        precision_loss=float(precision_loss),
    )


def _ladder_reason(why: dict, step: float) -> str:
    """What the smaller steps showed about the entries they left undecided."""
    parts = []
    steps = f"at steps from {2 * step:.2g} down to {step / 256:.2g}"
    if why.get(NOISE):
        parts.append(
            f"for {why[NOISE]} of them the central differences {steps} never agree within "
            "the tolerance"
        )
    if why.get(WITHIN_STEP):
        parts.append(
            f"for {why[WITHIN_STEP]} of them the central differences {steps} disagree with each "
            "other by more than rounding explains: the function changes within the step "
            "(it is steeper than the step resolves, or a kink lies within it)"
        )
    if why.get(HIDDEN):
        parts.append(
            f"for {why[HIDDEN]} of them the output does not move at the steps below "
            f"{step:.2g}: its rounding (at the precision of a larger value it is computed "
            "from, such as a residual stream) hides the slope there, and the steps 8 and 32 "
            "times larger do not settle it"
        )
    return "".join("; " + p for p in parts)


def _flat_slice_hint(data: np.ndarray, undecided: np.ndarray, step: float) -> str:
    """Where the undecided entries' input elements lie in a slice of nearly equal values
    (spread below ten steps), say so: a normalization over such a slice changes on the
    scale sqrt(var + eps), which a tiny eps makes smaller than the step."""
    columns = np.flatnonzero(undecided.any(axis=0))
    if columns.size == 0 or data.ndim == 0:
        return ""
    at = np.unravel_index(columns, data.shape)
    best = None
    with np.errstate(invalid="ignore", over="ignore"):
        values = np.where(np.isfinite(data), data, np.nan).astype(np.float64)
        for axis in range(data.ndim):
            if data.shape[axis] < 2:
                continue
            spread = np.nanstd(values, axis=axis, keepdims=True)
            spread = np.broadcast_to(spread, data.shape)[at]
            k = int(np.nanargmin(spread)) if np.isfinite(spread).any() else None
            if k is not None and (best is None or spread[k] < best[0]):
                best = (float(spread[k]), axis, tuple(int(i[k]) for i in at))
    if best is None or not best[0] < 10 * step:
        return ""
    spread, axis, index = best
    return (
        f". The input is nearly constant along axis {axis} through {list(index)} (standard "
        f"deviation {spread:.2g}, below the step {step:.2g}): a normalization over that "
        "axis, such as LayerNorm, RMSNorm or BatchNorm of a padding row or a constant "
        "feature, has a near-zero variance there and, with a tiny eps, changes on the "
        "scale sqrt(var + eps), smaller than the step: the function is smooth and the "
        "step too wide (pass the check a smaller eps, or give the norm a larger one)"
    )


def _not_finite_note(frozen: np.ndarray, n_out: int, out) -> str:
    """The entries left out because an input element is not finite, and the outputs that
    are not finite (a mask's -inf): they stay as they are under every step."""
    parts = []
    if frozen.any():
        parts.append(
            f"{int(frozen.sum())} input elements are not finite (-inf or nan, as a mask "
            "writes them): a step cannot move them, so their "
            f"{int(frozen.sum()) * n_out} entries were not checked"
        )
    data = out._data
    bad = int(data.size - np.count_nonzero(np.isfinite(data))) if data.dtype.kind == "f" else 0
    if bad:
        parts.append(
            f"{bad} output elements are not finite (-inf or nan, as a mask writes them): "
            "they stay so at every step, so their derivatives are 0"
        )
    return "".join("; " + p for p in parts)


def _lost_precision_reason(loss, target, reason, step) -> str:
    digits = int(np.floor(np.log10(loss)))
    total = int(np.round(-np.log10(np.finfo(target.tensor.dtype).eps)))
    what = (
        f"the forward loses precision: its outputs are about {loss:.0e} times noisier than "
        f"{target.tensor.dtype} rounding of values of their size explains (about {digits} "
        f"of {total} digits lost: computed in lower "
        "precision, or a subtraction of large, nearly equal terms: compute the forward in "
        "float64, or avoid the cancellation)"
    )
    # Structure the step cannot resolve (a pole, a change on the scale of the step)
    # looks like noise too: say both.
    return (
        f"{reason}; either {what}, or the step {step:.2g} is wide against the "
        "scale on which the function changes"
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


def _reason(verdict, status, counts, error, out, target, options, step, frozen) -> str:
    total = status.size
    what = "directions" if options.fast_mode else "entries"
    if verdict == "passed":
        checked = total - int(frozen.sum()) * status.shape[0]
        if checked < total:
            return f"all {checked} checked {what} agree within atol + rtol*|numerical|"
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
        if out._data.size == 1:
            text += (
                ". A scalar such as y.sum() of a normalized y is constant; reduce with "
                "random weights, (y * w).sum(), or check y itself"
            )
        return text
    if verdict == "inconclusive":
        return _inconclusive_reason(status, error, out, target, what, step)
    return (
        f"{counts['non-differentiable']} of {total} {what} are at points where the function "
        "is not differentiable (the one-sided derivatives differ, e.g. relu or abs at 0, max with "
        "ties); the analytical values there are valid one-sided derivatives. The other "
        "entries agree"
    )


def _inconclusive_reason(status, error, out, target, what, step) -> str:
    total = status.size
    mask = status == INCONCLUSIVE
    edge = mask & ~np.isfinite(error)  # not finite one step away
    noisy = mask & ~edge
    parts = []
    if noisy.any():
        worst_error = float(np.max(error[noisy]))
        text = (
            f"{int(noisy.sum())} of {total} {what} cannot be decided: the estimated "
            f"finite-difference error (up to {worst_error:.1e}) is larger than the "
            "tolerance or than the disagreement"
        )
        if target.tensor.dtype != np.float64:
            text += (
                f" ({target.tensor.dtype} rounding: check in float64, or loosen atol to "
                f"about {_round_up(worst_error)})"
            )
        else:
            largest = float(np.nanmax(np.abs(out._data))) if out._data.size else 0.0
            if worst_error <= 100 * np.finfo(np.float64).eps * largest / step:
                text += (
                    f" (rounding of outputs as large as {largest:.2g} limits what a step of "
                    f"{step:g} resolves: pass a larger eps, or atol of about "
                    f"{_round_up(worst_error)})"
                )
            else:
                text += (
                    f" (the function curves too much over a step of {step:g}: pass a smaller eps)"
                )
        parts.append(text)
    if edge.any():
        parts.append(
            f"{int(edge.sum())} of {total} {what} cannot be decided because the function is "
            "not finite within two steps of the input (a domain edge, such as sqrt or log "
            "near 0): move the input away from it or pass a smaller eps"
        )
    return "; ".join(parts)


def _round_up(x: float) -> str:
    if not np.isfinite(x) or x <= 0 or x > 1e300:
        return "a larger value"
    return f"{10 ** np.ceil(np.log10(x)):.0e}"

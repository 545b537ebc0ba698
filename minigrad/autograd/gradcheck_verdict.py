"""How gradcheck decides: one status per Jacobian entry, one verdict per (output, input).

For each entry, with D the numerical derivative, E its estimated error (see
``gradcheck_numeric``) and A the analytical one:

    tolerance  tol = atol + rtol * |D|
    passed         |D - A| <= tol  and  E <= tol    (agreement, and D is precise enough
                                                     to vouch for it)
    failed         |D - A| >  tol + E               (no rounding or truncation explains it)
    inconclusive   otherwise                        (the finite difference cannot tell)
    non-differentiable
                   the one-sided derivatives differ by more than tol + 2E, their jump does
                   not shrink with the step as a smooth function's would, and A lies
                   between them (a valid one-sided derivative or subgradient). If A lies
                   outside, the entry is failed.

A (output, input) pair is *failed* if any entry failed; otherwise *vacuous* if a
backward returning zeros would have passed too (every |A| <= atol and every
|D| <= atol + E); otherwise *inconclusive* if any entry was; otherwise
*non-differentiable* if any entry was; otherwise *passed*.

Most entries of a large Jacobian are structural zeros (D = A = 0 exactly); they can
only pass or, when E > atol, be inconclusive, so the full rule runs on the others only.
"""

from __future__ import annotations

import numpy as np

PASSED, INCONCLUSIVE, NONDIFF, FAILED = 0, 1, 2, 3
STATUS_NAMES = {
    PASSED: "passed",
    INCONCLUSIVE: "inconclusive",
    NONDIFF: "non-differentiable",
    FAILED: "failed",
}


def tolerance(numerical, atol: float, rtol: float, scale=0.0):
    """The allowed |numerical - analytical|: atol + rtol * max(|D|, scale)."""
    return atol + rtol * np.maximum(np.abs(numerical), scale)


def classify(diffs, analytical, error, atol: float, rtol: float, scale=0.0) -> np.ndarray:
    """The status of every entry: PASSED, INCONCLUSIVE, NONDIFF or FAILED (int8 array).

    ``scale`` (fast mode) raises the relative part of the tolerance to
    ``rtol * max(|D|, scale)``, where scale is the typical size of a projection.
    """
    d = diffs.central
    status = np.where(error <= atol, PASSED, INCONCLUSIVE).astype(np.int8)
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
        kink = finite & (jump > tol + 2 * e) & (residual > 0.25 * jump + 2 * e)
        if kink.any():
            low = np.minimum(left, right) - tol - e
            high = np.maximum(left, right) + tol + e
            between = (a >= low) & (a <= high)
            sub[kink & between] = NONDIFF
            sub[kink & ~between] = FAILED
        # A non-finite numerical value (the function is not finite at x +- h) decides
        # nothing; a NaN/inf analytical value where the numerical one is finite is wrong.
        sub[~finite] = INCONCLUSIVE
        sub[finite & ~np.isfinite(a)] = FAILED
    flat[idx] = sub
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

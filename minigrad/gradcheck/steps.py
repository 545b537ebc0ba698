"""A ladder of steps: decide the entries that the first step could not.

The error estimate of ``numeric`` holds while central(h) is in its asymptotic regime:
truncation shrinking as h^2, rounding noise growing as 1/h. A function that changes on
a scale comparable to the step (a steep ``tanh``, a LayerNorm of a nearly constant
row with a tiny eps) is outside it: its differences at h, 2h, 4h change in ways that
look like noise, the measured noise (kappa) comes out huge, and no entry can be
trusted, neither as a pass nor as a failure. A forward that loses digits to
cancellation (a naive variance around a large mean) is noisy for real.

The ladder tells them apart by taking smaller steps. For every column (input element)
holding an entry that failed or stayed undecided at h, the central differences are
taken at the steps

    s_p = 2h, h, h/4, h/16, h/64, h/256        (p = 0 .. 5)

and each pair of neighbours is compared, ``d_p = |c_p - c_(p+1)|``. Truncation makes
d shrink (16 times per level once the step is small against the function's scale);
rounding noise makes it grow (4 times per level, as 1/s). The noise at level p is
measured from the smaller steps, where it dominates: ``n_p = max over q > p of
d_q * s_(q+1) / s_p``. The error of c_p is then bounded by

    E_p = 1.5 d_p + 3 n_p

(1.5 d_p covers truncation, which is 4/3 of d for a ratio 2 and 16/15 for 4; 3 n_p
the noise). The level with the smallest bound is the one where the estimates agree
best: its c_p and E_p replace the first step's. An entry passes when
``|c_p - A| <= tol`` and ``E_p <= tol``, fails when ``|c_p - A| > tol + E_p``, and is
inconclusive otherwise: where the estimates never agree within the tolerance, the
entry is inconclusive, never failed. The last pair only witnesses noise.

Cost: eight calls of the function per revisited column (the 2h step is usually known
already). Kinks (non-differentiable entries) and non-finite entries are left as they
were.
"""

from __future__ import annotations

import numpy as np

from minigrad.gradcheck.numeric import stencil
from minigrad.gradcheck.verdict import FAILED, INCONCLUSIVE, PASSED, tolerance

#: The steps of the ladder, as multiples of h.
MULTIPLES = (2.0, 1.0, 1 / 4, 1 / 16, 1 / 64, 1 / 256)


def ladder(stencil_h, columns: np.ndarray) -> tuple:
    """Central differences at every step of the ladder for these columns.

    Returns ``(values, steps)``: values (levels, n_out, len(columns)), the central
    differences; steps (levels, len(columns)), the half-widths really applied (``x +-
    s`` is rounded to the input's dtype). A level whose step did not shrink below
    three quarters of the previous one (the input's spacing is reached) is NaN, and so
    is an output that did not move at all at a step below h.
    """
    stencil_h.refine(columns)  # central(2h) for these columns
    small = [m for m in MULTIPLES[2:] for m in (m, -m)]
    values, offsets = stencil(stencil_h.evaluator, stencil_h.work, stencil_h.step, columns, small)
    out = np.empty((len(MULTIPLES), stencil_h.central.shape[0], len(columns)))
    steps = np.empty((len(MULTIPLES), len(columns)))
    out[0], steps[0] = stencil_h.central2[:, columns], 2.0 * stencil_h.h[columns]
    out[1], steps[1] = stencil_h.central[:, columns], stencil_h.h[columns]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for level in range(2, len(MULTIPLES)):
            k = 2 * (level - 2)
            half = 0.5 * (offsets[k] - offsets[k + 1])  # realized half-width
            shrunk = half <= 0.75 * steps[level - 1]
            steps[level] = np.where(shrunk, half, np.nan)
            central = (values[k] - values[k + 1]) / (2.0 * steps[level])[:, None]
            # An output that did not move at all says nothing at this step (a slope
            # below its rounding hides there): no estimate.
            central[values[k] == values[k + 1]] = np.nan
            out[level] = central.T
    return out, steps


def best_level(values: np.ndarray, steps: np.ndarray, unit: np.ndarray, first=True) -> tuple:
    """(numerical, error, level) per entry: the estimate with the smallest error bound.

    values, steps: (levels, n_entries); unit: (n_entries,), one rounding unit at the
    first step ``steps[1]``. Two kinds of candidates (the module docstring):

    - c_(p+1) after the gap halved from d_(p-1) to d_p (truncation shrinking, so c_(p+1)
      is off by less than d_p), with ``E = d_p + 3 n_(p+1)``, where n_(p+1) is the noise
      at that level seen at the smaller steps; at the last level, with no witness of
      the noise, only after the gap halved twice in a row;
    - where ``first`` (per entry: the first step failed it), also c_0 and c_1, the
      first analysis's steps 2h and h, with ``E = 1.5 d_p + 3 n_p``: a failure found
      there stands only if the noise seen at every smaller step cannot explain it.

    Each bound is at least two rounding units of its step. An entry the first step left
    undecided is decided, if at all, at a smaller step, after the differences showed
    that they converge.
    """
    n = values.shape[1]
    levels, pairs = values.shape[0], values.shape[0] - 1
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        d = np.abs(np.diff(values, axis=0))  # (pairs, n): d_p = |c_p - c_(p+1)|
        # Noise grows as 1/s, so d_q * s_(q+1) is the noise of pair q times a step:
        # below[p] is its largest value over the pairs q >= p (NaN: no witness).
        scaled = np.where(np.isfinite(d), d * steps[1:], np.nan)
        below = np.full((levels, n), np.nan)
        for p in range(pairs - 1, -1, -1):
            below[p] = np.fmax(scaled[p], below[p + 1])
        floor = 2.0 * unit * steps[1] / steps  # (levels, n)
        bounds = np.full((levels, n), np.inf)
        for p in range(pairs):
            if p < 2:
                # c_p at the first analysis's steps, its noise witnessed by the pairs
                # below p (so a failure there is confirmed only if noise cannot
                # explain it at any step).
                plain = 1.5 * d[p] + 3.0 * below[p + 1] / steps[p]
                bounds[p] = np.where(first, np.maximum(plain, floor[p]), np.inf)
            if p == 0:
                continue
            # c_(p+1) after the gap halved; its noise witnessed by pairs p+1 and below.
            # Exactly equal neighbours are no evidence: a quantized output (the same
            # number of rounding units at two steps) repeats itself.
            halved = (d[p] <= 0.5 * d[p - 1]) & (d[p] > 0)
            witness = below[p + 1] > 0
            twice = p >= 2 and halved & (d[p - 1] <= 0.5 * d[p - 2])
            walked = np.where(witness, d[p] + 3.0 * below[p + 1] / steps[p + 1], d[p])
            walked = np.where(halved & (witness | twice), walked, np.inf)
            bounds[p + 1] = np.fmin(bounds[p + 1], np.maximum(walked, floor[p + 1]))
        bounds = np.where(np.isnan(bounds), np.inf, bounds)
    level = np.argmin(bounds, axis=0)
    pick = np.arange(n)
    return values[level, pick], bounds[level, pick], level


def revisit(stencil_h, rows: slice, status, analytical, unit, kappa, atol: float, rtol: float):
    """Re-decide the failed and undecided entries of one (output, input) block.

    ``unit`` is one rounding unit of each entry at h (``Stencil.resolution``) and
    ``kappa`` the measured amplification of rounding: an estimate at step s is never
    trusted below ``4 kappa`` units at h, scaled by h / s. (The caller passes 1 for a
    kappa that would make the noise a visible fraction of the outputs: that is the
    first analysis mistaking a change on the scale of the step for noise.) Entries
    whose analytical value is not finite keep their verdict. Returns ``(flat indices,
    numerical, error, status, step multiple)`` for the revisited entries (empty arrays
    when there are none).
    """
    undecided = (status == FAILED) | (status == INCONCLUSIVE)
    flat = np.flatnonzero(undecided & np.isfinite(analytical))
    if flat.size == 0:
        return flat, np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int8), np.zeros(0)
    n_in = status.shape[1]
    columns = np.unique(flat % n_in)
    values, steps = ladder(stencil_h, columns)
    r, c = np.divmod(flat, n_in)
    position = np.searchsorted(columns, c)
    # An entry the first step failed may be confirmed at 2h or h; one it left
    # undecided is decided, if at all, at a smaller step.
    first = status.reshape(-1)[flat] == FAILED
    units = unit.reshape(-1)[flat] * max(1.0, 2.0 * kappa)
    numerical, error, level = best_level(
        values[:, rows][:, r, position], steps[:, position], units, first
    )
    a = analytical.reshape(-1)[flat]
    new = np.full(flat.size, INCONCLUSIVE, dtype=np.int8)
    with np.errstate(invalid="ignore", over="ignore"):
        tol = tolerance(numerical, atol, rtol)
        diff = np.abs(numerical - a)
        new[(diff <= tol) & (error <= tol)] = PASSED
        new[diff > tol + error] = FAILED
    # Where no step gave a bounded estimate and the output never moved at any step,
    # the first analysis's failure stands (backward says the output depends on an
    # input it does not move with); otherwise the entry is undecided.
    still = values[:, rows][:, r, position]
    never_moved = np.all((still == 0) | np.isnan(still), axis=0)
    unbounded = ~np.isfinite(error)
    new[unbounded] = np.where(first & never_moved, FAILED, INCONCLUSIVE)[unbounded]
    return flat, numerical, error, new, np.array(MULTIPLES)[level]

"""A ladder of steps: decide the entries that the first step could not.

The error estimate of ``numeric`` holds while central(h) is in its asymptotic regime:
truncation shrinking as h^2, rounding noise growing as 1/h. A function that changes on
a scale comparable to the step or below it (a steep ``tanh``, a LayerNorm or BatchNorm
of a nearly constant row with a tiny eps, a ReLU whose kink lies within the step) is
outside it: its differences at h, 2h, 4h change in ways that look like noise, the
measured noise (kappa) comes out huge, and no entry can be trusted, neither as a pass
nor as a failure. A forward that loses digits to cancellation (a naive variance around
a large mean), or whose outputs are rounded at the precision of larger intermediates
(a float32 residual stream), is noisy for real.

The ladder tells them apart by taking smaller steps. For every column (input element)
holding an entry that failed, stayed undecided, or looked like a kink at h, the central
differences are taken at the steps

    s_p = 2h, h, h/4, h/16, h/64, h/256        (p = 0 .. 5)

and each pair of neighbours is compared, ``d_p = |c_p - c_(p+1)|``. Truncation makes
d shrink (16 times per level once the step is small against the function's scale);
rounding noise makes it grow (4 times per level, as 1/s). The noise at level p is
measured from the smaller steps, where it dominates: ``n_p = max over q > p of
d_q * s_(q+1) / s_p``. An output that did not move at all at a step is no estimate of
the slope there, but it is a witness of the noise: its slope hides below the rounding,
so it counts as a central difference of 0 in the d's. The error of c_p is then bounded
by

    E_p = 1.5 d_p + 3 n_p

(1.5 d_p covers truncation, which is 4/3 of d for a ratio 2 and 16/15 for 4; 3 n_p
the noise). A level's estimate is a candidate only if **every smaller step agrees with
it**: ``|c_q - c_p| <= E_p + N_q`` for every q > p, where N_q is the noise at s_q:
three times what the smaller steps witness, or, where nothing does, four rounding
units of a central difference at s_q. Where a smaller step disagrees beyond what
rounding explains, the function changes within the step (steepness, a kink nearby):
c_p measures that change, not the derivative. The candidate with the smallest bound
replaces the first step's estimate. An entry passes when ``|c_p - A| <= tol`` and
``E_p <= tol``, fails when ``|c_p - A| > tol + E_p`` and no smaller step vindicates A
(agrees with it within its own noise, where that noise is small against the
disagreement), and is inconclusive otherwise: where the estimates never agree within
the tolerance, the entry is inconclusive, never failed. The smallest step, with no
smaller one to witness its noise, fails an entry only beyond its rounding ceiling.

Two more cases are settled here:

- **Kinks.** An entry the first step called non-differentiable is decided anew: passed
  or failed where a smaller step resolves the function (a smooth function steeper than
  the step looks like a kink at h); still non-differentiable where the jump between
  the one-sided derivatives stays the same at every step, as at a true kink (ReLU at
  0); otherwise inconclusive (the jump changes with the step: the function changes on
  a scale below it).
- **An output that stops moving.** Where the output does not move at any step below h
  (its rounding, at the precision of a larger value it is computed from, hides the
  change there), a failure found at h or 2h rests on nothing but the first analysis's
  noise estimate, and a slope claimed where the output never moved rests on nothing at
  all. The steps 8h and 32h are taken: the estimate there (its truncation bounded by
  twice the gap between the two, its rounding by an eighth of the change seen at h, or
  by its own size where nothing moved before) must confirm the failure. If the output
  does not move even at 32h, a claimed slope is not there (failed).

Cost: eight calls of the function per revisited column (the 2h step is usually known
already), four more for an output that never moved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from minigrad.gradcheck.numeric import SWING, moved_quotient, output_scale, stencil
from minigrad.gradcheck.verdict import (
    FAILED,
    HIDDEN,
    INCONCLUSIVE,
    NOISE,
    NONDIFF,
    PASSED,
    WITHIN_STEP,
    tolerance,
)

#: The steps of the ladder, as multiples of h.
MULTIPLES = (2.0, 1.0, 1 / 4, 1 / 16, 1 / 64, 1 / 256)

#: Larger steps for an output that did not move at any step of the ladder.
UPWARD = (8.0, 32.0)

#: A smaller step disagrees with a larger one when they differ by more than the larger
#: one's error bound plus this many rounding units of the smaller one (and the noise its
#: own neighbours witness).
CEILING = 4.0

#: Rounding noise of this fraction of an output's size is no rounding (``revisit``).
STRUCTURE = 1e-2


@dataclass
class Ladder:
    """Central differences at every step of the ladder for some columns.

    ``values``, ``moved``, ``jumps``: (levels, n_out, columns); ``steps``: (levels,
    columns), the half-widths really applied (NaN where the step did not shrink below
    three quarters of the previous one: the input's spacing is reached). ``moved`` is
    False where the output did not move at all at that step; ``jumps`` are the
    differences of the one-sided derivatives, right(s) - left(s).
    """

    values: np.ndarray
    moved: np.ndarray
    jumps: np.ndarray
    steps: np.ndarray


@dataclass
class Revisit:
    """What the ladder decided for the revisited entries of one block (flat indices)."""

    flat: np.ndarray
    numerical: np.ndarray
    error: np.ndarray
    status: np.ndarray
    multiple: np.ndarray
    why: np.ndarray  # NOISE, WITHIN_STEP or HIDDEN where status is inconclusive, else 0

    @classmethod
    def empty(cls) -> Revisit:
        none = np.zeros(0)
        return cls(np.zeros(0, dtype=int), none, none, np.zeros(0, dtype=np.int8), none, none)


def ladder(stencil_h, columns: np.ndarray) -> Ladder:
    """The central differences at every step of the ladder for these columns."""
    stencil_h.refine(columns)  # central(2h) for these columns
    small = [m for m in MULTIPLES[2:] for m in (m, -m)]
    got, offsets = stencil(stencil_h.evaluator, stencil_h.work, stencil_h.step, columns, small)
    levels, n_out = len(MULTIPLES), stencil_h.central.shape[0]
    values = np.empty((levels, n_out, len(columns)))
    moved = np.zeros(values.shape, dtype=bool)
    jumps = np.empty(values.shape)
    steps = np.empty((levels, len(columns)))
    values[0], steps[0] = stencil_h.central2[:, columns], 2.0 * stencil_h.h[columns]
    moved[0], jumps[0] = stencil_h.moved2[:, columns], stencil_h.jump2[:, columns]
    values[1], steps[1] = stencil_h.central[:, columns], stencil_h.h[columns]
    moved[1] = stencil_h.moved[:, columns]
    jumps[1] = stencil_h.right[:, columns] - stencil_h.left[:, columns]
    base = stencil_h.base
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for level in range(2, levels):
            k = 2 * (level - 2)
            up, down = got[k], got[k + 1]  # (columns, n_out)
            plus, minus = offsets[k][:, None], offsets[k + 1][:, None]
            half = 0.5 * (offsets[k] - offsets[k + 1])  # realized half-width
            shrunk = half <= 0.75 * steps[level - 1]
            steps[level] = np.where(shrunk, half, np.nan)
            values[level] = moved_quotient(up, down, 2.0 * steps[level][:, None])
            moved[level] = ((up != base) | (down != base)).T & shrunk
            jumps[level] = moved_quotient(up, base, plus) - moved_quotient(base, down, -minus)
    return Ladder(values, moved, jumps, steps)


@dataclass
class Best:
    """``best_level``'s answer per entry: the estimate (``numerical``, its ``error`` bound,
    its ``level``), ``within`` (a smaller step disagrees with h beyond rounding), and per
    level the estimates as witnesses (``witness``, 0 where the output did not move) and
    their ``noise``."""

    numerical: np.ndarray
    error: np.ndarray
    level: np.ndarray
    within: np.ndarray
    witness: np.ndarray
    noise: np.ndarray


def best_level(values, moved, steps, unit, swing, first=True, raw=None) -> Best:
    """The estimate with the smallest error bound that every smaller step agrees with.

    values, moved, steps: (levels, n_entries); unit: (n_entries,), one rounding unit at
    the first step ``steps[1]`` (``raw``: the same without the measured amplification
    kappa, default ``unit``); swing: (levels, n_entries), True where the output
    changed too much at that step for the change to be rounding (``swings``). Two kinds
    of candidates (the module docstring):

    - c_(p+1) after the gap halved from d_(p-1) to d_p (truncation shrinking, so c_(p+1)
      is off by less than d_p), with ``E = d_p + 3 n_(p+1)``, where n_(p+1) is the noise
      at that level seen at the smaller steps; at the last level, with no witness of
      the noise, only after the gap halved twice in a row;
    - where ``first`` (per entry: the first step failed it), also c_0 and c_1, the
      first analysis's steps 2h and h, with ``E = 1.5 d_p + 3 n_p``: a failure found
      there stands only if the noise seen at every smaller step cannot explain it.

    Each bound is at least two rounding units of its step; a level where the output
    did not move offers no candidate. A pair of levels where the output swings is no
    witness of noise. ``within`` is True where a smaller step disagrees with the
    step h by more than its bound and the smaller step's noise: the function changes
    within the step (or the output's rounding hides the slope at the smaller steps).
    """
    n = values.shape[1]
    levels, pairs = values.shape[0], values.shape[0] - 1
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        # A step where the output did not move is a central difference of 0 as a
        # witness of the noise; a level without a realized step is no witness at all.
        witness = np.where(moved, values, 0.0)
        witness = np.where(np.isfinite(steps) & np.isfinite(values), witness, np.nan)
        d = np.abs(np.diff(witness, axis=0))  # (pairs, n): d_p = |c_p - c_(p+1)|
        noise_like = ~(swing[:-1] | swing[1:])
        # Noise grows as 1/s, so d_q * s_(q+1) is the noise of pair q times a step:
        # below[p] is its largest value over the pairs q >= p (NaN: no witness).
        scaled = np.where(np.isfinite(d) & noise_like, d * steps[1:], np.nan)
        below = np.full((levels, n), np.nan)
        for p in range(pairs - 1, -1, -1):
            below[p] = np.fmax(scaled[p], below[p + 1])
        floor = 2.0 * unit * steps[1] / steps  # (levels, n)
        # The noise of level q: what the pairs from q down witness (at the last level
        # with a step: the pair that reaches it), scaled to its step, over two plain
        # rounding units; where nothing witnesses it, the rounding ceiling (with the
        # amplification measured on the whole block, which varies from entry to entry).
        reaching = np.concatenate([np.full((1, n), np.nan), scaled])
        seen = np.where(np.isnan(below), reaching, below)
        raw = unit if raw is None else raw
        noise = np.where(
            seen > 0,
            3.0 * seen / steps + 2.0 * raw * steps[1] / steps,
            CEILING * unit * steps[1] / steps,
        )
        # Two bounds per candidate: ``core`` from the gap that brought the estimate
        # there, which every smaller step must respect (below), and ``bounds`` from
        # the larger of its gaps to either neighbour, which decides: a gap can be small
        # by coincidence where the differences oscillate on their way to the limit.
        gap = np.fmax(d, np.concatenate([d[1:], d[-1:]]))
        core = np.full((levels, n), np.inf)
        bounds = np.full((levels, n), np.inf)
        for p in range(pairs):
            if p < 2:
                # c_p at the first analysis's steps, its noise witnessed by the pairs
                # below p (so a failure there is confirmed only if noise cannot
                # explain it at any step).
                noise_p = 3.0 * np.nan_to_num(below[p + 1]) / steps[p]
                allowed = first & moved[p]
                core[p] = np.where(allowed, np.maximum(1.5 * d[p] + noise_p, floor[p]), np.inf)
                wide = np.maximum(1.5 * gap[p] + noise_p, floor[p])
                bounds[p] = np.where(allowed, wide, np.inf)
            if p == 0:
                continue
            # c_(p+1) after the gap halved; its noise witnessed by pairs p+1 and below.
            # Exactly equal neighbours are no evidence: a quantized output (the same
            # number of rounding units at two steps) repeats itself.
            halved = (d[p] <= 0.5 * d[p - 1]) & (d[p] > 0)
            witnessed = below[p + 1] > 0
            twice = p >= 2 and halved & (d[p - 1] <= 0.5 * d[p - 2])
            allowed = halved & (witnessed | twice) & moved[p + 1]
            noise_p = np.where(witnessed, 3.0 * below[p + 1] / steps[p + 1], 0.0)
            walked = np.where(allowed, np.maximum(d[p] + noise_p, floor[p + 1]), np.inf)
            wide = np.where(allowed, np.maximum(gap[p] + noise_p, floor[p + 1]), np.inf)
            better = walked < core[p + 1]
            core[p + 1] = np.where(better, walked, core[p + 1])
            bounds[p + 1] = np.where(better, wide, bounds[p + 1])
        core = np.where(np.isnan(core), np.inf, core)
        bounds = np.where(np.isnan(bounds) | ~np.isfinite(core), np.inf, bounds)
        # Every smaller step must agree with a candidate within its core bound and the
        # smaller step's noise; where one does not, the candidate measures a change of
        # the function within its step, not the derivative.
        within = np.zeros(n, dtype=bool)
        for p in range(levels):
            for q in range(p + 1, levels):
                off = np.abs(witness[q] - values[p]) > core[p] + noise[q]
                bounds[p] = np.where(off, np.inf, bounds[p])
                if p == 1:
                    plain = 1.5 * d[1] + 3.0 * np.nan_to_num(below[2]) / steps[1]
                    within |= np.abs(witness[q] - values[1]) > plain + floor[1] + noise[q]
    level = np.argmin(bounds, axis=0)
    pick = np.arange(n)
    return Best(values[level, pick], bounds[level, pick], level, within, witness, noise)


def swings(values, jumps, steps, span) -> np.ndarray:
    """(levels, n) True where the output moved, to one side of x or the other, by
    ``span`` or more (a quarter of its own size) and by no more than twice as much as over
    the steps h and 2h: that is the function's own structure (a steep or saturating
    function changes less over a smaller interval), never rounding noise, which can
    change an output more over a smaller step than over a larger one. One-sided
    changes, because a change that is even in the step (an output that drops on both
    sides) leaves the central difference near zero."""
    with np.errstate(invalid="ignore", over="ignore"):
        half = 0.5 * np.nan_to_num(jumps)
        change = np.maximum(np.abs(values + half), np.abs(values - half)) * steps
        change = np.nan_to_num(change)
    return (change >= span) & (change <= 2.0 * np.maximum(change[0], change[1]))


def stalled(values) -> np.ndarray:
    """(levels, n) True at the smaller steps where an output stopped following a slope
    that the steps 2h and h agree on (same sign, within a factor of two): its central
    difference there is less than a quarter of theirs. A smooth function does not do
    that; an output rounded at the precision of the larger values it is computed from
    (a float32 residual stream) does, once the change is below that rounding. Such a
    step counts as one where the output did not move."""
    c0, c1 = values[0], values[1]
    with np.errstate(invalid="ignore"):
        agree = (c0 * c1 > 0) & (np.abs(c0 - c1) <= 0.5 * np.maximum(np.abs(c0), np.abs(c1)))
        small = np.abs(values) < 0.25 * np.minimum(np.abs(c0), np.abs(c1))
    out = agree & small
    out[:2] = False
    return out


def steady_jump(jumps, steps, unit) -> np.ndarray:
    """(n_entries,) True where the jump between the one-sided derivatives is the same at
    every step that resolves it, as at a true kink (a smooth function's jump shrinks
    with the step, a steep one's grows). Entries no smaller step resolves count as
    steady: nothing shows otherwise."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        reference = jumps[1]
        # A one-sided difference carries the rounding of two evaluations over s.
        noise = 2.0 * CEILING * unit * steps[1] / steps
        steady = np.ones(jumps.shape[1], dtype=bool)
        for q in range(2, jumps.shape[0]):
            resolved = np.isfinite(jumps[q]) & (noise[q] < 0.5 * np.abs(reference))
            drift = np.abs(jumps[q] - reference) > 0.5 * np.abs(reference) + noise[q]
            steady &= ~(resolved & drift)
    return steady


def further_out(stencil_h, rows: slice, r, c, columns) -> tuple:
    """Central differences at 8h and 32h for entries (row r of the block, column c):
    (values (2, m), moved (2, m)), the output moving or not at each step."""
    multiples = [m for m in UPWARD for m in (m, -m)]
    got, offsets = stencil(stencil_h.evaluator, stencil_h.work, stencil_h.step, columns, multiples)
    base = stencil_h.base[rows][r]
    position = np.searchsorted(columns, c)
    values, moved = np.empty((len(UPWARD), r.size)), np.empty((len(UPWARD), r.size), bool)
    for level in range(len(UPWARD)):
        up = got[2 * level][position, rows.start + r]
        down = got[2 * level + 1][position, rows.start + r]
        width = offsets[2 * level][position] - offsets[2 * level + 1][position]
        with np.errstate(invalid="ignore"):
            values[level] = np.where(up == down, 0.0, up - down) / width
        moved[level] = (up != base) | (down != base)
    return values, moved


def revisit(stencil_h, rows: slice, status, analytical, unit, kappa, atol: float, rtol: float):
    """Re-decide the failed, undecided and non-differentiable entries of one block.

    ``unit`` is one rounding unit of each entry at h (``Stencil.resolution``) and
    ``kappa`` the measured amplification of rounding: an estimate at step s is never
    trusted below ``4 kappa`` units at h, scaled by h / s (kappa is taken as 1 where
    it would make the noise a visible fraction of an output: that is the first
    analysis mistaking a change on the scale of the step for noise). Entries
    whose analytical value is not finite keep their verdict. Returns a ``Revisit``.
    """
    undecided = (status == FAILED) | (status == INCONCLUSIVE) | (status == NONDIFF)
    flat = np.flatnonzero(undecided & np.isfinite(analytical))
    if flat.size == 0:
        return Revisit.empty()
    n_in = status.shape[1]
    columns = np.unique(flat % n_in)
    lad = ladder(stencil_h, columns)
    r, c = np.divmod(flat, n_in)
    position = np.searchsorted(columns, c)

    def entries(array):
        return array[:, rows][:, r, position]

    values, moved, jumps = entries(lad.values), entries(lad.moved), entries(lad.jumps)
    steps = lad.steps[:, position]
    moved &= ~stalled(values)
    # An entry the first step failed may be confirmed at 2h or h; one it left
    # undecided is decided, if at all, at a smaller step.
    before = status.reshape(-1)[flat]
    first = before == FAILED
    raw = unit.reshape(-1)[flat]
    units = raw * max(1.0, 2.0 * kappa)
    size = output_scale(stencil_h.base[rows])[r]
    # Rounding noise of a visible fraction of an output is no rounding: the first
    # analysis took a change of the function on the scale of the step for noise, and
    # the ladder's own witnesses measure the noise instead.
    units = np.where(units * steps[1] >= STRUCTURE * size, raw, units)
    # A quarter of the output's own size (an output near zero: a thousand rounding
    # units, far beyond any rounding).
    own = np.abs(np.nan_to_num(stencil_h.base[rows][r], posinf=0.0, neginf=0.0))
    span = np.maximum(SWING * own, 1e3 * units * steps[1])
    swing = swings(np.where(moved, values, 0.0), jumps, steps, span)
    best = best_level(values, moved, steps, units, swing, first, raw)
    numerical, error, level = best.numerical, best.error, best.level
    a = analytical.reshape(-1)[flat]
    new = np.full(flat.size, INCONCLUSIVE, dtype=np.int8)
    with np.errstate(invalid="ignore", over="ignore"):
        tol = tolerance(numerical, atol, rtol)
        diff = np.abs(numerical - a)
        new[(diff <= tol) & (error <= tol)] = PASSED
        new[diff > tol + error] = FAILED
        # A failure stands only if no smaller step vindicates the analytical value:
        # one whose noise is small against the disagreement, and that agrees with A
        # within that noise (the estimate chosen may still be on its way to the limit).
        deeper = np.arange(len(MULTIPLES))[:, None] > level[None, :]
        informative = deeper & (best.noise < 0.5 * diff) & np.isfinite(best.witness)
        agrees = np.abs(best.witness - a) <= tolerance(best.witness, atol, rtol) + best.noise
        vindicated = np.any(informative & agrees, axis=0)
    new[(new == FAILED) & vindicated] = INCONCLUSIVE
    # At 2h or h, one-sided differences that differ by as much as the disagreement,
    # with A between them (within the tolerance and the error bound), say that a kink
    # or a curve within the step may explain it: a failure there needs a smaller step
    # that resolves the function. (A outside them is wrong whatever the kink.)
    pick = np.arange(level.size)
    jump = jumps[np.minimum(level, 1), pick]
    with np.errstate(invalid="ignore", over="ignore"):
        right, left = numerical + 0.5 * jump, numerical - 0.5 * jump
        margin = tol + error
        between = (a >= np.minimum(left, right) - margin) & (a <= np.maximum(left, right) + margin)
        lopsided = (level < 2) & (np.abs(jump) >= 0.5 * diff) & between
    new[(new == FAILED) & lopsided] = INCONCLUSIVE
    vindicated |= lopsided
    # The smallest step has no smaller one to witness its noise: a failure there must
    # also exceed the rounding ceiling and the noise of the pair that reaches it.
    last = level == len(MULTIPLES) - 1
    with np.errstate(invalid="ignore"):
        unwitnessed = last & ~(diff > tol + np.fmax(error, best.noise[-1]))
    new[(new == FAILED) & unwitnessed] = INCONCLUSIVE
    why = np.where(best.within | vindicated, WITHIN_STEP, NOISE).astype(np.int8)
    # A kink stays a kink where no step resolved the function and the jump is steady.
    kink = (before == NONDIFF) & (new == INCONCLUSIVE) & steady_jump(jumps, steps, units)
    new[kink] = NONDIFF
    # Where the output does not move at any step below h, the noise of the steps h and
    # 2h is witnessed by nothing but the first analysis's estimate, which a quantized
    # output fools (it moves by one rounding step of a larger intermediate, or not at
    # all): such a failure, and a slope claimed where nothing moved, are looked at
    # further out, at 8h and 32h, where the output moves by many rounding steps.
    stuck = ~moved[2:].any(axis=0) & (a != 0)
    never = first & stuck & ~moved[:2].any(axis=0) & (new != PASSED)
    stopped = stuck & moved[:2].any(axis=0) & (new == FAILED)
    if (never | stopped).any():
        at = np.flatnonzero(never | stopped)
        outer, outer_moved = further_out(stencil_h, rows, r[at], c[at], np.unique(c[at]))
        far = np.where(outer_moved[0], outer[0], outer[1])
        # Truncation: twice the gap between 8h and 32h. Rounding: where nothing moved
        # below 8h, the output moves by as little as one rounding step there (good to
        # its own size); where it moved at h, that step is an eighth of the change seen
        # at h, over 8h.
        seen = np.nanmax(np.abs(values[:2, at]), axis=0)
        rounding = np.where(never[at], np.abs(far), 0.25 * seen)
        bound = rounding + 2.0 * np.abs(outer[0] - outer[1])
        bound = np.maximum(bound, CEILING * units[at] / UPWARD[0])
        with np.errstate(invalid="ignore", over="ignore"):
            tol_far = tolerance(far, atol, rtol)
            wrong = np.abs(far - a[at]) > tol_far + bound
            right = (np.abs(far - a[at]) <= tol_far) & (bound <= tol_far)
        wrong |= never[at] & ~outer_moved.any(axis=0)  # not even 32h moves it
        new[at] = np.where(wrong, FAILED, np.where(right, PASSED, INCONCLUSIVE))
        why[at] = HIDDEN
        numerical[at], error[at] = far, bound
    why[new != INCONCLUSIVE] = 0
    return Revisit(flat, numerical, error, new, np.array(MULTIPLES)[level], why)

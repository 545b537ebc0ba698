"""The numerical side of gradcheck: finite differences with an estimate of their own error.

For one input element x_k and one output element f_i, write g(t) = f_i(x + t e_k).
The checker evaluates g at t = -h, 0, h for every element (t = 0 is shared), and at
t = -2h, 2h, -4h, 4h for the elements that need a closer look (below), and derives:

    central(h)  = (g(h) - g(-h)) / 2h          the numerical derivative that is reported
    central(2h) = (g(2h) - g(-2h)) / 4h
    gap         = |central(h) - central(2h)|   truncation (3x that of central(h)) + noise
    right(h)    = (g(h) - g(0)) / h            one-sided derivatives: they agree on a
    left(h)     = (g(0) - g(-h)) / h           smooth function, not at a kink
    jump(h)     = right(h) - left(h)           h g''(0) when smooth, the slope jump at a
                                               kink; jump(2h) = 2 jump(h) when smooth,
                                               = jump(h) at a kink

**Rounding.** Each evaluation of f_i is rounded to within half a floating-point spacing
of ``|f_i| + sum_k |d f_i / d x_k| |x_k|`` (its own size, and how far the rounding of
the inputs carries into it) when the forward rounds as expected; divided by the step,
that is one rounding unit of a central difference (``Stencil.resolution``). How much the
function amplifies rounding (``kappa``) is measured, not assumed: on a sample of columns
the steps 2h and 4h are taken, which separates the entries whose gap is noise from
those whose gap is truncation (``Stencil.calibrate``); the noise gaps, in rounding units,
give kappa (their 90th percentile, at least 1). A kappa of a thousand or more means the
forward loses precision (``verdict.LOST_PRECISION``).

**Error estimate** of central(h), per entry:

    4 kappa units + gap    where the steps 2h and 4h were taken (refined columns): the
                           gap is three times the truncation error of central(h)
    4 kappa units          elsewhere: rounding only. Truncation needs no separate
                           estimate there, because those entries agree with the
                           analytical value: a central difference off by its
                           truncation error would not, unless the analytical value
                           were wrong by exactly that error.
    2 units                an entry whose output did not move at all: any slope below
                           that is invisible.

**Convergence** (refined columns): the differences converge when the gap from h to 2h
is at most the gap from 2h to 4h plus the rounding error; and the stencil is smooth
when the slope changes by less than itself within the stencil: ``|right - left| <= |D|``
and, where 2h was taken, ``|right(2h) - right(h)| + |left(2h) - left(h)| <= |D|``.
Where either fails, the step is wide against the function (a pole, a steep change) and
no entry there can fail (``verdict.classify``).

**Which columns get the 2h step** (``needs_refinement``): a random sample (to measure
kappa), and every column holding an entry that disagrees with the analytical value or
whose one-sided derivatives differ (a possible kink). So a correct function costs about
two evaluations per input element; a suspicious column gets four more.

Every step is the *realized* one: ``x + h`` is rounded to the input's dtype and the
difference actually applied is used, which matters in float32. Each perturbation
writes one element of a private copy of the input's data in place, runs the function,
and writes the original value back, so the input is restored bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.gradcheck.core import perturbed
from minigrad.gradcheck.options import as_tuple
from minigrad.printing import shape_str
from minigrad.tensor import Tensor

#: Columns refined at random to measure how the function amplifies rounding.
CALIBRATION_COLUMNS = 16

#: An output that moves by this fraction of its size within a step moves for a reason:
#: such a change is structure of the function, never a measure of rounding noise.
SWING = 0.25

#: The rounding error of a central difference is taken as this many (amplified)
#: rounding units: about five standard deviations of the measured noise, so that
#: thousands of correct entries stay clear of it.
NOISE_BOUND = 4.0


class Evaluator:
    """Runs the checked function and flattens its floating-point outputs into one vector.

    ``positions`` are the places of the floating-point tensors in the function's
    returned tuple (other outputs, such as integer indices, are ignored); their
    elements are laid out one output after the other in a float64 vector.
    """

    def __init__(self, evaluate, outputs: tuple):
        self.evaluate = evaluate
        self.positions = [
            j for j, o in enumerate(outputs) if isinstance(o, Tensor) and o.dtype.kind == "f"
        ]
        self.shapes = [outputs[j].shape for j in self.positions]
        sizes = [int(np.prod(s, dtype=np.int64)) for s in self.shapes]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        self.size = int(self.offsets[-1])

    def block(self, n: int) -> slice:
        """The slice of the flat vector that holds the n-th checked output."""
        return slice(int(self.offsets[n]), int(self.offsets[n + 1]))

    def values(self, out: np.ndarray | None = None) -> np.ndarray:
        """f(x) as one float64 vector. Call it under ``no_grad``."""
        outputs = as_tuple(self.evaluate())
        if out is None:
            out = np.empty(self.size)
        for n, j in enumerate(self.positions):
            data = getattr(outputs[j], "_data", None) if j < len(outputs) else None
            if data is None or data.shape != self.shapes[n]:
                got = "nothing" if data is None else f"shape {shape_str(data.shape)}"
                raise RuntimeError(
                    f"gradcheck: output {j} of the function had shape {shape_str(self.shapes[n])} "
                    f"on the first call but {got} on a later one; the function must return "
                    "the same structure every time"
                )
            out[self.offsets[n] : self.offsets[n + 1]] = data.reshape(-1)
        return out


def stencil_step(x0: float, step: float, dtype: np.dtype) -> float:
    """The step h actually applied at x0: ``x0 + step`` rounded to the dtype, minus x0.

    Being a multiple of x0's spacing, h usually makes x0 - h and x0 +- 2h exact as well,
    so the stencil stays symmetric (the realized offsets are used in any case).
    """
    h = float(dtype.type(x0 + step)) - x0
    if h <= 0.0:  # step below the spacing of x0: use the spacing itself
        h = float(np.spacing(dtype.type(abs(x0))))
    return h


def stencil(evaluator: Evaluator, work: np.ndarray, step: float, columns, multiples):
    """f(x + m h e_k) for every column k in ``columns`` and multiple m in ``multiples``.

    ``work`` is the input's private C-contiguous data; each element is written in place
    and restored. Returns the values (len(multiples), len(columns), n_out) and the
    realized offsets (len(multiples), len(columns)).
    """
    flat = work.reshape(-1)  # a view: work is C-contiguous
    values = np.empty((len(multiples), len(columns), evaluator.size))
    offsets = np.empty((len(multiples), len(columns)))
    with no_grad():
        for c, k in enumerate(columns):
            h = stencil_step(float(flat[k]), step, work.dtype)
            got, realized = perturbed(evaluator.values, flat, k, [m * h for m in multiples])
            values[:, c] = got
            offsets[:, c] = realized
    return values, offsets


def moved_quotient(upper: np.ndarray, lower: np.ndarray, step) -> np.ndarray:
    """``((upper - lower) / step).T``, with 0 wherever the two values are equal: an output
    that did not move (infinities included: a mask's -inf stays -inf) has no slope
    there, while ``-inf - -inf`` would be NaN."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        quotient = np.where(upper == lower, 0.0, upper - lower) / step
    return np.ascontiguousarray(quotient.T)


@dataclass
class Differences:
    """Finite-difference results for a block of derivatives.

    In full mode the arrays have shape (n_outputs, n_input_elements): entry [i, k] is
    about d f_i / d x_k. In fast mode they have shape (n_directions,) and hold
    directional derivatives projected on a cotangent. ``error`` estimates the error of
    ``central``; ``kink_residual`` is |jump(2h) - 2 jump(h)|, zero for a smooth function
    and |jump| at a kink (zero where the 2h step was not taken); ``coupled`` marks
    entries whose output moved at all when the input did; ``kappa`` is the measured
    amplification of rounding; ``row_scale`` the largest |central| of each output row;
    ``converging`` is False where central(h), central(2h), central(4h) do not converge;
    ``smooth`` is False where the slope changes by more than itself within one step;
    ``frozen`` marks the input elements (columns) that are not finite and were not
    checked.
    """

    central: np.ndarray
    error: np.ndarray
    right: np.ndarray
    left: np.ndarray
    kink_residual: np.ndarray
    finite: np.ndarray
    step: float
    coupled: np.ndarray | bool = True
    kappa: float = 1.0
    row_scale: np.ndarray | float = 0.0
    converging: np.ndarray | bool = True
    smooth: np.ndarray | bool = True
    frozen: np.ndarray | bool = False


class Stencil:
    """The finite differences of every output with respect to one input, built in two
    passes: steps +-h for every element, then +-2h for the columns that need it."""

    def __init__(self, evaluator: Evaluator, work: np.ndarray, step: float, base: np.ndarray):
        self.evaluator, self.work, self.step, self.base = evaluator, work, step, base
        n_in = work.size
        # An element that is not finite (a mask's -inf) cannot be moved by a step: it is
        # left out of the check (``frozen``) and never perturbed.
        self.frozen = ~np.isfinite(work.reshape(-1))
        self.free = np.flatnonzero(~self.frozen)
        n_out = evaluator.size
        g1, gm1 = np.repeat(base[None, :], n_in, axis=0), np.repeat(base[None, :], n_in, axis=0)
        a1, b1 = np.full(n_in, np.nan), np.full(n_in, np.nan)
        if self.free.size:
            (g1[self.free], gm1[self.free]), (a1[self.free], b1[self.free]) = stencil(
                evaluator, work, step, self.free, (1.0, -1.0)
            )
        a1, b1 = a1[:, None], b1[:, None]  # realized +h (> 0) and -h (< 0)
        # (n_out, n_in) from here on: rows are outputs, columns input elements.
        self.central = moved_quotient(g1, gm1, a1 - b1)
        self.right = moved_quotient(g1, base, a1)
        self.left = moved_quotient(base, gm1, -b1)
        self.coupled = np.ascontiguousarray(((g1 != base) | (gm1 != base)).T)
        self.moved = self.coupled.copy()  # at +-h only (``coupled`` grows with refine)
        self.central[:, self.frozen] = self.right[:, self.frozen] = self.left[:, self.frozen] = 0.0
        self.h = np.where(self.frozen, step, a1[:, 0])
        shape = (n_out, n_in)
        self.gap = np.full(shape, np.nan)
        self.central2 = np.full(shape, np.nan)
        self.moved2 = np.zeros(shape, dtype=bool)
        self.jump2 = np.full(shape, np.nan)
        self.gap_wide = np.full(shape, np.nan)
        self.slope_change = np.zeros(shape)
        self.kink_residual = np.zeros(shape)
        self.refined = np.zeros(n_in, dtype=bool)
        self.calibration = np.zeros(0, dtype=int)
        self.noise_like = np.zeros((n_out, 0), dtype=bool)

    def support(self) -> np.ndarray:
        """(n_out, n_in) bool: the entries whose output moved when the input did."""
        return self.coupled

    def refine(self, columns) -> None:
        """Take the +-2h and +-4h steps for these columns: the gap, the kink shape and
        whether the differences converge become known."""
        done = self.refined | self.frozen
        columns = np.array([k for k in columns if not done[k]], dtype=int)
        if columns.size == 0:
            return
        multiples = (2.0, -2.0, 4.0, -4.0)
        (g2, gm2, g4, gm4), (a2, b2, a4, b4) = stencil(
            self.evaluator, self.work, self.step, columns, multiples
        )
        a2, b2, a4, b4 = a2[:, None], b2[:, None], a4[:, None], b4[:, None]
        base = self.base
        central2 = moved_quotient(g2, gm2, a2 - b2)
        central4 = moved_quotient(g4, gm4, a4 - b4)
        right2, left2 = moved_quotient(g2, base, a2), moved_quotient(base, gm2, -b2)
        with np.errstate(invalid="ignore", over="ignore"):
            jump2 = right2 - left2
            jump = self.right[:, columns] - self.left[:, columns]
            self.slope_change[:, columns] = np.abs(right2 - self.right[:, columns]) + np.abs(
                left2 - self.left[:, columns]
            )
            self.central2[:, columns] = central2
            self.jump2[:, columns] = jump2
            self.gap[:, columns] = np.abs(self.central[:, columns] - central2)
            self.gap_wide[:, columns] = np.abs(central2 - central4)
            self.kink_residual[:, columns] = np.abs(jump2 - 2.0 * jump)
        moved = ((g2 != base) | (gm2 != base)).T
        self.moved2[:, columns] = moved
        self.coupled[:, columns] |= moved
        self.refined[columns] = True

    def calibrate(self, rng: np.random.Generator) -> None:
        """Measure the rounding noise on a random sample of columns.

        Their gaps mix truncation (which grows as h^2) with noise (which shrinks as
        1/h). The step 4h tells them apart: where the gap between 2h and 4h is less
        than twice the gap between h and 2h, noise dominates (truncation alone would
        make it four times larger), and the gap measures the noise.
        """
        count = min(self.free.size, CALIBRATION_COLUMNS)
        cal = np.sort(self.free[rng.choice(self.free.size, size=count, replace=False)])
        self.calibration = cal
        self.refine(cal)
        with np.errstate(invalid="ignore"):
            self.noise_like = self.gap_wide[:, cal] < 2.0 * self.gap[:, cal]

    def differences(self, rows: slice, noise_eps: float) -> Differences:
        """The ``Differences`` of one output block (rows), with its error estimate."""
        central = self.central[rows]
        coupled = self.coupled[rows]
        resolution = self.resolution(rows, noise_eps)
        # Where the slope changes by more than itself within one step (a pole, or a
        # step wider than the function's own scale), the stencil is not in the regime
        # where differences are derivative plus truncation plus noise.
        with np.errstate(invalid="ignore"):
            slope = np.abs(central)
            smooth = np.abs(self.right[rows] - self.left[rows]) <= slope
            smooth &= self.slope_change[rows] <= slope  # from h to 2h, either side
        cal = self.calibration
        # An output that moves by a quarter of its size within the step moves for a
        # reason: that is the function's structure, not rounding noise to measure.
        with np.errstate(invalid="ignore", over="ignore"):
            swing = (
                np.abs(central[:, cal]) * 2.0 * self.h[cal]
                >= SWING * output_scale(self.base[rows])[:, None]
            )
        kappa = _amplification(
            self.gap[rows][:, cal],
            resolution[:, cal],
            coupled[:, cal] & self.noise_like[rows] & smooth[:, cal] & ~swing,
        )
        # Coupled entries: NOISE_BOUND amplified rounding units. An output that did not
        # move at all hides any slope below two rounding units over the step.
        error = resolution * np.where(coupled, NOISE_BOUND * kappa, 2.0)
        finite = np.isfinite(central)
        converging = np.ones(central.shape, dtype=bool)
        refined = np.flatnonzero(self.refined)
        if refined.size:
            gap = self.gap[rows][:, refined]
            # Truncation of central(h) is gap / 3 where the gap is truncation; the gap
            # itself, three times that, allows for higher orders.
            error[:, refined] += gap
            # Not finite at x +- 2h or 4h: nothing can be decided there either.
            wide = self.gap_wide[rows][:, refined]
            finite[:, refined] &= np.isfinite(gap) & np.isfinite(wide)
            # Differences that converge change less from h to 2h than from 2h to 4h
            # (by 4x for truncation; for noise, by what noise explains). Where they do
            # not, the step is not small against the scale on which the function
            # changes (a pole or a steep change within 4h): central(h) is no evidence.
            noise = error[:, refined] - gap
            with np.errstate(invalid="ignore"):
                converging[:, refined] = ~(gap > wide + noise)
        error[~finite] = np.inf
        with np.errstate(invalid="ignore"):
            row_scale = np.max(np.abs(np.where(finite, central, 0.0)), axis=1, initial=0.0)
        return Differences(
            central=central,
            error=error,
            right=self.right[rows],
            left=self.left[rows],
            kink_residual=self.kink_residual[rows],
            finite=finite,
            step=self.step,
            coupled=coupled,
            kappa=kappa,
            row_scale=row_scale[:, None],
            converging=converging,
            smooth=smooth | ~coupled,
            frozen=self.frozen,
        )

    def hidden_slope(self, rows: slice, noise_eps: float) -> np.ndarray:
        """(n_in,): two rounding units, over the step, of the largest output of this
        block that moved when the input element did. An output that did not move while
        those did may hide a slope that small, even if it is itself near zero: it may be
        computed from values as large as they are (x - logsumexp(x) rounds like x)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            moved = np.where(self.coupled[rows], np.abs(self.base[rows])[:, None], 0.0)
            largest = np.nan_to_num(np.max(moved, axis=0, initial=0.0), posinf=0.0)
            spacing = noise_eps * np.exp2(np.floor(np.log2(largest)))
        return np.where(largest > 0, spacing / self.h, 0.0)

    def resolution(self, rows: slice, noise_eps: float) -> np.ndarray:
        """One rounding unit of each output, divided by the step: the rounding error of a
        central difference whose two evaluations are each rounded once, correctly.

        The unit is half the spacing at ``|f_i| + sum_k |d f_i / d x_k| |x_k|``: the
        output's own size, and how far the rounding of the inputs carries into it (an
        output near zero computed from inputs of size 1, as in ``x - mean(x)``, rounds
        like a number of size 1)."""
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            slopes = np.nan_to_num(np.abs(self.central[rows]), nan=0.0, posinf=0.0)
            magnitude = np.abs(self.work.reshape(-1).astype(np.float64))
            carried = slopes @ np.where(self.frozen, 0.0, magnitude)
            values = np.nan_to_num(np.abs(self.base[rows]), nan=0.0, posinf=0.0)
            scale = values + np.nan_to_num(carried, posinf=np.finfo(float).max)
            # The spacing of numbers in [2^e, 2^(e+1)) is eps * 2^e.
            spacing = noise_eps * np.exp2(np.floor(np.log2(scale)))
        return 0.5 * spacing[:, None] / self.h[None, :]


def needs_refinement(diffs: Differences, analytical, atol: float, rtol: float) -> np.ndarray:
    """Columns (input elements) with an entry that disagrees or may sit on a kink."""
    interesting = diffs.coupled | (analytical != 0) | ~diffs.finite
    idx = np.flatnonzero(interesting)
    d, a, e = (np.ravel(x)[idx] for x in (diffs.central, analytical, diffs.error))
    jump = np.ravel(diffs.right)[idx] - np.ravel(diffs.left)[idx]
    with np.errstate(invalid="ignore", over="ignore"):
        tol = atol + rtol * np.abs(d)
        suspicious = ~(np.abs(d - a) <= tol) | (np.abs(jump) > tol + e)
    columns = idx[suspicious] % diffs.central.shape[1]
    return np.unique(columns)


def _amplification(gap: np.ndarray, resolution: np.ndarray, mask: np.ndarray) -> float:
    """How much the function amplifies rounding, measured: the 90th percentile of the
    noise gaps in rounding units, at least 1. A gap holds the rounding of central(h) and
    of central(2h) (half as large): 1.5 units when each evaluation is rounded once."""
    mask = mask & np.isfinite(gap)
    if not mask.any():
        return 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = gap[mask] / (1.5 * resolution[mask])
    ratio = ratio[np.isfinite(ratio)]
    if ratio.size == 0:
        return 1.0
    return max(1.0, float(np.quantile(ratio, 0.9)))


def output_scale(values: np.ndarray) -> np.ndarray:
    """The magnitude that sets each output element's rounding: its own size, and at least
    the median size of its output tensor (an element that happens to be near zero is
    still computed from intermediates of the usual size). Systematic amplification,
    such as cancellation of large terms, is measured separately (``kappa``)."""
    mags = np.abs(np.nan_to_num(values, nan=0.0, posinf=0.0, neginf=0.0))
    return np.maximum(mags, np.median(mags) if mags.size else 0.0)


# ---------------------------------------------------------------------------- fast mode
_FAST_MULTIPLES = (1.0, -1.0, 2.0, -2.0)


def directional_values(evaluator: Evaluator, work: np.ndarray, direction: np.ndarray, step):
    """f(x + m h u) for m = 1, -1, 2, -2 (x restored afterwards).

    Returns the values (4, n_out) and the realized displacements (4, n_in).
    """
    flat = work.reshape(-1)
    original = flat.copy()
    x0 = original.astype(np.float64)
    values = np.empty((4, evaluator.size))
    shifts = np.empty((4, flat.size))
    with no_grad():
        try:
            for m, multiple in enumerate(_FAST_MULTIPLES):
                flat[...] = x0 + multiple * step * direction
                moved = flat.astype(np.float64)
                # An element that stays where it was (a mask's -inf) did not move.
                shifts[m] = np.where(moved == x0, 0.0, moved - x0)
                evaluator.values(out=values[m])
        finally:
            flat[...] = original
    return values, shifts


def analyse_directional(values, base, cotangent, noise_eps, out_scale, step):
    """Directional derivatives projected on a cotangent: the fast-mode stencil.

    ``values`` (n_dir, 4, n_out) at x + m h u for m = 1, -1, 2, -2; ``cotangent``
    (n_dir, n_out). Returns a ``Differences`` over the directions (not yet normalized)
    and the norm of each numerical directional derivative J w (n_dir,).
    """
    g1, gm1, g2, gm2 = (values[:, m] for m in range(4))
    v = cotangent

    def change(a, b):  # a - b, 0 where equal (an output that stays -inf did not move)
        return np.where(a == b, 0.0, a - b)

    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        # g(h) - g(-h) = J (s1 - s_-1): the derivative along the realized direction
        # w = (s1 - s_-1) / 2h, on which the caller projects the analytical gradient.
        jvp = change(g1, gm1) / (2.0 * step)  # J w (n_dir, n_out)
        central = np.sum(v * jvp, axis=1)
        central2 = np.sum(v * change(g2, gm2), axis=1) / (4.0 * step)
        gap = np.abs(central - central2)
        right = np.sum(v * change(g1, base), axis=1) / step
        left = np.sum(v * change(base, gm1), axis=1) / step
        jump = right - left
        jump2 = np.sum(v * change(g2, base), axis=1) - np.sum(v * change(base, gm2), axis=1)
        jump2 = jump2 / (2 * step)
        kink_residual = np.abs(jump2 - 2.0 * jump)
        # Rounding of each output, weighted by the cotangent, adds up in quadrature.
        noise = noise_eps * np.sqrt(np.sum((v * out_scale[None, :]) ** 2, axis=1)) / step
        finite = np.isfinite(central) & np.isfinite(central2)
        # The directions share one noise level, measured twice over: the largest gap
        # (a single gap can be small by chance), and the residual |jump(2h) - 2 jump(h)|,
        # which is pure noise on a smooth function (about 4 sigma / h; its median
        # ignores a direction that crosses a kink).
        if finite.any():
            pooled = np.max(gap[finite])
            noise = np.maximum(noise, np.median(kink_residual[finite]) / 4.0)
        else:
            pooled = np.inf
        error = 2.0 * pooled + 4.0 * noise  # the largest gap of any finite direction
        error = np.where(finite, error, np.inf)
    diffs = Differences(
        central=central,
        error=error,
        right=right,
        left=left,
        kink_residual=kink_residual,
        finite=finite,
        step=step,
    )
    return diffs, np.sqrt(np.sum(jvp**2, axis=1))

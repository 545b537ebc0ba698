"""Fast mode: compare v^T J u both ways along a few random directions.

For each of ``num_directions`` random directions u (one per input) and cotangents v
(one per output), one backward gives J^T v, and four function calls along u (steps
+-h, +-2h) give J u with its error estimate (``numeric.analyse_directional``).
The two projections v^T J u are compared, normalized by |u| |v|, with the relative
tolerance taken against the typical size of such a projection, |J u| / sqrt(n_out).
This catches any error that changes the Jacobian as a whole, at the cost of one
backward and four calls per direction whatever the size of the input; it cannot point
at an entry.
"""

from __future__ import annotations

import numpy as np

from minigrad.functions.constant import constant
from minigrad.gradcheck.analytic import dense, max_difference
from minigrad.gradcheck.numeric import analyse_directional, directional_values, output_scale
from minigrad.gradcheck.options import machine_eps
from minigrad.gradcheck.verdict import pair_result


def fast_check(evaluator, checked, targets, steps, base, names, options, problems):
    """Compare v^T J u both ways along ``num_directions`` random directions."""
    rng = np.random.default_rng(options.seed)
    n_dir = options.num_directions
    tensors = [t.tensor for t in targets]
    # Cotangents, rounded to each output's dtype so both sides use the same v.
    cot = rng.standard_normal((n_dir, evaluator.size))
    for n, out in enumerate(checked):
        block = evaluator.block(n)
        cot[:, block] = cot[:, block].astype(out.dtype).astype(np.float64)
    # Analytical: one backward per direction and output gives J^T v for every input.
    vjp = [np.zeros((len(checked), n_dir, t._data.size)) for t in tensors]
    try:
        for n, out in enumerate(checked):
            if not out.requires_grad:
                continue
            for d in range(n_dir):
                v = constant(cot[d, evaluator.block(n)].astype(out.dtype).reshape(out.shape))
                grads = options.backward(out, tensors, v, retain_graph=True, allow_unused=True)
                for i, g in enumerate(grads):
                    if g is not None:
                        vjp[i][n, d] = g._data.reshape(-1)
                if d == 0:
                    again = options.backward(out, tensors, v, retain_graph=True, allow_unused=True)
                    for i, g in enumerate(again):
                        spread = max_difference(vjp[i][n, 0], dense(g, tensors[i]))
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
        size = t.tensor._data.size
        directions = rng.standard_normal((n_dir, size))
        # Elements that are not finite (a mask's -inf) cannot be moved: left out.
        directions[:, ~np.isfinite(t.tensor._data.reshape(-1))] = 0.0
        values = np.empty((n_dir, 4, evaluator.size))
        shifts = np.empty((n_dir, 4, size))
        for d in range(n_dir):
            values[d], shifts[d] = directional_values(
                evaluator, t.tensor._data, directions[d], steps[i]
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
            scale_out = output_scale(base[block])
            diffs, jvp_norm = analyse_directional(
                values[:, :, block], base[block], v, noise_eps, scale_out, steps[i]
            )
            analytical = np.sum(vjp[i][n] * w, axis=1)
            ana_noise = 16 * machine_eps(t.tensor.dtype) * np.sum(np.abs(vjp[i][n] * w), axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                norm = w_norm * np.sqrt(np.sum(v * v, axis=1))
                norm = np.where(norm > 0, norm, 1.0)
                diffs.central, diffs.right, diffs.left, diffs.kink_residual = (
                    diffs.central / norm,
                    diffs.right / norm,
                    diffs.left / norm,
                    diffs.kink_residual / norm,
                )
                diffs.error = (diffs.error + ana_noise) / norm
                # The typical size of v^T J u for unit u and v, for the relative tolerance.
                typical = jvp_norm / (
                    np.where(w_norm > 0, w_norm, 1.0) * np.sqrt(max(block.stop - block.start, 1))
                )
            pairs.append(
                pair_result(
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

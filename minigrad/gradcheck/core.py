"""The idea of a gradient check, in one screen.

A backward claims to compute the Jacobian J of its forward f. The forward alone can
measure J: for every input element x_k, a central difference gives a column,

    J[:, k] ~ (f(x + h e_k) - f(x - h e_k)) / 2h

and backward gives it row by row: with the cotangent e_i (one at output element i,
zeros elsewhere) it returns e_i^T J, the i-th row. ``check`` compares the two entry by
entry and reports the worst,

    agree  <=>  |numerical - analytical| <= atol + rtol * |numerical|

That is a gradient check. The rest of the package makes it trustworthy and fast:
``numeric`` estimates the error of every central difference (rounding and truncation),
so that noise is not called a bug; ``verdict`` decides with that estimate;
``analytic`` shares one backward between unrelated rows and probes the backward with a
random cotangent; ``fast`` projects on random directions for large inputs; ``module``
checks a layer's parameters; ``report`` writes what was found; ``api`` holds the
functions you call (``gradcheck``, ``gradgradcheck``).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.api import grad
from minigrad.autograd.grad_mode import enable_grad, no_grad
from minigrad.functions.constant import constant


def perturbed(evaluate, flat: np.ndarray, k: int, offsets) -> tuple[list, list]:
    """``evaluate()`` with ``flat[k]`` moved by each offset in turn, then put back.

    ``x + d`` is rounded to the array's dtype, so the offset really applied is returned
    too: a difference quotient must divide by that one.
    """
    x0 = flat[k].copy()
    values, realized = [], []
    try:
        for d in offsets:
            flat[k] = float(x0) + d
            realized.append(float(flat[k]) - float(x0))
            values.append(evaluate())
    finally:
        flat[k] = x0  # bit for bit
    return values, realized


def numerical_jacobian(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """J[i, k] ~ d f_i / d x_k by central differences. ``f()`` reads the C-contiguous
    array ``x`` (perturbed in place) and returns its outputs as one flat vector."""
    flat = x.reshape(-1)  # a view
    columns = []
    for k in range(flat.size):
        (plus, minus), (up, down) = perturbed(f, flat, k, (h, -h))
        columns.append((plus - minus) / (up - down))
    return np.stack(columns, axis=1)


def analytical_jacobian(output, x) -> np.ndarray:
    """J[i, :] = e_i^T J: one backward per output element, on one graph."""
    rows = []
    for i in range(output.numel()):
        seed = np.zeros(output.numel(), dtype=output.dtype)
        seed[i] = 1.0
        (g,) = grad(
            output, x, constant(seed.reshape(output.shape)), retain_graph=True, allow_unused=True
        )
        rows.append(np.zeros(x.numel()) if g is None else g.numpy().reshape(-1))
    return np.stack(rows)


def tolerance(numerical, atol: float, rtol: float):
    """The largest |numerical - analytical| that counts as agreement."""
    return atol + rtol * np.abs(numerical)


def worst_entries(numerical, analytical, atol: float, rtol: float, limit: int = 5):
    """Flat indices of the entries furthest beyond tolerance, worst first."""
    excess = np.abs(numerical - analytical) / tolerance(numerical, atol, rtol)
    return np.argsort(-excess.reshape(-1), kind="stable")[:limit]


def check(fn, x, h: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3):
    """Check ``fn``'s backward at ``x`` (a float64 Tensor that requires grad).

    Returns ``(ok, worst)``: whether every entry agrees, and the worst entries as
    ``(output index, input index, numerical, analytical)``.
    """
    original = x._data
    x._data = np.array(original, order="C")  # a private copy to perturb
    try:
        with no_grad():
            numerical = numerical_jacobian(lambda: fn(x).numpy().reshape(-1), x._data, h)
        with enable_grad():
            output = fn(x)
        analytical = analytical_jacobian(output, x)
    finally:
        x._data = original
    ok = bool(np.all(np.abs(numerical - analytical) <= tolerance(numerical, atol, rtol)))
    worst = []
    for k in worst_entries(numerical, analytical, atol, rtol):
        i, j = np.unravel_index(k, numerical.shape)
        out_ix = tuple(int(v) for v in np.unravel_index(i, output.shape))
        in_ix = tuple(int(v) for v in np.unravel_index(j, x.shape))
        worst.append((out_ix, in_ix, float(numerical[i, j]), float(analytical[i, j])))
    return ok, worst

"""The analytical side of gradcheck: the Jacobian from backward passes, and probes of
the backward itself.

``AnalyticalJacobian`` builds J one row per backward, or one *group* of rows per
backward when their numerical supports are disjoint (the compression below).
``backward_consistency`` then probes the backward with a random, non-uniform
cotangent v: run twice, and on a new forward, it must give the same J^T v
(determinism), and J^T v must equal v^T J assembled from the rows (linearity, and the
soundness of the compression).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.grad_mode import enable_grad
from minigrad.functions.constant import constant
from minigrad.gradcheck.options import as_tuple, machine_eps


class AnalyticalJacobian:
    """J[i] of shape (all output elements, elements of input i), from backward passes.

    One backward with a unit cotangent gives one row. Rows whose numerical supports
    (the input elements that moved them) are disjoint can share a backward: with the
    cotangent e_r1 + e_r2 + ..., each input element's gradient belongs to the one row
    whose support holds it (Curtis-Powell-Reid compression; rows are grouped by greedy
    colouring). A nonzero gradient outside every support of the group is ambiguous: the
    group's rows are then redone one by one. Leaks *inside* another row's support are
    caught afterwards by a random-cotangent probe (``backward_consistency``), which
    triggers an exact, row-by-row recomputation.
    """

    def __init__(self, evaluator, checked, tensors, supports, options):
        self.evaluator, self.checked, self.tensors = evaluator, checked, tensors
        self.options = options
        self.supports = supports
        self.jac = [np.zeros((evaluator.size, t._data.size)) for t in tensors]
        self.compressed = [False] * len(checked)

    def compute(self) -> None:
        for n, out in enumerate(self.checked):
            if out.requires_grad:  # otherwise not connected: the rows stay zero
                self._output(n, out)

    def _backward(self, out, seed):
        return self.options.backward(
            out, self.tensors, constant(seed), retain_graph=True, allow_unused=True
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
                        self.jac[i][start + group[0]] = g._data.reshape(-1)
                continue
            self.compressed[n] = True
            for i, g in enumerate(grads):
                if g is None:
                    continue
                vec = g._data.reshape(-1)
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
                self.jac[i][rows.start + r] = 0.0 if g is None else g._data.reshape(-1)

    def recompute_exactly(self, n) -> None:
        """Row by row, no compression (after a failed consistency probe)."""
        out = self.checked[n]
        self._exact_rows(n, out, range(out._data.size))
        self.compressed[n] = False


def _unit_seed(out, rows) -> np.ndarray:
    """A cotangent of ones at ``rows`` (flat indices), zeros elsewhere. A new array each
    time: the engine may hand the seed itself back as a gradient (an add does)."""
    seed = np.zeros(out._data.size, dtype=out.dtype)
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


def backward_consistency(evaluate, evaluator, checked, tensors, jacobian, options, problems):
    """Probe the backward with one random cotangent v per output:

    - determinism: J^T v computed twice on the same graph and once on a fresh forward
      must agree within ``nondet_tol``;
    - the assembled Jacobian: J^T v must equal v^T J. A compressed Jacobian that fails
      this is recomputed row by row; an exact one that still fails means the backward
      is not linear in its incoming gradient (it may pass unit cotangents and be wrong
      for every other).

    Returns {(output n, input i): message} for the pairs that fail the linearity check.
    """
    rng = np.random.default_rng(options.seed + 7919)
    failures = {}
    for n, out in enumerate(checked):
        if not out.requires_grad or out._data.size == 0:
            continue
        v = constant(rng.standard_normal(out.shape).astype(out.dtype))
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
            g1 = dense(first[i], t)
            for other, how in ((second[i], "on the same graph"), (fresh[i], "after a new forward")):
                spread = max_difference(g1, dense(other, t))
                if not spread <= options.nondet_tol:
                    problems.append(
                        f"Backward is not deterministic: the gradient of output "
                        f"{evaluator.positions[n]} with respect to input {i} changed by "
                        f"{spread:.3g} when run again {how} (nondet_tol={options.nondet_tol:g})."
                    )
        v64 = v._data.astype(np.float64).reshape(-1)
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
        direct = dense(direct_grads[i], t)
        assembled = v64 @ jac
        # Relative to the sizes involved, plus a floor: 1/1000 of atol per unit of |v|
        # (smaller mismatches cannot matter at the check's tolerance) and rounding.
        eps = machine_eps(t.dtype)
        v_norm = float(np.sqrt(v64 @ v64))
        allowed = max(1e-6, 100 * eps) * (np.abs(v64) @ np.abs(jac))
        allowed += v_norm * (1e-3 * atol + 100 * eps)
        with np.errstate(invalid="ignore"):
            # Where the Jacobian itself is not finite there is nothing to compare (the
            # entries report it).
            bad = ~(np.abs(direct - assembled) <= allowed) & np.isfinite(assembled)
        if bad.any():
            k = int(
                np.argmax(np.where(bad, np.nan_to_num(np.abs(direct - assembled), nan=1e300), -1))
            )
            out[i] = (k, float(direct[k]), float(assembled[k]))
    return out


def dense(g, tensor) -> np.ndarray:
    if g is None:
        return np.zeros(tensor._data.size)
    return g._data.reshape(-1).astype(np.float64)


def max_difference(a: np.ndarray, b: np.ndarray) -> float:
    """The largest |a - b| (NaNs in the same places count as equal)."""
    if a.size == 0:
        return 0.0
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    if same.all():
        return 0.0
    with np.errstate(invalid="ignore"):
        d = np.abs(a - b)[~same]
    return float(np.nanmax(d)) if np.isfinite(d).any() else float("inf")

"""Check the three implementations of a norm against each other and finite differences.

The way a learner checks a hand-written backward: run the same call with every
implementation, back-propagate the same random cotangent ``dy`` (so the gradients are
those of ``L = sum(y * dy)``), and estimate the same gradients by central finite
differences of ``L`` in float64. The report has one table per quantity (the output,
then the gradient of every input that requires grad), one row per pair, saying whether
the two are bit-identical ("exact"), equal within the dtype's tolerance ("close"), and
by how much they differ at most::

    report = compare_implementations(F.layer_norm, x, (4,), weight, bias)
    print(report)       # the tables (library code never prints; examples do)
    report.ok           # True when every pair is close

Finite differences need two evaluations per input element, so keep the inputs small
(a few hundred numbers); ``max_elements`` guards against a slow mistake.
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass, field

import numpy as np

from minigrad.autograd.api import grad as autograd_grad
from minigrad.autograd.grad_mode import no_grad
from minigrad.gradcheck.core import numerical_jacobian
from minigrad.tensor import Tensor

__all__ = ["NormComparison", "compare_implementations"]

_IMPLS = ("fused", "reference", "composite")

#: (rtol, atol) for implementation vs implementation, and for anything vs finite
#: differences (which are only good to ~1e-8 in float64 and are compared with results
#: computed in the input's dtype).
_TOLERANCES = {
    np.dtype(np.float64): ((1e-10, 1e-12), (1e-5, 1e-7)),
    np.dtype(np.float32): ((1e-5, 1e-6), (2e-3, 2e-4)),
    np.dtype(np.float16): ((1e-2, 1e-3), (5e-2, 1e-2)),
}


@dataclass
class Row:
    """One comparison: ``left`` against ``right``."""

    left: str
    right: str
    exact: bool
    close: bool
    max_difference: float


@dataclass
class NormComparison:
    """The result of ``compare_implementations``: one table of ``Row``s per quantity.

    Attributes:
        name: the function compared (``"layer_norm"``, ...).
        dtype: the inputs' dtype.
        tables: ``{"output": [...], "d input": [...], "d weight": [...], ...}``.
        shapes: the shape of each quantity.
    """

    name: str
    dtype: np.dtype
    tables: dict = field(default_factory=dict)
    shapes: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every pair in every table is close."""
        return all(row.close for rows in self.tables.values() for row in rows)

    def __str__(self) -> str:
        verdict = "every pair is close" if self.ok else "SOME PAIRS DIFFER"
        lines = [f"{self.name} on {self.dtype} inputs: {verdict}"]
        for quantity, rows in self.tables.items():
            shape = "[" + ", ".join(str(s) for s in self.shapes[quantity]) + "]"
            lines.append("")
            lines.append(f"{quantity} {shape}")
            lines.append(f"  {'pair':<36}{'exact':<8}{'close':<8}max |difference|")
            for r in rows:
                pair = f"{r.left} vs {r.right}"
                exact = "yes" if r.exact else "no"
                close = "yes" if r.close else "NO"
                lines.append(f"  {pair:<36}{exact:<8}{close:<8}{r.max_difference:.3g}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<NormComparison {self.name} ok={self.ok}>"


def _row(left: str, a: np.ndarray, right: str, b: np.ndarray, tol) -> Row:
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    diff = float(np.max(np.abs(a64 - b64))) if a64.size else 0.0
    exact = a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    close = bool(np.allclose(a64, b64, rtol=tol[0], atol=tol[1], equal_nan=True))
    return Row(left, right, bool(exact), close, diff)


def _fresh_args(args, kwargs):
    """Copies of the tensors that do not require grad (running statistics are updated in
    place by a training batch_norm, so every run starts from the same values)."""

    def fresh(a):
        if isinstance(a, Tensor) and not a.requires_grad:
            return copy.deepcopy(a)
        return a

    return [fresh(a) for a in args], {k: fresh(v) for k, v in kwargs.items()}


def compare_implementations(
    fn, *args, seed: int = 0, fd_step: float = 1e-6, max_elements: int = 5000, **kwargs
) -> NormComparison:
    """Run ``fn(*args, **kwargs, impl=...)`` with each implementation and compare.

    Args:
        fn: a norm function from ``nn.functional`` (``F.layer_norm``, ``F.rms_norm``,
            ``F.batch_norm``, ``F.group_norm``) or any function with an ``impl`` argument.
        *args, **kwargs: its arguments, exactly as for a normal call; the Tensors that
            require grad are the ones whose gradients are compared.
        seed: seeds the cotangent ``dy``.
        fd_step: the step of the central finite differences (in float64).
        max_elements: refuse inputs with more elements in total than this (finite
            differences cost two evaluations per element).

    Returns:
        A ``NormComparison``; ``print`` it for the tables, ``.ok`` for the verdict.

    Example::

        >>> x = mg.randn(2, 4, dtype=mg.float64, requires_grad=True)
        >>> compare_implementations(F.layer_norm, x, (4,)).ok
        True
    """
    names = _argument_names(fn, args)
    diff = [(i, names[i]) for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    if not diff:
        raise ValueError("compare_implementations: no argument is a Tensor that requires grad")
    total = sum(args[i]._data.size for i, _ in diff)
    if total > max_elements:
        raise ValueError(
            f"compare_implementations: the inputs have {total} elements; finite differences "
            f"need two evaluations each. Use smaller inputs or raise max_elements "
            f"(now {max_elements})"
        )
    dtype = args[diff[0][0]].dtype
    tol_impl, tol_fd = _TOLERANCES.get(dtype, _TOLERANCES[np.dtype(np.float32)])

    # ---- every implementation: output and gradients of L = sum(y * dy) ----------------
    results = {}
    dy = None
    for impl in _IMPLS:
        run_args, run_kwargs = _fresh_args(args, kwargs)
        y = fn(*run_args, **run_kwargs, impl=impl)
        if dy is None:
            dy = np.random.default_rng(seed).standard_normal(y.shape).astype(y.dtype)
        grads = autograd_grad(
            y, [run_args[i] for i, _ in diff], Tensor._make(dy, False, None), allow_unused=True
        )
        results[impl] = [y._data] + [_zeros_if_none(g, args[i]) for g, (i, _) in zip(grads, diff)]

    # ---- finite differences of L, in float64 with the reference implementation ----------
    numerical = _finite_differences(fn, args, kwargs, diff, dy, fd_step)

    report = NormComparison(getattr(fn, "__name__", "fn"), dtype)
    quantities = ["output"] + [f"d {name}" for _, name in diff]
    for k, quantity in enumerate(quantities):
        rows = [
            _row(a, results[a][k], b, results[b][k], tol_impl)
            for a, b in (("fused", "reference"), ("composite", "reference"), ("fused", "composite"))
        ]
        if k > 0:
            for impl in _IMPLS:
                rows.append(
                    _row(impl, results[impl][k], "finite differences", numerical[k - 1], tol_fd)
                )
        report.tables[quantity] = rows
        report.shapes[quantity] = results["reference"][k].shape
    return report


def _zeros_if_none(g, like: Tensor) -> np.ndarray:
    return np.zeros(like.shape, like.dtype) if g is None else g._data


def _argument_names(fn, args) -> list:
    """The parameter name of each positional argument (``input``, ``weight``, ...)."""
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"arg {i}" for i in range(len(args))]


def _finite_differences(fn, args, kwargs, diff, dy, step) -> list:
    """dL/d(arg) for L = sum(fn(...) * dy), by central differences in float64 (the
    gradient checker's ``numerical_jacobian`` of the one number L)."""

    def as64(a):
        if isinstance(a, Tensor) and a.dtype.kind == "f":
            return Tensor._make(a._data.astype(np.float64), False, None)
        return a

    base = [as64(a) for a in args]
    base_kwargs = {k: as64(v) for k, v in kwargs.items()}
    dy64 = dy.astype(np.float64)

    def loss() -> np.ndarray:
        run_args, run_kwargs = _fresh_args(base, base_kwargs)
        return np.sum(fn(*run_args, **run_kwargs, impl="reference")._data * dy64).reshape(1)

    with no_grad():
        return [
            numerical_jacobian(loss, base[i]._data, step).reshape(base[i].shape) for i, _ in diff
        ]

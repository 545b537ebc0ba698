"""``GradcheckResult``: what a gradient check found, as data and as a readable report.

``str(result)`` is a compact table, one line per (output, input) pair, followed by the
worst entries of every pair that did not pass: the multi-index into the output and the
input, the numerical and analytical derivatives, the absolute and relative error, the
tolerance applied and the estimated error of the finite difference. It never prints
whole Jacobians.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from minigrad.printing import shape_str

#: How each verdict appears in the table.
LABELS = {
    "passed": "ok",
    "failed": "FAILED",
    "inconclusive": "inconclusive",
    "vacuous": "vacuous",
    "non-differentiable": "non-differentiable",
}


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when an analytical gradient disagrees with finite differences.

    The message is the readable report; ``error.result`` holds the ``GradcheckResult``.
    """

    def __init__(self, message: str, result: GradcheckResult | None = None):
        super().__init__(message)
        self.result = result


class GradcheckWarning(UserWarning):
    """A gradient check that did not fail but did not fully verify either: low precision
    inputs, inconclusive or vacuous comparisons, non-differentiable points."""


@dataclass
class Entry:
    """One Jacobian entry (or, in fast mode, one random direction) worth reporting."""

    output_index: tuple
    input_index: tuple
    numerical: float
    analytical: float
    abs_error: float
    rel_error: float
    tolerance: float
    fd_error: float
    status: str
    left: float = float("nan")
    right: float = float("nan")


@dataclass
class PairResult:
    """The verdict for the derivatives of one output with respect to one input.

    Attributes:
        output, input: positions (in the function's returned tuple / in ``inputs``;
            for modules, parameters are numbered after the inputs).
        output_name, input_name: how the report names them (``"input 1"``,
            ``"layers.0.norm1.weight"``).
        verdict: ``"passed"``, ``"failed"``, ``"inconclusive"``, ``"vacuous"`` or
            ``"non-differentiable"``; ``reason`` says why in a sentence.
        step: the finite-difference step h used for this input.
        max_abs_error: the largest |numerical - analytical| over the entries.
        fd_error: the largest estimated error of the finite differences.
        counts: how many entries got each status.
        worst: the worst few entries (see ``Entry``).
        precision_loss: how many times noisier the forward's outputs are than rounding
            at the input's dtype explains (1 for a forward that rounds as expected).
    """

    output: int
    output_name: str
    output_shape: tuple
    input: int
    input_name: str
    input_shape: tuple
    dtype: np.dtype
    verdict: str
    reason: str
    step: float
    max_abs_error: float
    fd_error: float
    counts: dict
    worst: list = field(default_factory=list)
    fast_mode: bool = False
    precision_loss: float = 1.0

    @property
    def label(self) -> str:
        return f"{self.output_name} / {self.input_name}"

    def headline(self) -> str:
        """One sentence naming the output index and the input index."""
        what = {
            "failed": "Jacobian mismatch",
            "inconclusive": "Inconclusive comparison",
            "vacuous": "Vacuous comparison",
            "non-differentiable": "Non-differentiable points",
            "passed": "Gradient ok",
        }[self.verdict]
        if self.output_name.startswith("output"):
            out = self.output_name
        else:
            out = f"output {self.output} ({self.output_name})"
        if self.input_name.startswith(f"input {self.input}"):
            inp = self.input_name
        else:
            inp = f"input {self.input} ({self.input_name})"
        shape = shape_str(self.input_shape)
        return f"{what} for {out} with respect to {inp}, shape {shape}, {self.dtype}: {self.reason}"

    def entry_table(self) -> str:
        if not self.worst:
            return ""
        if self.fast_mode:
            head = ["direction", "numerical", "analytical", "abs err", "rel err", "tolerance"]
            head.append("fd error")
        else:
            head = ["output index", "input index", "numerical", "analytical", "abs err"]
            head += ["rel err", "tolerance", "fd error"]
        nondiff = any(e.status == "non-differentiable" for e in self.worst)
        if nondiff:
            head += ["left", "right"]
        rows = [head]
        for e in self.worst:
            row = (
                [_index(e.input_index)]
                if self.fast_mode
                else [
                    _index(e.output_index),
                    _index(e.input_index),
                ]
            )
            row += [
                f"{e.numerical:.6g}",
                f"{e.analytical:.6g}",
                f"{e.abs_error:.2e}",
                f"{e.rel_error:.2e}" if np.isfinite(e.rel_error) else "inf",
                f"{e.tolerance:.2e}",
                f"{e.fd_error:.1e}",
            ]
            if nondiff:
                row += [f"{e.left:.6g}", f"{e.right:.6g}"]
            rows.append(row)
        return _table(rows, indent="    ")


class GradcheckResult:
    """Everything a gradient check found. ``bool(result)`` is what ``gradcheck`` returns
    (True unless the verdict is ``"failed"``); ``str(result)`` is the readable report.

    Attributes:
        verdict: the overall verdict: ``"failed"`` if any pair failed or a whole-check
            problem was found, else ``"vacuous"`` if every pair was, else
            ``"inconclusive"``, ``"non-differentiable"`` or ``"passed"``.
        pairs: one ``PairResult`` per (output, input) pair.
        problems: failures that concern the whole check (a backward that raised, a
            function that is not deterministic).
        notes: warnings worth reading (low-precision inputs, a blind cotangent).
        cost: how many times the function and backward ran (``function_calls``,
            ``backward_passes``).
        graph_check: for ``gradcheck`` and ``gradcheck_module``, a function that
            checks every node of the checked function's graph on its own
            (``gradcheck_graph``, same tolerances; keyword arguments are passed on):
            ``result.graph_check().first_wrong`` names the wrong backward. None
            elsewhere.
    """

    def __init__(self, kind, pairs, problems, notes, options, verdict: str):
        self.kind = kind
        self.pairs = list(pairs)
        self.problems = list(problems)
        self.notes = list(notes)
        self.atol, self.rtol, self.fast_mode = options.atol, options.rtol, options.fast_mode
        self.cost = dict(options.cost)
        self.verdict = verdict
        self.graph_check = None

    def __bool__(self) -> bool:
        return self.verdict != "failed"

    @property
    def passed(self) -> bool:
        """True only for a clean pass (not vacuous, inconclusive or non-differentiable)."""
        return self.verdict == "passed"

    def failures(self) -> list:
        return [p for p in self.pairs if p.verdict == "failed"]

    def pair(self, output: int = 0, input: int = 0) -> PairResult:
        """The result for one (output, input) pair, by position."""
        for p in self.pairs:
            if p.output == output and p.input == input:
                return p
        raise KeyError(f"no (output {output}, input {input}) pair in this result")

    def by_input(self) -> dict:
        """Each input's name -> its worst verdict over all outputs. "vacuous" only when
        it is vacuous for every output: an output that does not depend on an input is
        no mark against that input's gradient."""
        order = {"failed": 4, "inconclusive": 3, "non-differentiable": 2, "passed": 1}
        out = {}
        for p in self.pairs:
            old = out.get(p.input_name)
            if old is None or order.get(p.verdict, 0) > order.get(old, 0):
                out[p.input_name] = p.verdict
        return out

    def summary(self) -> str:
        """One line per input: ``layers.0.norm1.weight: ok``."""
        return "\n".join(f"{name}: {LABELS[v]}" for name, v in self.by_input().items())

    def __str__(self) -> str:
        mode = ", fast mode" if self.fast_mode else ""
        lines = [
            f"{self.kind} {LABELS[self.verdict] if self.verdict != 'passed' else 'passed'}"
            f" (atol={self.atol:g}, rtol={self.rtol:g}{mode})"
        ]
        single_output = len({p.output_name for p in self.pairs}) <= 1
        rows = [["", "shape", "verdict", "max |num - ana|", "fd error", "step"]]
        for p in self.pairs:
            rows.append(
                [
                    p.input_name if single_output else p.label,
                    shape_str(p.input_shape),
                    LABELS[p.verdict],
                    f"{p.max_abs_error:.1e}",
                    f"{p.fd_error:.1e}",
                    f"{p.step:.2g}",
                ]
            )
        lines.append(_table(rows, indent="  "))
        for problem in self.problems:
            lines.append("")
            lines.append(problem)
        for p in self.pairs:
            if p.verdict == "passed":
                continue
            lines.append("")
            lines.append(p.headline())
            table = p.entry_table()
            if table:
                lines.append(table)
        for note in self.notes:
            lines.append("")
            lines.append(f"note: {note}")
        if self.verdict == "failed" and self.graph_check is not None:
            lines.append("")
            lines.append(
                "To find which node's backward is wrong: error.result.graph_check() (or "
                "result.graph_check() with return_result=True)"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<GradcheckResult {self.verdict}: {len(self.pairs)} pair(s)>"


def _index(ix: tuple) -> str:
    return shape_str(ix)


def _table(rows: list, indent: str) -> str:
    widths = [max(len(str(r[c])) for r in rows) for c in range(len(rows[0]))]
    return "\n".join(
        indent + "  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows
    )

"""What an experiment returns: its claim, the numbers, the checks and the verdict.

An experiment never prints. It measures, writes its CSV and PNG, and returns a
``LabResult``; the command line (``minigrad/cli/lab.py``) shows it. The verdict is
computed from the checks, and every check from a measured number, so a claim the
measurement does not support is reported as such.
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass, field

__all__ = ["Check", "LabResult"]


@dataclass
class Check:
    """One part of the claim, tested against a measurement.

    Args:
        statement: what the claim says, in words (``"post-norm keeps the variance fixed"``).
        passed: whether the measurement agrees; ``None`` when this run did not measure it.
        measured: the numbers behind the decision and the threshold used (or, when not
            checked, why not and how to check it).
    """

    statement: str
    passed: bool | None
    measured: str

    @property
    def checked(self) -> bool:
        return self.passed is not None


@dataclass
class LabResult:
    """The outcome of one experiment.

    Attributes:
        name: the experiment's name (``"residual-growth"``).
        claim: the claim it tests, as printed.
        headline: short lines with the numbers worth remembering.
        checks: every part of the claim with its measurement.
        files: the files written (CSV, and the PNG when matplotlib is installed).
        notes: remarks that are not checks (what the numbers mean, how to get the plot).
        data: the raw measurements, for tests and for readers who want more than the CSV.
        seconds: wall-clock time of the run.
    """

    name: str
    claim: str
    headline: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    files: list[pathlib.Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict)
    seconds: float = 0.0

    def check(self, statement: str, passed, measured: str) -> bool:
        """Record one check and return whether it passed."""
        self.checks.append(Check(statement, bool(passed), measured))
        return bool(passed)

    def not_checked(self, statement: str, why: str) -> None:
        """Record a part of the claim this run does not measure, and why."""
        self.checks.append(Check(statement, None, why))

    @property
    def verdict(self) -> str:
        """``"supported"`` (every part checked and passed), ``"incomplete"`` (every
        checked part passed, some parts not checked), ``"partly supported"`` or ``"not
        supported"`` (some checked part failed: the claim as stated does not hold,
        whatever the unchecked parts would say)."""
        checked = [c for c in self.checks if c.checked]
        passed = sum(c.passed for c in checked)
        if checked and passed == len(checked):
            return "supported" if len(checked) == len(self.checks) else "incomplete"
        return "partly supported" if passed else "not supported"

    def summary(self) -> str:
        """The verdict with its counts, as the command line prints it."""
        checked = [c for c in self.checks if c.checked]
        passed = sum(c.passed for c in checked)
        text = f"{self.verdict.upper()} ({passed} of {len(checked)} checks pass"
        skipped = len(self.checks) - len(checked)
        if skipped:
            text += f"; {skipped} part{'s' if skipped > 1 else ''} of the claim not checked"
        return text + ")"

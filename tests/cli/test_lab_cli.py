"""The ``minigrad lab`` command: listing, errors, and one experiment end to end."""

import subprocess
import sys

import pytest

from minigrad.cli import main
from minigrad.lab import EXPERIMENTS


def test_list_shows_every_experiment_with_its_claim(capsys):
    assert main(["lab", "--list"]) == 0
    out = capsys.readouterr().out
    assert len(EXPERIMENTS) == 11
    for exp in EXPERIMENTS.values():
        assert f"  {exp.name}\n" in out
    assert out.count("claim: ") == len(EXPERIMENTS)
    assert out.count("measured: ") == len(EXPERIMENTS)  # the verdict, not the claim alone


def test_unknown_name_is_a_clear_error_without_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "minigrad", "lab", "no-such-thing"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "minigrad lab: error: unknown experiment 'no-such-thing'; choose one of: " in proc.stderr
    assert "residual-growth" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


@pytest.mark.parametrize(
    "argv, message",
    [
        (["lab"], "name an experiment, or 'all'"),
        (["lab", "invariance", "--seed", "-1"], "--seed must be a non-negative integer"),
    ],
)
def test_bad_invocations_exit_2_with_a_message(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_an_experiment_prints_claim_numbers_checks_verdict_and_writes_png_and_csv(tmp_path, capsys):
    out = tmp_path / "inv"
    assert main(["lab", "invariance", "--quick", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("lab invariance: ")
    assert "claim: LayerNorm's output does not change" in text
    assert "measured:\n  - " in text
    assert text.count("[pass]") == 5
    assert "verdict: SUPPORTED (5 of 5 checks pass)" in text
    assert (out / "invariance.csv").stat().st_size > 0
    assert (out / "invariance.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(out / "invariance.png") in text.replace("\n", "").replace("  ", "")


def test_a_partly_supported_claim_says_so_and_still_exits_0(tmp_path, capsys, monkeypatch):
    # A stand-in with one check that passes and one that fails, so the test does not
    # depend on a real experiment's numbers; the command must show both and exit 0.
    from minigrad.lab import registry
    from minigrad.lab.result import LabResult

    def run(out=None, seed=0, quick=False, progress=None):
        result = LabResult(name="half-true", claim="Two things hold.")
        result.check("the first thing holds", 2.0 > 1.0, "2.0 > 1.0")
        result.check("the second thing holds", 0.5 > 1.0, "0.5 is not > 1.0")
        return result

    stand_in = registry.Experiment(
        "half-true", "a claim that is half true", "Two things hold.", run
    )
    monkeypatch.setitem(registry.EXPERIMENTS, "half-true", stand_in)
    assert main(["lab", "half-true", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "[pass] the first thing holds" in text
    assert "[FAIL] the second thing holds" in text
    assert "0.5 is not > 1.0" in text
    assert "verdict: PARTLY SUPPORTED (1 of 2 checks pass)" in text


def test_a_part_not_checked_is_shown_as_skipped_and_the_verdict_is_incomplete(
    tmp_path, capsys, monkeypatch
):
    # --quick leaves some parts of a claim unmeasured: the run must never read
    # "supported" for a claim it did not check in full
    from minigrad.lab import registry
    from minigrad.lab.result import LabResult

    def run(out=None, seed=0, quick=False, progress=None):
        result = LabResult(name="half-checked", claim="Two things hold.")
        result.check("the first thing holds", True, "2.0 > 1.0")
        result.not_checked("the second thing holds", "not measured at this size")
        return result

    stand_in = registry.Experiment("half-checked", "half checked", "Two things hold.", run)
    monkeypatch.setitem(registry.EXPERIMENTS, "half-checked", stand_in)
    assert main(["lab", "half-checked", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "[skip] the second thing holds" in text and "not measured at this size" in text
    assert "verdict: INCOMPLETE (1 of 1 checks pass; 1 part of the claim not checked)" in text
    assert "SUPPORTED" not in text

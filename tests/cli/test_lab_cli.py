"""The ``minigrad lab`` command: listing, errors, and one experiment end to end."""

import subprocess
import sys

import pytest

from minigrad.cli import main
from minigrad.lab import EXPERIMENTS


def test_list_shows_every_experiment_with_its_claim(capsys):
    assert main(["lab", "--list"]) == 0
    out = capsys.readouterr().out
    for exp in EXPERIMENTS.values():
        assert f"  {exp.name}\n" in out
    assert out.count("claim: ") == len(EXPERIMENTS)


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


def test_a_partly_supported_claim_says_so_and_still_exits_0(tmp_path, capsys):
    assert main(["lab", "gradient-flow", "--quick", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "[FAIL] pre-norm: gradients roughly even across depth" in text
    assert "verdict: PARTLY SUPPORTED (1 of 2 checks pass)" in text

"""Helpers for the command-line tests, as fixtures: ``cli`` runs the real
``python -m minigrad`` in a subprocess and checks its exit status and that it printed no
traceback; ``tiny_run`` and ``text_run`` are small trained runs (a tiny model, a few
steps) that several tests read."""

import os
import signal
import subprocess
import sys
import time

import pytest

#: A model small enough that a step takes milliseconds; a run needs --steps.
TINY = [
    "--task", "reverse", "--length", "3", "--n-layers", "1", "--d-model", "16",
    "--n-heads", "2", "--d-ff", "32", "--batch-size", "8", "--warmup-steps", "0",
    "--no-progress",
]  # fmt: skip


def _env() -> dict:
    return dict(os.environ, PYTHONUNBUFFERED="1")


def minigrad(*args, timeout: float = 180, cwd=None) -> subprocess.CompletedProcess:
    """Run ``python -m minigrad ARGS`` and return the finished process (text output)."""
    return subprocess.run(
        [sys.executable, "-m", "minigrad", *map(str, args)],
        capture_output=True, text=True, timeout=timeout, cwd=cwd, env=_env(),
    )  # fmt: skip


#: ``python -m minigrad`` with SIGINT's disposition set first, in the child: Python's
#: KeyboardInterrupt ("default") or SIG_IGN ("ignored"). A test run started under
#: ``nohup`` or with ``&`` inherits SIGINT ignored, and so would the child.
_WITH_SIGINT = (
    "import runpy, signal, sys; "
    "signal.signal(signal.SIGINT, signal.SIG_IGN if sys.argv.pop(1) == 'ignored' "
    "else signal.default_int_handler); "
    "runpy.run_module('minigrad', run_name='__main__', alter_sys=True)"
)


def start(*args, cwd=None, sigint: str = "default") -> subprocess.Popen:
    """Start ``python -m minigrad ARGS`` without waiting (for the Ctrl-C tests), with
    SIGINT ``"default"`` (Ctrl-C raises KeyboardInterrupt) or ``"ignored"``, whatever
    this test run inherited."""
    return subprocess.Popen(
        [sys.executable, "-c", _WITH_SIGINT, sigint, *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd, env=_env(),
    )  # fmt: skip


def interrupt(proc: subprocess.Popen, times: int = 1, gap: float = 0.0, timeout: float = 120):
    """Send Ctrl-C (SIGINT) ``times`` times, ``gap`` seconds apart; wait for the end."""
    for i in range(times):
        if i:
            time.sleep(gap)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=timeout)
    finally:
        proc.kill()


def assert_fails(proc, status: int, *fragments: str) -> str:
    """The command exited with ``status``, printed no traceback, and its error output
    contains every fragment; returns that output."""
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out
    assert proc.returncode == status, out
    for fragment in fragments:
        assert fragment in proc.stderr, proc.stderr
    return proc.stderr


class CLI:
    """What the tests call: ``cli.run(...)``, ``cli.start(...)``, ``cli.interrupt(...)``,
    ``cli.fails(proc, status, *fragments)``; ``cli.TINY`` the tiny model's options."""

    TINY = TINY
    run = staticmethod(minigrad)
    start = staticmethod(start)
    interrupt = staticmethod(interrupt)
    fails = staticmethod(assert_fails)


@pytest.fixture(scope="session")
def cli():
    return CLI


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """A finished 8-step run of the tiny model (its checkpoint is at step 8)."""
    out = tmp_path_factory.mktemp("cli") / "tiny"
    proc = minigrad("train", *TINY, "--steps", 8, "--eval-interval", 4, "--out", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (out.parent / "tiny.stdout").write_text(proc.stdout, encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def text_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("text") / "book.txt"
    line = "the quick brown fox jumps over the lazy dog. "
    path.write_text(line * 60, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def text_run(tmp_path_factory, text_file):
    """A 3-step character-level run on a small text file."""
    out = tmp_path_factory.mktemp("cli") / "text"
    proc = minigrad(
        "train", "--task", "text", "--text", text_file, "--length", 16, "--n-layers", 1,
        "--d-model", 16, "--n-heads", 2, "--d-ff", 32, "--batch-size", 4, "--steps", 3,
        "--warmup-steps", 0, "--no-progress", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out

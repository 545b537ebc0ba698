"""The ``minigrad train`` and ``minigrad generate`` commands, run in-process (fast) and,
where the process boundary matters (exit codes, Ctrl-C), as real subprocesses."""

import csv
import json
import signal
import sys
import time

import pytest

import minigrad as mg
from minigrad.cli import main
from minigrad.cli import train as train_cli

SMALL = [
    "--task",
    "reverse",
    "--length",
    "4",
    "--n-layers",
    "1",
    "--d-model",
    "32",
    "--n-heads",
    "2",
    "--d-ff",
    "64",
    "--batch-size",
    "32",
    "--lr",
    "0.01",
    "--warmup-steps",
    "20",
    "--no-progress",
]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One short run that learns the task, shared by the tests that only read its outputs."""
    out = tmp_path_factory.mktemp("run") / "reverse"
    code = main(["train", *SMALL, "--steps", "150", "--eval-interval", "75", "--out", str(out)])
    assert code == 0
    return out


def _log(folder):
    with open(folder / "log.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_help_explains_every_option(capsys):
    with pytest.raises(SystemExit) as e:
        main(["train", "--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    for option in (
        "--task",
        "--text",
        "--length",
        "--n-layers",
        "--d-model",
        "--n-heads",
        "--d-ff",
        "--norm",
        "--norm-placement",
        "--dropout",
        "--steps",
        "--batch-size",
        "--lr",
        "--warmup-steps",
        "--weight-decay",
        "--grad-clip",
        "--seed",
        "--out",
        "--config",
        "--resume",
    ):
        assert option in text


def test_a_run_writes_its_outputs_and_reports_accuracy(trained, capsys):
    assert json.loads((trained / "config.json").read_text())["steps"] == 150
    rows = _log(trained)
    assert [int(r["step"]) for r in rows if r["accuracy"]] == [75, 150]
    assert float(rows[-1]["accuracy"]) >= 0.99
    assert float(rows[-1]["loss"]) < float(rows[0]["loss"]) / 20
    assert (trained / "checkpoint.safetensors").is_file()
    plot = trained / "loss.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not plot.exists()
    else:
        assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_generate_answers_from_the_checkpoint(trained, capsys):
    assert main(["generate", "--checkpoint", str(trained), "--input", "9 0 1 7"]) == 0
    assert capsys.readouterr().out.strip() == "7 1 0 9"
    assert main(["sample", "--checkpoint", str(trained / "checkpoint.safetensors")]) == 0
    assert "5/5 held-out examples right" in capsys.readouterr().out


def test_config_file_is_overridden_by_options(tmp_path, capsys):
    cfg = tmp_path / "run.toml"
    cfg.write_text("steps = 50\nd_model = 16\nn_heads = 2\nlength = 3\n", encoding="utf-8")
    out = tmp_path / "out"
    code = main(
        [
            "train",
            "--config",
            str(cfg),
            "--steps",
            "3",
            "--warmup-steps",
            "1",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    saved = json.loads((out / "config.json").read_text())
    assert (saved["steps"], saved["d_model"], saved["length"]) == (3, 16, 3)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--task", "revers"], "task must be one of"),
        (["--task", "text", "--text", "/no/such/file.txt"], "text file not found"),
        (["--d-model", "30", "--n-heads", "4"], "d_model (30) must be divisible by n_heads (4)"),
        (["--config", "/no/such.toml"], "config file not found"),
    ],
)
def test_bad_input_is_a_clear_error_with_exit_status_2(args, message, tmp_path, capsys):
    assert main(["train", *args, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_non_utf8_text_is_refused(tmp_path, capsys):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("d\xe9j\xe0 vu ".encode("latin-1") * 500)
    assert main(["train", "--text", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "not valid UTF-8" in capsys.readouterr().err


def test_resume_with_a_different_model_names_the_mismatched_fields(trained, tmp_path, capsys):
    assert main(["train", "--resume", str(trained), "--d-model", "64", "--no-progress"]) == 2
    assert "d_model (checkpoint: 32, now: 64)" in capsys.readouterr().err


def test_interrupted_then_resumed_run_logs_the_same_losses(tmp_path, monkeypatch, capsys):
    args = [
        *SMALL,
        "--steps",
        "12",
        "--warmup-steps",
        "3",
        "--dropout",
        "0.1",
        "--log-interval",
        "1",
        "--checkpoint-interval",
        "100",
    ]
    straight = tmp_path / "straight"
    assert main(["train", *args, "--out", str(straight)]) == 0

    class StopAtStep5(train_cli._StopFlag):
        calls = 0

        @property
        def requested(self):
            StopAtStep5.calls += 1
            return StopAtStep5.calls == 5

        @requested.setter
        def requested(self, value):
            pass

    stopped = tmp_path / "stopped"
    monkeypatch.setattr(train_cli, "_StopFlag", StopAtStep5)
    assert main(["train", *args, "--out", str(stopped)]) == 130
    assert "interrupted at step 5" in capsys.readouterr().out
    monkeypatch.undo()
    assert main(["train", "--resume", str(stopped), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "resuming from step 5 of 12" in out
    assert "\ntrained 7 steps (from step 5 to 12, resumed) in " in out  # not "trained 12"
    assert main(["train", "--resume", str(stopped), "--no-progress"]) == 0
    assert "nothing left to train: the checkpoint had reached step 12" in capsys.readouterr().out

    def losses(folder):
        return [(r["step"], r["loss"]) for r in _log(folder)]

    assert len(losses(straight)) == 12
    assert losses(stopped) == losses(straight)


def test_ctrl_c_saves_a_checkpoint_and_exits_130(cli, tmp_path):
    out = tmp_path / "run"
    proc = cli.start("train", *SMALL, "--steps", 100000, "--log-interval", 1, "--out", out)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if (out / "log.csv").exists() and len(_log(out)) >= 2:
                break
            time.sleep(0.2)
        else:
            pytest.fail("training never logged a step")
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "checkpoint saved" in stdout
    state = mg.load(out / "checkpoint.safetensors")
    assert state["step"] >= 2


def test_stats_interval_writes_per_layer_statistics(tmp_path):
    out = tmp_path / "stats"
    code = main(["train", *SMALL, "--steps", "20", "--eval-interval", "20",
                 "--stats-interval", "10", "--out", str(out)])  # fmt: skip
    assert code == 0
    with open(out / "layers.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert sorted({int(r["step"]) for r in rows}) == [1, 10, 20]
    assert [r["layer"] for r in rows if r["step"] == "10"] == ["0", "1"]  # 1 block
    assert rows[1]["grad_norm"] and not rows[0]["grad_norm"]  # layer 0: the embeddings
    assert (out / "layers.png").is_file()


def test_version(capsys):
    import minigrad as mg

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"minigrad {mg.__version__} (Python ") and "numpy " in line, line


def test_a_run_of_minigrad_0_1_resumes_and_generates(tmp_path, capsys):
    """A run folder from minigrad 0.1 holds checkpoint.npz (tests/data: 2 steps of the
    tiny model): generate reads it, --resume continues it into checkpoint.safetensors."""
    import pathlib
    import shutil

    folder = tmp_path / "old-run"
    folder.mkdir()
    fixture = pathlib.Path(__file__).parents[1] / "data" / "train-checkpoint-npz-v1.npz"
    shutil.copy(fixture, folder / "checkpoint.npz")
    assert main(["generate", "--checkpoint", str(folder), "--input", "1 2 3"]) == 0
    assert len(capsys.readouterr().out.split()) == 3
    assert main(["train", "--resume", str(folder), "--steps", "4", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "resuming from step 2 of 4" in out and "trained 2 steps (from step 2 to 4" in out
    assert mg.load(folder / "checkpoint.safetensors")["step"] == 4
    assert main(["train", "--resume", str(folder), "--no-progress"]) == 0  # the new file
    assert "reached step 4" in capsys.readouterr().out


def test_without_the_train_extra_the_note_says_how_a_user_installs_it(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "run"
    small = [a for a in SMALL if a != "--no-progress"]  # a progress bar is wanted
    argv = ["train", *small, "--steps", "2", "--warmup-steps", "0", "--eval-interval", "2"]
    assert main([*argv, "--out", str(out)]) == 0
    note = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note:")]
    assert note == [
        "note: install minigrad's train extra (pip install 'minigrad[train]') to get the "
        "progress bar and the plots loss.png and attention.png"
    ]
    assert not (out / "loss.png").exists()

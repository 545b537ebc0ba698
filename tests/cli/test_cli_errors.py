"""Every user mistake gets one clear line and an exit status, never a traceback.

Each test runs the real command (``python -m minigrad ...``) in a subprocess and checks
the exit status (2: bad usage, 1: a run that failed, 130: Ctrl-C) and that no
"Traceback" was printed. Cases from issue 14.
"""

import os
import pickle
import sys
import time
import zipfile

import numpy as np
import pytest

import minigrad as mg


def _state(run):
    return mg.load(run / "checkpoint.safetensors")


def _save_copy(state, tmp_path, name="ckpt"):
    folder = tmp_path / name
    folder.mkdir()
    mg.save(state, folder / "checkpoint.safetensors")
    return folder


# ---------------------------------------------------------------------- generate
@pytest.mark.parametrize(
    "kind, message",
    [
        ("truncated", "truncated or corrupt"),
        ("empty", "empty file"),
        ("pickle", "looks like a pickle file"),
        ("torch-zip", "is a PyTorch checkpoint"),
        ("npy", "not a minigrad training checkpoint"),
        ("not-training", "not a minigrad training checkpoint"),
    ],
)
def test_generate_on_a_file_that_is_not_a_checkpoint(cli, tiny_run, tmp_path, kind, message):
    path = tmp_path / "bad.npz"
    if kind == "truncated":
        data = (tiny_run / "checkpoint.safetensors").read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "pickle":
        path.write_bytes(pickle.dumps({"model": [1, 2, 3]}))
    elif kind == "torch-zip":  # the layout torch.save writes: pickled data in a zip
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("archive/data.pkl", pickle.dumps({}))
    elif kind == "npy":
        path = tmp_path / "weights.npy"
        np.save(path, np.ones(3))
    else:
        mg.save({"weights": np.ones(3)}, path)
    proc = cli.run("generate", "--checkpoint", path)
    cli.fails(proc, 2, "minigrad generate: error:", str(path), message)


def test_generate_with_wrong_weight_shapes_names_the_key(cli, tiny_run, tmp_path):
    state = _state(tiny_run)
    state["model"]["head.weight"] = mg.zeros(7, 16)
    folder = _save_copy(state, tmp_path)
    proc = cli.run("generate", "--checkpoint", folder, "--input", "123")
    cli.fails(proc, 2, "model state does not fit", "head.weight")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--temperature", "nan"], "--temperature must be a finite number >= 0"),
        (["--temperature", "-1"], "--temperature must be a finite number >= 0"),
        (["--temperature", "inf"], "--temperature must be a finite number >= 0"),
        (["--seed", "-1"], "--seed must be a non-negative integer, got -1"),
        (["--prompt", "hello"], "--prompt is for the text task"),
        (["--input", "12"], "must be 3 digits"),
        (["--chars", "0"], "--chars must be between 1 and"),
    ],
)
def test_generate_refuses_bad_options(cli, tiny_run, args, message):
    cli.fails(cli.run("generate", "--checkpoint", tiny_run, *args), 2, message)


def test_generate_runs_a_text_model_from_the_checkpoint_alone(cli, text_run, text_file, tmp_path):
    # The checkpoint holds the vocabulary: the text file is not needed (nor read).
    moved = tmp_path / "moved.txt"
    os.replace(text_file, moved)
    try:
        proc = cli.run("generate", "--checkpoint", text_run, "--prompt", "the ", "--chars", 20)
        unprompted = cli.run("generate", "--checkpoint", text_run, "--chars", 5)
    finally:
        os.replace(moved, text_file)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("the ") and len(proc.stdout.rstrip("\n")) == 24
    assert unprompted.returncode == 0, unprompted.stderr
    proc = cli.run("generate", "--checkpoint", text_run, "--prompt", "ZZZ")
    cli.fails(proc, 2, "characters the model never saw")


# ---------------------------------------------------------------------- train --resume
@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda s: s.pop("optimizer"), "optimizer state does not fit: missing 'optimizer'"),
        (
            lambda s: s["model"].__setitem__("tok_emb.weight", mg.zeros(3, 3)),
            "tok_emb.weight",
        ),
        (
            lambda s: s["rng"]["data"].__setitem__("state", "not a number"),
            "rng state does not fit",
        ),
        (lambda s: s.__setitem__("step", -3), "step"),
        (lambda s: s.pop("config"), "has no 'config' table"),
        (lambda s: s.pop("format"), "not a minigrad training checkpoint"),
        (lambda s: s["config"].__setitem__("d_model", "wide"), "d_model must be int"),
    ],
    ids=["no-optimizer", "wrong-shape", "corrupt-rng", "bad-step", "no-config", "no-format",
         "bad-config"],
)  # fmt: skip
def test_resume_from_a_malformed_checkpoint(cli, tiny_run, tmp_path, damage, message):
    state = _state(tiny_run)
    damage(state)
    folder = _save_copy(state, tmp_path)
    before = sorted(os.listdir(folder))
    proc = cli.run("train", "--resume", folder, "--steps", 10, "--no-progress")
    cli.fails(proc, 2, "minigrad train: error:", message)
    assert sorted(os.listdir(folder)) == before  # nothing written (no config.json, no log)


def test_resume_with_fewer_steps_than_done_is_refused_and_changes_nothing(cli, tiny_run):
    config = (tiny_run / "config.json").read_text()
    proc = cli.run("train", "--resume", tiny_run, "--steps", 4, "--no-progress")
    cli.fails(proc, 2, "--steps 4 is below the step the checkpoint", "reached (8)")
    assert (tiny_run / "config.json").read_text() == config


def test_resume_into_another_out_folder_is_refused(cli, tiny_run, tmp_path):
    proc = cli.run("train", "--resume", tiny_run, "--out", tmp_path / "elsewhere")
    cli.fails(proc, 2, "contradicts --resume")


# ---------------------------------------------------------------------- train options
@pytest.mark.parametrize(
    "args, message",
    [
        (["--lr", "nan"], "lr must be a finite number, got nan"),
        (["--lr", "inf"], "lr must be a finite number, got inf"),
        (["--weight-decay", "nan"], "weight_decay must be a finite number"),
        (["--grad-clip", "nan"], "grad_clip must be a finite number"),
        (["--dropout", "nan"], "dropout must be a finite number"),
        (["--min-lr-ratio=-inf"], "min_lr_ratio must be a finite number"),
        (["--text", "README.md"], "is read only by the text task, not by 'reverse'"),
        (["--steps", "5", "--warmup-steps", "40"], "give --warmup-steps"),
        (["--d-model", "1000000", "--n-heads", "1"], "this configuration needs at least"),
        (["--batch-size", "100000000"], "GiB for one step's activations"),
        (["--length", "100000000"], "use a smaller"),
        (["--steps", "abc"], "invalid int value: 'abc'"),
        (["--threads", "0"], "--threads must be at least 1"),
    ],
)
def test_train_refuses_bad_options(cli, tmp_path, args, message):
    out = tmp_path / "run"
    proc = cli.run("train", *cli.TINY, "--steps", 2, *args, "--out", out)
    cli.fails(proc, 2, message)
    assert not (out / "checkpoint.safetensors").exists()


def test_out_naming_a_file_or_an_unwritable_place(cli, tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    proc = cli.run("train", *cli.TINY, "--steps", 2, "--out", a_file)
    cli.fails(proc, 2, f"--out {a_file}: this is a file, not a folder")
    proc = cli.run("train", *cli.TINY, "--steps", 2, "--out", a_file / "run")
    cli.fails(proc, 2, "cannot write there")
    assert a_file.read_text() == "x"


def test_out_holding_another_run_is_not_overwritten(cli, tiny_run):
    before = (tiny_run / "checkpoint.safetensors").read_bytes()
    proc = cli.run("train", *cli.TINY, "--steps", 2, "--out", tiny_run)
    cli.fails(proc, 2, "already holds a run", f"--resume {tiny_run}")
    assert (tiny_run / "checkpoint.safetensors").read_bytes() == before


def test_config_file_that_is_not_utf8(cli, tmp_path):
    cfg = tmp_path / "run.toml"
    cfg.write_bytes("# r\xe9glages\nsteps = 3\n".encode("latin-1"))
    proc = cli.run("train", "--config", cfg, "--out", tmp_path / "o")
    cli.fails(proc, 2, f"{cfg}: not valid UTF-8")
    cfg_dir = tmp_path / "dir.toml"
    cfg_dir.mkdir()
    cli.fails(cli.run("train", "--config", cfg_dir), 2, "config file not found")


def test_too_short_text_names_the_real_option(cli, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("tiny text", encoding="utf-8")
    proc = cli.run("train", "--text", short, "--length", 32, "--out", tmp_path / "o")
    err = cli.fails(proc, 2, "with --length 32", "smaller --length")
    assert "--seq-len" not in err


def test_add_with_19_digits_trains_without_overflow(cli, tmp_path):
    proc = cli.run(
        "train", *cli.TINY, "--task", "add", "--length", 19, "--steps", 2, "--out", tmp_path / "o"
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr


def test_threads_above_the_core_count_are_capped_with_a_note(cli, tmp_path):
    proc = cli.run("train", *cli.TINY, "--steps", 2, "--threads", 64, "--out", tmp_path / "o")
    assert proc.returncode == 0, proc.stderr
    assert "note: --threads 64 is more than the" in proc.stderr
    assert f"using {len(os.sched_getaffinity(0))}" in proc.stderr


def test_a_diverging_run_stops_and_keeps_its_last_good_checkpoint(cli, tmp_path):
    out = tmp_path / "run"
    proc = cli.run(
        "train", *cli.TINY, "--steps", 20, "--lr", "1e30", "--checkpoint-interval", 1,
        "--log-interval", 1, "--out", out,
    )  # fmt: skip
    err = cli.fails(proc, 1, "minigrad train: error: the ", "training stopped", "lower --lr")
    state = mg.load(out / "checkpoint.safetensors")
    assert 1 <= state["step"] < 20
    assert f"(step {state['step']})" in err
    for name, value in state["model"].items():
        assert np.isfinite(value.numpy()).all(), name


# ---------------------------------------------------------------------- Ctrl-C, pipes
def test_ctrl_c_before_the_first_step(cli, tmp_path):
    # Ctrl-C as soon as the run has said it is starting: the first step (which loads
    # the compiled kernels) has not finished yet.
    out = tmp_path / "o"
    proc = cli.start("train", *cli.TINY, "--steps", 100000, "--out", out)
    first_line = proc.stdout.readline()
    assert first_line.startswith("minigrad train: starting"), first_line
    stdout, stderr = cli.interrupt(proc)
    assert "Traceback" not in stdout + stderr, stderr
    assert proc.returncode == 130, stderr
    if (out / "checkpoint.safetensors").exists():  # the first Ctrl-C lets the step finish and saves
        assert mg.load(out / "checkpoint.safetensors")["step"] == 1


def test_a_run_started_with_sigint_ignored_keeps_ignoring_it(cli, tmp_path):
    # as a shell's background job (`&`) or under nohup: the terminal's Ctrl-C is not for it
    proc = cli.start("train", *cli.TINY, "--steps", 30, "--out", tmp_path / "o", sigint="ignored")
    assert proc.stdout.readline().startswith("minigrad train: starting")
    stdout, stderr = cli.interrupt(proc, times=2, gap=0.05)
    assert proc.returncode == 0, stderr
    assert "trained 30 steps" in stdout and "interrupted" not in stdout + stderr


def test_two_quick_ctrl_c_stop_at_once_without_a_traceback(cli, tmp_path):
    out = tmp_path / "run"
    proc = cli.start(
        "train", *cli.TINY, "--steps", 100000, "--log-interval", 1, "--checkpoint-interval", 1,
        "--out", out,
    )  # fmt: skip
    deadline = time.time() + 120
    while not (out / "checkpoint.safetensors").exists() and time.time() < deadline:
        time.sleep(0.05)
    stdout, stderr = cli.interrupt(proc, times=2, gap=0.005)
    assert "Traceback" not in stdout + stderr, stderr
    assert proc.returncode == 130, stderr
    assert mg.load(out / "checkpoint.safetensors")["step"] >= 1  # still a complete checkpoint


def test_lab_list_into_a_closed_pipe(cli):
    proc = cli.start("lab", "--list")
    proc.stdout.close()  # the reader goes away at once, like `| head -1` after its line
    stderr = proc.stderr.read()
    proc.wait(timeout=120)
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert proc.returncode in (0, 1)


def test_lab_list_piped_into_head(cli, tmp_path):
    if sys.platform == "win32":
        pytest.skip("needs a POSIX shell")
    import subprocess

    proc = subprocess.run(
        f"{sys.executable} -m minigrad lab --list | head -1",
        shell=True, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.stdout.startswith("experiments")
    assert "Traceback" not in proc.stderr, proc.stderr


# ---------------------------------------------------------------------- what a run shows
def test_a_run_reports_tokens_per_second_and_draws_its_attention(tiny_run):
    stdout = (tiny_run.parent / "tiny.stdout").read_text(encoding="utf-8")
    speed = [line for line in stdout.splitlines() if line.startswith("speed: ")]
    assert len(speed) == 1 and " tokens/s (" in speed[0], stdout
    tokens_per_s = float(speed[0].split()[1].replace(",", ""))
    ms_per_step = float(speed[0].split("(")[1].split()[0])
    # 8 sequences of 6 tokens per step: the two figures must agree, up to the 0.05 ms
    # rounding of the printed milliseconds (a tiny step takes about 1 ms)
    assert abs(tokens_per_s * ms_per_step / 1000 - 48) <= tokens_per_s * 0.05e-3 + 0.5
    assert "first step excluded" in speed[0], speed
    first = [line for line in stdout.splitlines() if line.startswith("first step: ")]
    assert len(first) == 1 and "Numba kernels" in first[0], stdout
    pytest.importorskip("matplotlib")
    assert (tiny_run / "attention.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "attention.png" in stdout


def test_the_speed_leaves_out_the_first_step_which_loads_the_kernels(capsys):
    from minigrad.cli.train import _print_speed

    # 5 steps of 100 tokens: the first took 2 s (kernels loaded), the other 4 took 0.4 s
    # in all, so 0.1 s, 1,000 tokens/s each; with the first, it would read 167 tokens/s.
    _print_speed(5, 2.0, 0.4, 100)
    speed, first = capsys.readouterr().out.splitlines()
    assert speed.startswith("speed: 1,000 tokens/s (100.0 ms per step of 100 tokens;"), speed
    assert first.startswith("first step: 2.0 s"), first
    # a run of one step has nothing else to time: its speed is that step's
    _print_speed(1, 0.5, 0.0, 100)
    (only,) = capsys.readouterr().out.splitlines()
    assert only.startswith("speed: 200 tokens/s (500.0 ms for the only step"), only


def test_a_second_ctrl_c_during_a_save_keeps_the_previous_checkpoint(
    cli, tmp_path, monkeypatch, capsys
):
    # In-process, to land the interrupt exactly inside the write: the second save
    # (step 2) is interrupted halfway through writing its temporary file.
    from minigrad.cli import main
    from minigrad.serialization import safetensors_file

    real_write = safetensors_file.write_file
    calls = []

    def interrupted_write(arrays, metadata, path):
        calls.append(1)
        if len(calls) == 2:
            with open(path, "wb") as f:
                f.write(b"\x10\x00\x00\x00\x00\x00\x00\x00{half a checkpoint")
            raise KeyboardInterrupt
        return real_write(arrays, metadata, path)

    monkeypatch.setattr(safetensors_file, "write_file", interrupted_write)
    out = tmp_path / "run"
    argv = ["train", *cli.TINY, "--steps", 5, "--checkpoint-interval", 1, "--out", out]
    assert main([str(a) for a in argv]) == 130
    err = capsys.readouterr().err
    assert "stopped at once (second Ctrl-C)" in err
    assert f"The last good checkpoint (step 1) is kept in {out / 'checkpoint.safetensors'}" in err
    monkeypatch.undo()
    assert mg.load(out / "checkpoint.safetensors")["step"] == 1
    assert not list(out.glob("*.tmp")) and not list(out.glob(".*.tmp"))

"""``minigrad train``: train a tiny transformer, with progress, evaluation, checkpoints, a plot.

Configuration comes from, in increasing priority: the defaults, a ``--config`` file
(TOML or JSON, the same keys as the options), the command-line options. ``--resume
FOLDER`` continues a run from its checkpoint, exactly as if it had never stopped.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import pathlib
import signal
import sys
import time

from minigrad.cli.errors import CLIError

EPILOG = """\
examples:
  minigrad train                                  # reverse 8 digits, under a minute
  minigrad train --task add --length 3 --steps 1500
  minigrad train --task text --text book.txt --length 128 --d-model 128 --steps 3000
  minigrad train --config run.toml --lr 1e-3      # options override the file
  minigrad train --resume runs/reverse-20261129-140000

outputs (in --out, default runs/TASK-TIMESTAMP): config.json, log.csv, loss.png,
attention.png, checkpoint.safetensors. Ctrl-C saves a checkpoint before exiting (a second
Ctrl-C stops at once). A run whose loss becomes NaN or infinite stops and keeps its last
good checkpoint. Exit status: 0 done, 1 failed run, 2 bad usage, 130 interrupted.
"""


def add_parser(sub) -> None:
    from minigrad.train.config import TrainConfig

    p = sub.add_parser(
        "train",
        help="train a tiny transformer on a built-in task",
        description="Train a small decoder-only transformer on a built-in task or a text file.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--config", metavar="FILE", help="a TOML or JSON file with the same keys as these options"
    )
    p.add_argument("--resume", metavar="FOLDER", help="continue the run saved in FOLDER")
    p.add_argument(
        "--no-progress", action="store_true", help="plain log lines instead of a progress bar"
    )
    p.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help=(
            "threads for matmuls and kernels (default: all cores; fewer can be faster "
            "on a busy machine)"
        ),
    )
    for f in dataclasses.fields(TrainConfig):
        kind = {int: int, float: float}.get(type(f.default), str)
        if f.name == "out":
            kind = str
        default = "none" if f.default is None else f.default
        p.add_argument(
            "--" + f.name.replace("_", "-"),
            dest=f.name,
            type=kind,
            default=argparse.SUPPRESS,
            metavar={int: "N", float: "X"}.get(kind, "NAME" if f.name != "text" else "PATH"),
            help=f"{f.metadata.get('help', '')} (default: {default})",
        )
    p.set_defaults(run=run)


def _config_from(args):
    """Defaults < config file < command line; with --resume, the checkpoint's config first."""
    from minigrad.train.config import TrainConfig, load_config_file

    values = {}
    if args.resume:
        saved, saved_step = _checkpoint_config(args.resume)
        values.update(saved)
        if getattr(args, "out", None) is not None and not _same_path(args.out, args.resume):
            raise CLIError(
                f"--out {args.out} contradicts --resume {args.resume}: a resumed run continues "
                "in its own folder; leave out --out"
            )
        values["out"] = str(pathlib.Path(args.resume))
    if args.config:
        values.update(load_config_file(args.config))
    given = {f.name for f in dataclasses.fields(TrainConfig)} & set(vars(args))
    values.update({name: getattr(args, name) for name in given})
    if values.get("text") and "task" not in values:
        values["task"] = "text"
    config = TrainConfig.from_dict(values)
    if args.resume and config.steps < saved_step:
        raise CLIError(
            f"--steps {config.steps} is below the step the checkpoint in {args.resume} "
            f"reached ({saved_step}); give --steps {saved_step} or more (or leave it out)"
        )
    return config.validate()


def _same_path(a, b) -> bool:
    return pathlib.Path(a).resolve() == pathlib.Path(b).resolve()


def _checkpoint_config(folder) -> tuple[dict, int]:
    import minigrad as mg
    from minigrad.train.runlog import RunFolder
    from minigrad.train.trainer import checkpoint_config

    path = RunFolder(folder).saved_checkpoint()
    if path is None:
        raise CLIError(f"--resume {folder}: no checkpoint.safetensors in that folder")
    state = mg.load(path)  # CheckpointError names the file
    config = checkpoint_config(state, path)
    step = state.get("step")
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        raise CLIError(f"--resume {folder}: the checkpoint's step is not a count: {step!r}")
    return {k: v for k, v in config.to_dict().items() if v is not None}, step


def _prepare_out(config, resuming: bool) -> None:
    """--out must be a folder we can write (and, for a new run, not another run's)."""
    from minigrad.train.runlog import RunFolder

    path = pathlib.Path(config.out)
    if path.exists() and not path.is_dir():
        raise CLIError(f"--out {path}: this is a file, not a folder; choose another --out")
    held = RunFolder(path).saved_checkpoint()
    if not resuming and held is not None:
        raise CLIError(
            f"--out {path} already holds a run ({held.name}); continue it with "
            f"--resume {path}, or choose another --out"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".minigrad-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise CLIError(
            f"--out {path}: cannot write there ({e.strerror}); choose a folder you can write"
        ) from None


def training_threading_layer() -> None:
    """Opt in to Numba's workqueue threading layer for a training run, unless the user
    chose one (``NUMBA_THREADING_LAYER``). The default model's kernels run on the calling
    thread on any layer (their inputs are under ``runtime.PARALLEL_MIN_ELEMENTS``); where
    a larger model's kernels run on two threads, workqueue's sleeping workers fight
    OpenBLAS's spinning ones less (the default step with 2-thread kernels: 22 ms on
    workqueue, 122 ms on OpenMP). Library code never makes this process-wide choice."""
    import os

    import minigrad as mg

    if "NUMBA_THREADING_LAYER" not in os.environ:
        mg.use_threading_layer("workqueue")


def _threads(requested: int | None) -> str | None:
    """Set the thread count; returns a note when the request was capped at the cores."""
    import os

    import minigrad as mg

    if requested is None:
        return None
    if requested < 1:
        raise CLIError(f"--threads must be at least 1, got {requested}")
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    note = None
    if requested > cores:
        note = (
            f"note: --threads {requested} is more than the {cores} cores this process may use; "
            f"using {cores} (more threads than cores only slows the run down)"
        )
        requested = cores
    mg.set_num_threads(requested)
    return note


class _StopFlag:
    """Ctrl-C asks the loop to stop after the current step (a second Ctrl-C stops at once).

    A process started with SIGINT ignored (a shell's background job, ``nohup``) keeps
    ignoring it, as Python itself does: such a run is not meant to stop on the
    terminal's Ctrl-C."""

    def __init__(self):
        self.requested = False
        self._previous = None

    def __enter__(self):
        def handler(signum, frame):
            if self.requested:
                raise KeyboardInterrupt
            self.requested = True

        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            return self
        try:
            self._previous = signal.signal(signal.SIGINT, handler)
        except ValueError:  # not the main thread: leave Ctrl-C alone
            self._previous = None
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False


def _progress(total: int, initial: int, disable: bool):
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, initial=initial, unit="step", dynamic_ncols=True, disable=disable)


def _print_speed(steps: int, first_seconds: float, later_seconds: float, tokens: int):
    """The training speed of this process's steps after its first, and the first's time."""
    if steps == 1:  # nothing to time but the first step
        print(
            f"speed: {tokens / first_seconds:,.0f} tokens/s ({1000 * first_seconds:.1f} ms for "
            f"the only step, of {tokens:,} tokens, which also loaded the Numba kernels)"
        )
        return
    print(
        f"speed: {(steps - 1) * tokens / later_seconds:,.0f} tokens/s "
        f"({1000 * later_seconds / (steps - 1):.1f} ms per step of {tokens:,} tokens; "
        "evaluation, checkpoints and the first step excluded)"
    )
    print(
        f"first step: {first_seconds:.1f} s (it loads the Numba kernels, and compiles them "
        "on a first run)"
    )


def _eval_line(step: int, metrics: dict) -> str:
    parts = [f"step {step:>6d}"]
    if "accuracy" in metrics:
        parts.append(f"held-out exact match {100 * metrics['accuracy']:6.2f}%")
    parts.append(f"held-out loss {metrics['val_loss']:.4f}")
    if "bits_per_char" in metrics:
        parts.append(f"bits/char {metrics['bits_per_char']:.3f}")
    return " | ".join(parts)


def run(args) -> int:
    from minigrad.train.runlog import RunFolder, plot_attention, plot_layers, plot_loss
    from minigrad.train.trainer import Trainer, TrainingDiverged

    config = _config_from(args)
    note = _threads(args.threads)
    if note:
        print(f"minigrad train: {note}", file=sys.stderr, flush=True)
    training_threading_layer()
    if config.out is None:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        config.out = str(pathlib.Path("runs") / f"{config.task}-{stamp}")
    _prepare_out(config, resuming=bool(args.resume))
    folder = RunFolder(config.out)

    if args.resume:
        trainer = Trainer.from_checkpoint(folder.saved_checkpoint(), config)
    else:
        trainer = Trainer(config)
    folder.create(config.to_dict())
    if config.stats_interval:
        folder.start_layers(resume_step=trainer.step if args.resume else None)
    if args.resume:
        folder.start_log(resume_step=trainer.step)
        note = f"resuming from step {trainer.step} of {config.steps}"
    else:
        folder.start_log()
        note = "starting"
    n_params = sum(p.numpy().size for p in trainer.model.parameters())
    print(
        f"minigrad train: {note} | task {config.task} | {config.n_layers} layers, d_model "
        f"{config.d_model}, {config.n_heads} heads, {config.norm_placement}-{config.norm}norm | "
        f"{n_params:,} parameters | output: {folder.path}",
        flush=True,
    )

    out = sys.stdout
    bar = _progress(config.steps, trainer.step, disable=args.no_progress)
    write = bar.write if bar is not None else (lambda line: print(line, file=out, flush=True))
    started = time.perf_counter()
    first_step = trainer.step
    # This process's first step loads the Numba kernels (and compiles them on a first
    # run, about 7 s for the default model): it is timed on its own, and the speed is
    # of the steps after it.
    first_seconds = None
    train_seconds = 0.0  # time inside the later steps (evaluation and saving excluded)
    saved_step = trainer.step if args.resume else None
    metrics = None
    with _StopFlag() as stop:
        try:
            while not trainer.done:
                record = bool(config.stats_interval) and (
                    (trainer.step + 1) % config.stats_interval == 0 or trainer.step == 0
                )
                m = trainer.train_step(record_stats=record)
                if first_seconds is None:
                    first_seconds = m["seconds"]
                else:
                    train_seconds += m["seconds"]
                step = trainer.step
                if record:
                    folder.append_layers(step, m.pop("layers"))
                row = dict(m)
                if step % config.eval_interval == 0 or trainer.done:
                    metrics = trainer.evaluate()
                    row.update(metrics)
                    write(_eval_line(step, metrics))
                if step % config.log_interval == 0 or "val_loss" in row:
                    folder.append(row)
                if bar is not None:
                    bar.set_postfix(
                        loss=f"{m['loss']:.4f}",
                        lr=f"{m['lr']:.2e}",
                        tok_s=f"{m['tokens_per_sec']:,.0f}",
                        refresh=False,
                    )
                    bar.update(1)
                elif step % config.log_interval == 0:
                    write(
                        f"step {step:>6d} | loss {m['loss']:.4f} | lr {m['lr']:.2e} | "
                        f"{m['tokens_per_sec']:,.0f} tok/s"
                    )
                stopping = stop.requested
                if step % config.checkpoint_interval == 0 or trainer.done or stopping:
                    trainer.save(folder.checkpoint)
                    saved_step = step
                if stopping:
                    if bar is not None:
                        bar.close()
                    print(
                        f"\ninterrupted at step {step}: checkpoint saved to {folder.checkpoint}\n"
                        f"resume with: python -m minigrad train --resume {folder.path}",
                        flush=True,
                    )
                    plot_loss(folder)
                    return 130
        except TrainingDiverged as e:
            if bar is not None:
                bar.close()
            plot_loss(folder)
            print(
                f"minigrad train: error: {e}; training stopped. {_kept(folder, saved_step)} "
                "Try a lower --lr, a --grad-clip (e.g. 1.0) or more --warmup-steps.",
                file=sys.stderr,
            )
            return 1
        except KeyboardInterrupt:  # a second Ctrl-C: stop at once, even mid-save
            if bar is not None:
                bar.close()
            print(
                f"\nminigrad train: stopped at once (second Ctrl-C) at step {trainer.step}. "
                f"{_kept(folder, saved_step)}",
                file=sys.stderr,
            )
            return 130
    if bar is not None:
        bar.close()
    elapsed = time.perf_counter() - started
    plotted = plot_loss(folder)
    attention = plot_attention(folder, *trainer.attention_example())
    layers = plot_layers(folder) if config.stats_interval else False

    steps_run = trainer.step - first_step
    print("\n" + _trained_line(steps_run, first_step, trainer.step, elapsed))
    if steps_run:
        _print_speed(steps_run, first_seconds, train_seconds, trainer.tokens_per_step)
    if metrics is None:  # resumed a finished run
        metrics = trainer.evaluate()
    if trainer.task.kind == "text":
        print(
            f"held-out loss {metrics['val_loss']:.4f} nats/char = "
            f"{metrics['bits_per_char']:.3f} bits/char"
        )
        sample = trainer.sample_text(trainer.task.decode(trainer.task.val_data[:32]), 200)
        print("sample:\n" + sample)
    else:
        print(
            f"held-out exact-match accuracy: {100 * metrics['accuracy']:.2f}% "
            f"of {metrics['n_examples']} examples never seen in training"
        )
        _show_examples(trainer)
    pictures = ", loss.png, attention.png" if plotted and attention else ""
    if config.stats_interval:
        pictures += ", layers.csv" + (", layers.png" if layers else "")
    print(f"outputs: {folder.path}/ (config.json, log.csv, {folder.checkpoint.name}{pictures})")
    missing = [] if bar is not None or args.no_progress else ["the progress bar"]
    missing += [] if plotted else ["the plots loss.png and attention.png"]
    if missing:
        print(f"note: {TRAIN_EXTRA_HINT} to get {' and '.join(missing)}")
    return 0


#: How to get the progress bar and the plots: the ``train`` extra, as a wheel user
#: installs it (from a checkout, ``pip install -e '.[train]'`` does the same).
TRAIN_EXTRA_HINT = "install minigrad's train extra (pip install 'minigrad[train]')"


def _trained_line(steps_run: int, first_step: int, last_step: int, elapsed: float) -> str:
    """What this process trained: all of a new run, or the rest of a resumed one."""
    if first_step == 0:
        return f"trained {steps_run} steps in {elapsed:.1f} s"
    if steps_run == 0:
        return f"nothing left to train: the checkpoint had reached step {last_step}"
    return (
        f"trained {steps_run} steps (from step {first_step} to {last_step}, resumed) "
        f"in {elapsed:.1f} s"
    )


def _kept(folder, saved_step) -> str:
    if saved_step is None:
        return "No checkpoint had been written yet."
    return f"The last good checkpoint (step {saved_step}) is kept in {folder.checkpoint}."


def _show_examples(trainer, n: int = 3) -> None:
    task = trainer.task
    for seq in task.heldout[:n]:
        prompt = seq[: task.prompt_len]
        answer = trainer.model.generate(prompt, task.answer_len, temperature=0.0)[task.prompt_len :]
        truth = task.decode_answer(seq[task.prompt_len :])
        got = task.decode_answer(answer)
        shown = " ".join(task.itos[int(t)] for t in prompt)
        print(f"  {shown} {got}   {'ok' if got == truth else 'expected ' + truth}")

"""``minigrad generate``: run a trained model from its checkpoint.

For an algorithmic task, give the input (``--input "3 1 4 1"`` or ``--input 47+85``)
and get the model's answer; without ``--input`` it answers a few held-out examples and
says whether each is right. For the text task, give a ``--prompt`` to continue.

Text is printed as it is generated, one character at a time (the same characters
``Trainer.sample_text`` returns for the same seed); ``--chars`` is at most
``MAX_CHARS``.
"""

from __future__ import annotations

import math
import pathlib

from minigrad.cli.errors import CLIError

#: The most characters ``--chars`` may ask for (each one is a forward pass of the model).
MAX_CHARS = 20_000


def add_parser(sub) -> None:
    for name in ("generate", "sample"):
        p = sub.add_parser(
            name,
            help="run a trained model: answer an input or continue a text prompt"
            + (" (alias of generate)" if name == "sample" else ""),
            description=__doc__.split("\n\n")[1],
        )
        p.add_argument(
            "--checkpoint",
            required=True,
            metavar="PATH",
            help="a checkpoint.safetensors, or the run folder that holds one",
        )
        p.add_argument("--input", metavar="TEXT", help="the input for an algorithmic task")
        p.add_argument(
            "--prompt",
            metavar="TEXT",
            default="",
            help="the start of the text to continue (text task)",
        )
        p.add_argument(
            "--chars",
            type=int,
            default=300,
            metavar="N",
            help=f"characters to generate for the text task, at most {MAX_CHARS:,} (default: 300)",
        )
        p.add_argument(
            "--temperature",
            type=float,
            default=0.8,
            metavar="T",
            help="sampling temperature for text, 0 = greedy (default: 0.8)",
        )
        p.add_argument("--seed", type=int, default=0, help="sampling seed (default: 0)")
        p.set_defaults(run=run)


def _resolve(path: str) -> pathlib.Path:
    from minigrad.train.runlog import RunFolder

    p = pathlib.Path(path)
    if p.is_dir():
        run = RunFolder(p)
        p = run.saved_checkpoint() or run.checkpoint
    if not p.is_file():
        raise CLIError(f"--checkpoint {path}: no such checkpoint file")
    return p


def _check_options(args) -> None:
    if not (math.isfinite(args.temperature) and args.temperature >= 0):
        raise CLIError(
            f"--temperature must be a finite number >= 0 (0 = greedy), got {args.temperature}"
        )
    if args.seed < 0:
        raise CLIError(f"--seed must be a non-negative integer, got {args.seed}")
    if not 1 <= args.chars <= MAX_CHARS:
        raise CLIError(f"--chars must be between 1 and {MAX_CHARS:,}, got {args.chars:,}")


def run(args) -> int:
    from minigrad.train.trainer import Trainer

    _check_options(args)
    trainer = Trainer.from_checkpoint(_resolve(args.checkpoint), model_only=True)
    task = trainer.task
    if task.kind == "text":
        if args.input:
            raise CLIError("--input is for algorithmic tasks; use --prompt for the text task")
        _stream_text(trainer, args.prompt, args.chars, args.temperature, args.seed)
        return 0
    if args.prompt:
        raise CLIError(
            f"--prompt is for the text task; this model learned {task.name!r}: give --input"
        )
    if args.input is not None:
        print(trainer.answer(args.input))
        return 0
    n_right = 0
    for seq in task.heldout[:5]:
        prompt = seq[: task.prompt_len]
        got = task.decode_answer(
            trainer.model.generate(prompt, task.answer_len, temperature=0.0)[task.prompt_len :]
        )
        truth = task.decode_answer(seq[task.prompt_len :])
        n_right += got == truth
        shown = " ".join(task.itos[int(t)] for t in prompt)
        print(f"{shown} {got}   {'ok' if got == truth else 'expected ' + truth}")
    print(f"{n_right}/5 held-out examples right (give --input to ask your own)")
    return 0


def _stream_text(trainer, prompt: str, n_chars: int, temperature: float, seed: int) -> None:
    """Print the prompt, then each sampled character as soon as it exists. One token at
    a time from the same generator gives what ``trainer.sample_text`` gives at once."""
    import numpy as np

    task, model = trainer.task, trainer.model
    tokens = task.encode(prompt) if prompt else task.start_tokens()
    rng = np.random.default_rng(seed)
    print(task.decode(tokens), end="", flush=True)
    context = np.asarray(tokens, dtype=np.int64)[-model.max_len :]
    for _ in range(n_chars):
        out = model.generate(context, 1, temperature=temperature, rng=rng)
        print(task.decode(out[-1:]), end="", flush=True)
        context = out[-model.max_len :]
    print()

"""The training loop as a library: build, step, evaluate, checkpoint, resume.

``Trainer`` never prints. The command line (``minigrad/cli/train.py``) drives it and
shows progress; a script can drive it the same way::

    trainer = Trainer(TrainConfig(task="reverse", steps=300))
    while not trainer.done:
        metrics = trainer.train_step()
    print(trainer.evaluate())

Everything random (the data stream, the initialisation, dropout) is seeded from
``config.seed`` and saved in checkpoints, so a run that stops and resumes produces the
same losses, bit for bit, as one that never stopped.
"""

from __future__ import annotations

import math
import os
import time

import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.serialization import CheckpointError
from minigrad.train.config import ARCHITECTURE_FIELDS, ConfigError, TrainConfig
from minigrad.train.layerstats import layer_stats
from minigrad.train.model import TinyTransformer
from minigrad.train.tasks import IGNORE, bits_per_char, make_task, planned_sizes

CHECKPOINT_FORMAT = 1


class TrainingDiverged(RuntimeError):
    """The loss or the gradient norm became NaN or infinite: the step was not taken."""

    def __init__(self, step: int, what: str, value: float):
        super().__init__(f"the {what} became {value} at step {step}")
        self.step, self.what, self.value = step, what, value


class Trainer:
    """Owns the task, the model, the optimizer, the schedule and the random state.

    Args:
        config: a validated ``TrainConfig``.
        vocab: the text task's vocabulary when resuming (so token ids keep their meaning).
        with_data: False builds the text task from ``vocab`` alone, without reading the
            file (enough to run the model, not to train or evaluate it).

    Raises:
        ConfigError: the configuration is invalid, or needs more memory than the
            machine has available (checked before anything large is allocated).
    """

    def __init__(self, config: TrainConfig, vocab: list[str] | None = None, with_data: bool = True):
        self.config = config.validate()
        mg.manual_seed(config.seed)
        planned = planned_sizes(config.task, config.length)
        if planned is not None:
            check_memory(config, vocab_size=planned[1], seq_len=planned[0])
        self.task = make_task(
            config.task, config.length, config.seed, config.text, vocab, with_data=with_data
        )
        if planned is None:
            check_memory(config, vocab_size=self.task.vocab_size, seq_len=self.task.seq_len)
        self.model = TinyTransformer(
            vocab_size=self.task.vocab_size,
            max_len=self.task.seq_len,
            d_model=config.d_model,
            n_heads=config.n_heads,
            n_layers=config.n_layers,
            d_ff=config.d_ff,
            norm=config.norm,
            norm_first=config.norm_placement == "pre",
            activation=config.activation,
            dropout=config.dropout,
        )
        self.optimizer = optim.AdamW(
            self._param_groups(), lr=config.lr, betas=(0.9, 0.99), weight_decay=config.weight_decay
        )
        self.scheduler = self._schedule()
        self.data_rng = np.random.default_rng([config.seed, 0])
        self.step = 0

    # ------------------------------------------------------------------ construction
    def _param_groups(self) -> list[dict]:
        """Weight decay on matrices (linear and embedding weights), not on gains and biases."""
        decay, no_decay = [], []
        for p in self.model.parameters():
            (decay if p.ndim >= 2 else no_decay).append(p)
        return [
            {"params": decay, "weight_decay": self.config.weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ]

    def _schedule(self):
        """Linear warmup to ``lr``, then cosine decay to ``lr * min_lr_ratio``."""
        c = self.config
        cosine = optim.lr_scheduler.CosineAnnealingLR(
            self.optimizer, T_max=max(1, c.steps - c.warmup_steps), eta_min=c.lr * c.min_lr_ratio
        )
        if c.warmup_steps == 0:
            return cosine
        warmup = optim.lr_scheduler.LinearLR(
            self.optimizer, start_factor=1.0 / c.warmup_steps, total_iters=c.warmup_steps
        )
        return optim.lr_scheduler.SequentialLR(
            self.optimizer, [warmup, cosine], milestones=[c.warmup_steps]
        )

    # ------------------------------------------------------------------ training
    @property
    def done(self) -> bool:
        return self.step >= self.config.steps

    @property
    def tokens_per_step(self) -> int:
        return self.config.batch_size * self.task.seq_len

    def train_step(self, record_stats: bool = False) -> dict:
        """One optimisation step; returns loss, learning rate, gradient norm and timing.

        With ``record_stats``, the result also holds ``"layers"``: the per-layer
        statistics of this step (``layerstats.layer_stats``: the stream's RMS after
        every block, each block's update RMS and gradient norm, before clipping). The
        step itself is the same either way.
        """
        t0 = time.perf_counter()
        self.model.train()
        inputs, targets = self.task.batch(self.data_rng, self.config.batch_size)
        lr = self.optimizer.param_groups[0]["lr"]
        streams = [] if record_stats else None
        logits = self.model(mg.tensor(inputs), streams)  # (B, T, V)
        loss = F.cross_entropy(
            logits.reshape(-1, self.task.vocab_size),
            mg.tensor(targets.reshape(-1)),
            ignore_index=IGNORE,
        )
        loss_value = float(loss.item())
        if not math.isfinite(loss_value):
            raise TrainingDiverged(self.step + 1, "training loss", loss_value)
        self.optimizer.zero_grad()
        loss.backward()
        layers = layer_stats(self.model.blocks, streams) if record_stats else None
        grad_norm = float("nan")
        if self.config.grad_clip > 0:
            grad_norm = float(
                nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
            )
            if not math.isfinite(grad_norm):
                raise TrainingDiverged(self.step + 1, "gradient norm", grad_norm)
        self.optimizer.step()
        self.scheduler.step()
        self.step += 1
        seconds = time.perf_counter() - t0
        metrics = {
            "step": self.step,
            "loss": loss_value,
            "lr": lr,
            "grad_norm": grad_norm,
            "seconds": seconds,
            "tokens_per_sec": self.tokens_per_step / seconds,
        }
        if layers is not None:
            metrics["layers"] = layers
        return metrics

    # ------------------------------------------------------------------ evaluation
    @mg.no_grad()
    def evaluate(self) -> dict:
        """Held-out metrics: exact-match accuracy (algorithmic) or loss and bits/char (text)."""
        was_training = self.model.training
        self.model.eval()
        try:
            if self.task.kind == "text":
                return self._evaluate_text()
            return self._evaluate_algorithmic()
        finally:
            self.model.train(was_training)

    def _evaluate_algorithmic(self, batch_size: int = 250) -> dict:
        correct, total_loss, n_tokens = 0, 0.0, 0
        for i in range(0, len(self.task.heldout), batch_size):
            inputs, targets = self.task.inputs_targets(self.task.heldout[i : i + batch_size])
            logits = self.model(mg.tensor(inputs))  # (B, T, V)
            scored = targets != IGNORE
            loss = F.cross_entropy(
                logits.reshape(-1, self.task.vocab_size),
                mg.tensor(targets.reshape(-1)),
                ignore_index=IGNORE,
                reduction="sum",
            )
            total_loss += float(loss.item())
            n_tokens += int(scored.sum())
            pred = logits.numpy().argmax(-1)
            correct += int(((pred == targets) | ~scored).all(axis=1).sum())
        n = len(self.task.heldout)
        return {"accuracy": correct / n, "val_loss": total_loss / n_tokens, "n_examples": n}

    def _evaluate_text(self, batch_size: int = 32) -> dict:
        total, count = 0.0, 0
        for inputs, targets in self.task.heldout_batches(batch_size):
            logits = self.model(mg.tensor(inputs))
            loss = F.cross_entropy(
                logits.reshape(-1, self.task.vocab_size),
                mg.tensor(targets.reshape(-1)),
                reduction="sum",
            )
            total += float(loss.item())
            count += targets.size
        val_loss = total / count
        return {"val_loss": val_loss, "bits_per_char": bits_per_char(val_loss), "n_tokens": count}

    # ------------------------------------------------------------------ using the model
    def answer(self, prompt: str) -> str:
        """An algorithmic task's answer to ``prompt`` by greedy decoding."""
        tokens = self.task.encode_prompt(prompt)
        out = self.model.generate(tokens, self.task.answer_len, temperature=0.0)
        return self.task.decode_answer(out[len(tokens) :])

    def sample_text(
        self, prompt: str, n_chars: int, temperature: float = 0.8, seed: int = 0
    ) -> str:
        """Continue ``prompt`` by sampling ``n_chars`` characters."""
        tokens = self.task.encode(prompt) if prompt else self.task.start_tokens()
        rng = np.random.default_rng(seed)
        out = self.model.generate(tokens, n_chars, temperature=temperature, rng=rng)
        return self.task.decode(out)

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict:
        data_state = self.data_rng.bit_generator.state
        return {
            "format": CHECKPOINT_FORMAT,
            "step": self.step,
            "config": {k: v for k, v in self.config.to_dict().items() if v is not None},
            "vocab": list(self.task.itos),
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "rng": {
                "minigrad": mg.get_rng_state(),
                "data": {
                    "state": str(data_state["state"]["state"]),
                    "inc": str(data_state["state"]["inc"]),
                    "has_uint32": int(data_state["has_uint32"]),
                    "uinteger": int(data_state["uinteger"]),
                },
            },
        }

    def save(self, path) -> None:
        """Write the checkpoint (atomically); a model with a NaN or infinite weight is
        never saved (``TrainingDiverged``), so the last good checkpoint stays."""
        for name, p in self.model.named_parameters():
            if not np.isfinite(p.numpy()).all():
                raise TrainingDiverged(self.step, f"parameter {name}", float("nan"))
        mg.save(self.state_dict(), path)

    def load_state_dict(self, state: dict, model_only: bool = False) -> None:
        """Restore a checkpoint's state. Raises ``CheckpointError`` naming the part of
        ``state`` (model, optimizer, scheduler, rng, step) that is missing or malformed."""
        parts = [("model", lambda: self.model.load_state_dict(state["model"]))]
        if not model_only:
            parts += [
                ("optimizer", lambda: self.optimizer.load_state_dict(state["optimizer"])),
                ("scheduler", lambda: self.scheduler.load_state_dict(state["scheduler"])),
                ("step", lambda: setattr(self, "step", _non_negative_int(state["step"]))),
                ("rng", lambda: self._load_rng(state["rng"])),
            ]
        for part, load in parts:
            try:
                load()
            except (KeyError, TypeError, ValueError, IndexError, AttributeError, RuntimeError) as e:
                if isinstance(e, KeyError):
                    detail = f"missing {e}"
                else:  # load_state_dict lists its problems on tab-indented lines: one line
                    lines = str(e).split("\n\t")
                    if len(lines) > 1 and lines[0].startswith("Error(s) in loading"):
                        lines = lines[1:]
                    detail = "; ".join(line.strip() for line in lines)
                raise CheckpointError(f"its {part} state does not fit: {detail}") from None

    def _load_rng(self, rng: dict) -> None:
        mg.set_rng_state(rng["minigrad"])
        data = rng["data"]
        self.data_rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int(data["state"]), "inc": int(data["inc"])},
            "has_uint32": int(data["has_uint32"]),
            "uinteger": int(data["uinteger"]),
        }

    @classmethod
    def from_checkpoint(
        cls, path, config: TrainConfig | None = None, model_only: bool = False
    ) -> Trainer:
        """Rebuild a trainer from a checkpoint.

        Args:
            path: the checkpoint file.
            config: the configuration to continue with. Fields that define the model or
                the data must match the checkpoint's (a ``ConfigError`` names those that
                do not); others (steps, lr, intervals, out) may change.
            model_only: restore only the model (to run it, not to train on): the text
                task then needs only the checkpoint's vocabulary, not the text file.

        Raises:
            CheckpointError: the file is not a training checkpoint, or a part of it
                (model weights, optimizer, scheduler, random state) does not fit.
        """
        state = mg.load(path)
        saved = checkpoint_config(state, path)
        if config is None:
            config = saved
        else:
            mismatched = [
                f"{name} (checkpoint: {getattr(saved, name)!r}, now: {getattr(config, name)!r})"
                for name in ARCHITECTURE_FIELDS
                if getattr(saved, name) != getattr(config, name)
            ]
            if mismatched:
                raise ConfigError(
                    f"the checkpoint in {path} does not match the configuration: "
                    + "; ".join(mismatched)
                )
        vocab = _vocab(state, path) if config.task == "text" else None
        trainer = cls(config, vocab=vocab, with_data=not model_only)
        try:
            trainer.load_state_dict(state, model_only=model_only)
        except CheckpointError as e:
            raise CheckpointError(f"{path}: {e}") from None
        return trainer

    # ------------------------------------------------------------------ inspection
    @mg.no_grad()
    def attention_example(self) -> tuple[np.ndarray, list[str]]:
        """The last block's attention weights on one held-out example, per head, with
        the input tokens as text: ``(weights (n_heads, T, T), tokens)``."""
        if self.task.kind == "text":
            tokens = self.task.val_data[: min(self.task.seq_len, 32)]
        else:
            tokens = self.task.heldout[0][:-1]  # the model's input: all but the last token
        weights = self.model.attention_maps(tokens)
        return weights, [self.task.itos[int(t)] for t in tokens]


def checkpoint_config(state, path) -> TrainConfig:
    """The configuration stored in a training checkpoint, checked (``CheckpointError``
    for anything that is not a training checkpoint this trainer wrote)."""
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        what = (
            "a dict without a 'format' entry" if isinstance(state, dict) else type(state).__name__
        )
        raise CheckpointError(
            f"{path}: not a minigrad training checkpoint (it holds {what}); "
            "give the checkpoint.safetensors that minigrad train wrote"
        )
    if not isinstance(state.get("config"), dict):
        raise CheckpointError(f"{path}: the training checkpoint has no 'config' table")
    try:
        return TrainConfig.from_dict(state["config"], source=f"{path} config").validate()
    except ConfigError as e:
        raise CheckpointError(f"{path}: its config is invalid: {e}") from None


def _vocab(state: dict, path) -> list[str]:
    vocab = state.get("vocab")
    if not (isinstance(vocab, list) and vocab and all(isinstance(c, str) for c in vocab)):
        raise CheckpointError(f"{path}: the checkpoint's 'vocab' is not a list of characters")
    return vocab


def _non_negative_int(value) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
        raise ValueError(f"step must be a non-negative int, got {value!r}")
    return int(value)


# ---------------------------------------------------------------------- memory check
def estimate_memory(config: TrainConfig, vocab_size: int, seq_len: int) -> dict:
    """A lower bound, in bytes, of what training ``config`` holds in memory (float32).

    ``parameters``: weights, gradients and AdamW's two moments (4 copies);
    ``activations``: what one step keeps for its backward pass (at least the
    block's inputs, attention scores and probabilities, feed-forward hiddens, logits);
    ``data``: the held-out examples as int64.
    """
    c = config
    D, F_, L, H, V, T, B = (
        c.d_model,
        c.d_ff,
        c.n_layers,
        c.n_heads,
        vocab_size,
        seq_len,
        c.batch_size,
    )
    ff_in = 2 * F_ if c.activation == "swiglu" else F_
    per_block = 4 * D * D + 4 * D + D * ff_in + ff_in + F_ * D + D + 4 * D
    n_params = V * D + T * D + L * per_block + 2 * D + D * V + V
    activations = B * T * (L * (8 * D + 2 * F_) + 3 * V) + 2 * L * B * H * T * T
    return {
        "parameters": 4 * 4 * n_params,
        "activations": 4 * activations,
        "data": 8 * 1000 * (T + 1),
    }


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux: MemAvailable), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(config: TrainConfig, vocab_size: int, seq_len: int) -> None:
    """Raise ``ConfigError`` (saying how much it needs) when ``config`` cannot fit."""
    need = estimate_memory(config, vocab_size, seq_len)
    total = sum(need.values())
    have = available_memory()
    if have is None or total <= have:
        return
    raise ConfigError(
        f"this configuration needs at least {_gib(total)} of memory ({_gib(need['parameters'])} "
        f"for the weights, gradients and AdamW state, {_gib(need['activations'])} for one "
        f"step's activations, {_gib(need['data'])} for the held-out data), more than the "
        f"{_gib(have)} available; use a smaller --d-model, --d-ff, --n-layers, --batch-size "
        "or --length"
    )


def _gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**28 else f"{n / 2**20:,.1f} MiB"

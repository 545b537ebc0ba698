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

import time

import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.train.config import ARCHITECTURE_FIELDS, ConfigError, TrainConfig
from minigrad.train.model import TinyTransformer
from minigrad.train.tasks import IGNORE, bits_per_char, make_task

CHECKPOINT_FORMAT = 1


class Trainer:
    """Owns the task, the model, the optimizer, the schedule and the random state.

    Args:
        config: a validated ``TrainConfig``.
        vocab: the text task's vocabulary when resuming (so token ids keep their meaning).
    """

    def __init__(self, config: TrainConfig, vocab: list[str] | None = None):
        self.config = config.validate()
        mg.manual_seed(config.seed)
        self.task = make_task(config.task, config.length, config.seed, config.text, vocab)
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

    def train_step(self) -> dict:
        """One optimisation step; returns loss, learning rate, gradient norm and timing."""
        t0 = time.perf_counter()
        self.model.train()
        inputs, targets = self.task.batch(self.data_rng, self.config.batch_size)
        lr = self.optimizer.param_groups[0]["lr"]
        logits = self.model(mg.tensor(inputs))  # (B, T, V)
        loss = F.cross_entropy(
            logits.reshape(-1, self.task.vocab_size),
            mg.tensor(targets.reshape(-1)),
            ignore_index=IGNORE,
        )
        self.optimizer.zero_grad()
        loss.backward()
        grad_norm = float("nan")
        if self.config.grad_clip > 0:
            grad_norm = float(
                nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
            )
        self.optimizer.step()
        self.scheduler.step()
        self.step += 1
        seconds = time.perf_counter() - t0
        return {
            "step": self.step,
            "loss": float(loss.item()),
            "lr": lr,
            "grad_norm": grad_norm,
            "seconds": seconds,
            "tokens_per_sec": self.tokens_per_step / seconds,
        }

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
        tokens = self.task.encode(prompt) if prompt else self.task.val_data[:1]
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
        mg.save(self.state_dict(), path)

    def load_state_dict(self, state: dict) -> None:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.step = int(state["step"])
        mg.set_rng_state(state["rng"]["minigrad"])
        data = state["rng"]["data"]
        self.data_rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int(data["state"]), "inc": int(data["inc"])},
            "has_uint32": int(data["has_uint32"]),
            "uinteger": int(data["uinteger"]),
        }

    @classmethod
    def from_checkpoint(cls, path, config: TrainConfig | None = None) -> Trainer:
        """Rebuild a trainer from a checkpoint.

        Args:
            path: the checkpoint file.
            config: the configuration to continue with. Fields that define the model or
                the data must match the checkpoint's (a ``ConfigError`` names those that
                do not); others (steps, lr, intervals, out) may change.
        """
        state = mg.load(path)
        if state.get("format") != CHECKPOINT_FORMAT:
            raise ConfigError(f"{path}: not a minigrad training checkpoint")
        saved = TrainConfig.from_dict(state["config"], source=str(path))
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
        vocab = list(state["vocab"]) if config.task == "text" else None
        trainer = cls(config, vocab=vocab)
        trainer.load_state_dict(state)
        return trainer

"""The training configuration: one dataclass, loadable from TOML or JSON.

Every field is also a command-line option (``d_model`` is ``--d-model``); a config
file holds the same keys, and options given on the command line override it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
from dataclasses import dataclass, field, fields


class ConfigError(ValueError):
    """A configuration that cannot be trained (reported by the CLI without a traceback)."""


@dataclass
class TrainConfig:
    # what to learn
    task: str = field(default="reverse", metadata={"help": "reverse, sort, copy, add or text"})
    text: str | None = field(default=None, metadata={"help": "UTF-8 file for the text task"})
    length: int = field(
        default=8,
        metadata={"help": "digits per input (algorithmic tasks) or context length (text)"},
    )
    # the model
    n_layers: int = field(default=2, metadata={"help": "transformer blocks"})
    d_model: int = field(default=64, metadata={"help": "width of the residual stream"})
    n_heads: int = field(default=4, metadata={"help": "attention heads (must divide d_model)"})
    d_ff: int = field(default=256, metadata={"help": "feed-forward hidden width"})
    norm: str = field(default="layer", metadata={"help": "normalization: layer, rms or none"})
    norm_placement: str = field(default="pre", metadata={"help": "pre-norm or post-norm blocks"})
    activation: str = field(default="gelu", metadata={"help": "relu, gelu or swiglu"})
    dropout: float = field(default=0.0, metadata={"help": "dropout probability"})
    # the optimisation
    steps: int = field(default=400, metadata={"help": "training steps"})
    batch_size: int = field(default=64, metadata={"help": "sequences per step"})
    lr: float = field(default=3e-3, metadata={"help": "peak learning rate (AdamW)"})
    warmup_steps: int = field(default=40, metadata={"help": "linear warmup from lr/warmup"})
    min_lr_ratio: float = field(
        default=0.1, metadata={"help": "cosine decay ends at lr * min_lr_ratio"}
    )
    weight_decay: float = field(default=0.01, metadata={"help": "AdamW weight decay"})
    grad_clip: float = field(default=1.0, metadata={"help": "clip the gradient norm (0: off)"})
    seed: int = field(default=0, metadata={"help": "seeds the data, the init and dropout"})
    # bookkeeping
    eval_interval: int = field(default=10, metadata={"help": "evaluate every N steps"})
    checkpoint_interval: int = field(default=200, metadata={"help": "checkpoint every N steps"})
    log_interval: int = field(default=10, metadata={"help": "log a row every N steps"})
    stats_interval: int = field(
        default=0,
        metadata={"help": "record per-layer statistics every N steps in layers.csv (0: off)"},
    )
    out: str | None = field(default=None, metadata={"help": "output folder (default runs/...)"})

    def validate(self) -> TrainConfig:
        """Raise ``ConfigError`` naming every field that is out of range."""
        from minigrad.train.tasks import TASK_NAMES

        problems = []
        if self.task not in TASK_NAMES:
            problems.append(f"task must be one of {', '.join(TASK_NAMES)}, got {self.task!r}")
        if self.task == "text" and not self.text:
            problems.append("the text task needs a file: --text PATH")
        if self.task != "text" and self.text:
            problems.append(
                f"text (--text {self.text}) is read only by the text task, not by "
                f"{self.task!r}: give --task text, or leave out --text"
            )
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not math.isfinite(value):
                problems.append(f"{f.name} must be a finite number, got {value}")
        positive = ("length", "n_layers", "d_model", "n_heads", "d_ff", "steps", "batch_size")
        for name in positive:
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("eval_interval", "checkpoint_interval", "log_interval"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.stats_interval < 0:
            problems.append(f"stats_interval must be 0 (off) or more, got {self.stats_interval}")
        if self.n_heads >= 1 and self.d_model % self.n_heads:
            problems.append(
                f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})"
            )
        if self.norm not in ("layer", "rms", "none"):
            problems.append(f"norm must be 'layer', 'rms' or 'none', got {self.norm!r}")
        if self.norm_placement not in ("pre", "post"):
            problems.append(f"norm_placement must be 'pre' or 'post', got {self.norm_placement!r}")
        if self.activation not in ("relu", "gelu", "swiglu"):
            problems.append(f"activation must be relu, gelu or swiglu, got {self.activation!r}")
        if not 0.0 <= self.dropout < 1.0:
            problems.append(f"dropout must be in [0, 1), got {self.dropout}")
        if self.lr <= 0:
            problems.append(f"lr must be positive, got {self.lr}")
        if self.warmup_steps < 0 or self.warmup_steps > self.steps:
            problems.append(
                f"warmup_steps must be in [0, steps={self.steps}], got {self.warmup_steps}: "
                f"give --warmup-steps at most {self.steps} (e.g. {max(self.steps, 0) // 10})"
            )
        if not 0.0 <= self.min_lr_ratio <= 1.0:
            problems.append(f"min_lr_ratio must be in [0, 1], got {self.min_lr_ratio}")
        if self.weight_decay < 0:
            problems.append(f"weight_decay must be non-negative, got {self.weight_decay}")
        if self.grad_clip < 0:
            problems.append(
                f"grad_clip must be non-negative (0 turns it off), got {self.grad_clip}"
            )
        if self.seed < 0:
            problems.append(f"seed must be non-negative, got {self.seed}")
        if problems:
            raise ConfigError("invalid configuration:\n  - " + "\n  - ".join(problems))
        return self

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict, source: str = "config") -> TrainConfig:
        return cls(**_checked(values, source))


#: Fields that define the model or the data: a checkpoint only resumes under the same values.
ARCHITECTURE_FIELDS = (
    "task",
    "text",
    "length",
    "n_layers",
    "d_model",
    "n_heads",
    "d_ff",
    "norm",
    "norm_placement",
    "activation",
)


def _checked(values: dict, source: str) -> dict:
    known = {f.name: f for f in fields(TrainConfig)}
    out = {}
    for key, value in values.items():
        name = key.replace("-", "_")
        if name not in known:
            raise ConfigError(f"{source}: unknown key {key!r}")
        default = known[name].default
        if value is not None and default is not None and not _same_kind(value, default):
            raise ConfigError(f"{source}: {key} must be {type(default).__name__}, got {value!r}")
        out[name] = float(value) if isinstance(default, float) and value is not None else value
    return out


def _same_kind(value, default) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, type(default))


def load_config_file(path) -> dict:
    """Read a TOML or JSON config file into a dict of field values."""
    from minigrad.train.tasks import read_utf8

    path = pathlib.Path(path)
    text = read_utf8(path, ConfigError, "config file")
    if path.suffix == ".json":
        try:
            values = json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigError(f"{path}: invalid JSON: {e}") from None
    elif path.suffix == ".toml":
        try:
            import tomllib
        except ImportError:  # Python 3.10: the same parser, as the package tomli
            import tomli as tomllib
        try:
            values = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: invalid TOML: {e}") from None
    else:
        raise ConfigError(f"{path}: config files must end in .toml or .json")
    if not isinstance(values, dict):
        raise ConfigError(f"{path}: expected a table of keys and values")
    return _checked(values, str(path))

"""A run's output folder: the config, a CSV log of every logged step, the loss plot."""

from __future__ import annotations

import csv
import json
import pathlib

import numpy as np

COLUMNS = (
    "step",
    "loss",
    "lr",
    "grad_norm",
    "tokens_per_sec",
    "val_loss",
    "accuracy",
    "bits_per_char",
)
LAYER_COLUMNS = ("step", "layer", "stream_rms", "update_rms", "grad_norm")
CHECKPOINT = "checkpoint.safetensors"
LEGACY_CHECKPOINT = "checkpoint.npz"  # what minigrad 0.1 wrote


class RunFolder:
    """The files of one training run, all inside ``path``.

    - ``config.json``: the configuration used;
    - ``log.csv``: one row per logged step (evaluation columns filled at evaluations);
    - ``checkpoint.safetensors``: the latest checkpoint (``mg.save``; runs of minigrad
      0.1 have ``checkpoint.npz``, which ``--resume`` and ``generate`` still read);
    - ``loss.png``: the loss curve (when matplotlib is installed);
    - ``attention.png``: the trained model's attention on one held-out example;
    - ``layers.csv`` and ``layers.png``: per-layer statistics every ``stats_interval``
      steps (``--stats-interval``; one row per step and layer).
    """

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.config = self.path / "config.json"
        self.log = self.path / "log.csv"
        self.checkpoint = self.path / CHECKPOINT
        self.plot = self.path / "loss.png"
        self.attention = self.path / "attention.png"
        self.layers = self.path / "layers.csv"
        self.layers_plot = self.path / "layers.png"

    def saved_checkpoint(self) -> pathlib.Path | None:
        """The checkpoint to resume from: ``checkpoint.safetensors``, else a minigrad 0.1
        run's ``checkpoint.npz``, else None."""
        for path in (self.checkpoint, self.path / LEGACY_CHECKPOINT):
            if path.is_file():
                return path
        return None

    def create(self, config: dict) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        self.config.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")

    def start_log(self, resume_step: int | None = None) -> None:
        """Start the log, or, when resuming, keep only the rows up to the checkpoint's step."""
        _restart_csv(self.log, COLUMNS, resume_step)

    def append(self, row: dict) -> None:
        with self.log.open("a", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
            writer.writerow({k: _fmt(row.get(k)) for k in COLUMNS})

    def read_log(self) -> list[dict]:
        return _read_csv(self.log)

    def start_layers(self, resume_step: int | None = None) -> None:
        """Start ``layers.csv``, or, when resuming, keep its rows up to the checkpoint."""
        _restart_csv(self.layers, LAYER_COLUMNS, resume_step)

    def append_layers(self, step: int, stats: dict) -> None:
        """One row per layer: layer 0 is the stream entering the first block (its update
        and gradient columns are empty), layer l the stream after block l."""
        with self.layers.open("a", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            for layer, rms in enumerate(stats["stream_rms"]):
                block = layer - 1
                writer.writerow(
                    [step, layer, repr(rms)]
                    + ([repr(stats["update_rms"][block]), repr(stats["grad_norm"][block])]
                       if block >= 0 else ["", ""])
                )  # fmt: skip

    def read_layers(self) -> list[dict]:
        return _read_csv(self.layers)


def _read_csv(path: pathlib.Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _restart_csv(path: pathlib.Path, columns: tuple[str, ...], resume_step: int | None) -> None:
    """Write ``path`` afresh with its header row; when resuming (``resume_step`` given)
    keep the rows it already has up to that step, so a resumed run continues its table."""
    rows = _read_csv(path) if resume_step is not None and path.exists() else []
    rows = [r for r in rows if int(r["step"]) <= (resume_step or 0)]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def _fmt(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def plot_loss(folder: RunFolder) -> bool:
    """Draw ``loss.png`` from ``log.csv``; False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = folder.read_log()
    steps = [int(r["step"]) for r in rows if r["loss"]]
    loss = [float(r["loss"]) for r in rows if r["loss"]]
    val = [(int(r["step"]), float(r["val_loss"])) for r in rows if r["val_loss"]]
    acc = [(int(r["step"]), float(r["accuracy"])) for r in rows if r["accuracy"]]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, loss, label="training loss", color="#2563eb", linewidth=1)
    if val:
        ax.plot(*zip(*val), "o-", label="held-out loss", color="#dc2626", markersize=3)
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats / token)")
    ax.grid(True, alpha=0.3)
    if acc:
        ax2 = ax.twinx()
        ax2.plot(*zip(*acc), "s--", label="held-out exact match", color="#16a34a", markersize=3)
        ax2.set_ylabel("exact-match accuracy")
        ax2.set_ylim(0, 1.02)
        lines = ax.get_legend_handles_labels()
        lines2 = ax2.get_legend_handles_labels()
        ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], loc="center right")
    else:
        ax.legend(loc="upper right")
    ax.set_title(f"minigrad: {folder.path.name}")
    fig.tight_layout()
    fig.savefig(folder.plot, dpi=120)
    plt.close(fig)
    return True


def plot_attention(folder: RunFolder, weights, tokens: list[str]) -> bool:
    """Draw ``attention.png``: one heatmap per head of the last block's attention
    weights (n_heads, T, T), queries down, keys across, labelled with the tokens.
    False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    n_heads, T = weights.shape[0], weights.shape[-1]
    labels = [repr(t)[1:-1] if t.isspace() or not t.isprintable() else t for t in tokens]
    fig, axes = plt.subplots(1, n_heads, figsize=(2.6 * n_heads + 0.8, 3.2), squeeze=False)
    for h, ax in enumerate(axes[0]):
        image = ax.imshow(weights[h], cmap="viridis", vmin=0.0, vmax=1.0)
        ax.set_title(f"head {h}", fontsize=9)
        ticks = range(T) if T <= 40 else range(0, T, max(1, T // 20))
        ax.set_xticks(list(ticks), [labels[i] for i in ticks], fontsize=6)
        ax.set_yticks(list(ticks), [labels[i] for i in ticks], fontsize=6)
        ax.set_xlabel("key (attended to)", fontsize=8)
        if h == 0:
            ax.set_ylabel("query (attending)", fontsize=8)
    fig.colorbar(image, ax=list(axes[0]), fraction=0.02, pad=0.02, label="attention weight")
    fig.suptitle(f"{folder.path.name}: last block's attention on a held-out example", fontsize=9)
    fig.savefig(folder.attention, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return True


def plot_layers(folder: RunFolder) -> bool:
    """Draw ``layers.png`` from ``layers.csv``: one heatmap per statistic, layers down,
    steps across, on a log colour scale. False without matplotlib or without rows."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import LogNorm
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        return False
    rows = folder.read_layers() if folder.layers.exists() else []
    if not rows:
        return False
    steps = sorted({int(r["step"]) for r in rows})
    layers = max(int(r["layer"]) for r in rows) + 1
    titles = {
        "stream_rms": "stream RMS after the block (0: embeddings)",
        "update_rms": "RMS of the block's update",
        "grad_norm": "block's gradient norm",
    }
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.2))
    for ax, name in zip(axes, titles):
        grid = np.full((layers, len(steps)), np.nan)
        for r in rows:
            if r[name]:
                grid[int(r["layer"]), steps.index(int(r["step"]))] = float(r[name])
        first = 0 if name == "stream_rms" else 1
        shown = grid[first:]
        positive = shown[np.isfinite(shown) & (shown > 0)]
        norm = LogNorm(positive.min(), positive.max()) if positive.size else None
        image = ax.imshow(
            shown,
            aspect="auto",
            cmap="magma",
            norm=norm,
            origin="lower",
            extent=(steps[0] - 0.5, steps[-1] + 0.5, first - 0.5, layers - 0.5),
        )
        ax.set_title(titles[name], fontsize=9)
        ax.set_xlabel("step")
        ax.set_ylabel("layer" if name == "stream_rms" else "block")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # layers are whole numbers
        fig.colorbar(image, ax=ax)
    fig.suptitle(f"minigrad: {folder.path.name}, per-layer statistics", fontsize=10)
    fig.tight_layout()
    fig.savefig(folder.layers_plot, dpi=110)
    plt.close(fig)
    return True

"""training-stats: what the residual stream and the gradients do during training, for
no norm, pre-norm and post-norm.

The same character model as ``warmup`` (the generated text of ``corpus.py``, width 32,
AdamW with a linear warmup over the first tenth of the steps and cosine decay, no
clipping), 6 blocks, trained three times from the same seed: with no normalization at
all, with pre-norm LayerNorm blocks (and a final norm), with post-norm LayerNorm blocks.
Every ``EVERY`` steps the step records, per layer, what ``minigrad train
--stats-interval`` records (``minigrad/train/layerstats.py``): the residual stream's
RMS after every block, the RMS of each block's update, and each block's gradient norm.
One figure per quantity, each a heatmap of layers x steps for the three models.

The checks (thresholds fixed before the first run):

1. post-norm: the stream's RMS after every block stays within 0.5 to 2 at every
   recorded step (each block ends in a LayerNorm whose weight starts at 1);
2. pre-norm: the stream after the last block is larger than after the first, at every
   recorded step (the stream grows with depth during training, not only at init);
3. no norm: at the end of training the last block's stream is larger than pre-norm's;
4. no norm: the spread of the blocks' gradient norms (largest / smallest, at the last
   recorded step) is larger than pre-norm's.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.lab.corpus import make_corpus
from minigrad.lab.output import new_figure, output_folder, write_csv
from minigrad.lab.result import LabResult
from minigrad.lab.stacks import seeded

NAME = "training-stats"
TITLE = "the stream's RMS, each block's update and gradient during training, by placement"
CLAIM = (
    "During training (a character model of width 32 with 6 blocks, AdamW at lr 1e-2 with "
    "warmup and cosine decay, no clipping): post-norm's stream stays within RMS 0.5 to 2 "
    "after every block at every step; pre-norm's stream is larger after the last block "
    "than after the first at every step; with no norm the last block's stream ends larger "
    "than pre-norm's, and the blocks' gradient norms are more uneven than pre-norm's."
)
FINDING = (
    "partly supported (2 of 4 at seeds 0-3, full size and quick): post-norm's stream stays "
    "at 0.99-1.39 and pre-norm's grows with depth (after the last block about 1.6 at step "
    "1, 5.4-6.0 at step 200); but with no norm the stream ends smaller than pre-norm's "
    "(4.3-4.5) and the blocks' gradients are more even (largest / smallest 1.13-1.32 "
    "against pre-norm's 2.34-2.90). No norm trains best at this rate (0.68-0.80 nats/char "
    "against 0.86-1.11)."
)

MODELS = {"no norm": ("none", "pre"), "pre-norm": ("layer", "pre"), "post-norm": ("layer", "post")}
QUANTITIES = {
    "stream_rms": "stream RMS after the block (0: embeddings)",
    "update_rms": "RMS of the block's update",
    "grad_norm": "block's gradient norm",
}
WIDTH, DEPTH, LR = 32, 6, 1e-2
EVERY = 10  # record every EVERY steps (and at step 1)


def _config(corpus_path, seed: int, steps: int, norm: str, placement: str):
    from minigrad.train.config import TrainConfig

    return TrainConfig(
        task="text", text=str(corpus_path), length=32, n_layers=DEPTH, d_model=WIDTH,
        n_heads=4, d_ff=4 * WIDTH, norm=norm, norm_placement=placement, activation="gelu",
        dropout=0.0, steps=steps, batch_size=8, lr=LR, warmup_steps=max(1, steps // 10),
        min_lr_ratio=0.1, weight_decay=0.0, grad_clip=0.0, seed=seed,
    )  # fmt: skip


def record(corpus_path, seed: int, steps: int, norm: str, placement: str) -> dict:
    """Train one model; ``{"steps": [...], QUANTITY: array (layers, recorded steps),
    "loss": final held-out loss}`` (NaN loss if training diverged)."""
    from minigrad.train.trainer import Trainer, TrainingDiverged

    with seeded(seed):
        trainer = Trainer(_config(corpus_path, seed, steps, norm, placement))
        recorded, stats = [], {q: [] for q in QUANTITIES}
        try:
            while not trainer.done:
                keep = trainer.step == 0 or (trainer.step + 1) % EVERY == 0
                m = trainer.train_step(record_stats=keep)
                if keep:
                    recorded.append(trainer.step)
                    for q in QUANTITIES:
                        stats[q].append(m["layers"][q])
            loss = trainer.evaluate()["val_loss"]
        except TrainingDiverged:
            loss = float("nan")
    out = {q: np.array(v, dtype=float).T for q, v in stats.items()}
    out.update(steps=recorded, loss=loss)
    return out


def run(out=None, seed: int = 0, quick: bool = False, progress=None) -> LabResult:
    """Train the three models and check the claim. Defaults: 200 steps of 8 sequences of
    32 characters, statistics every 10 steps. ``quick``: 60 steps."""
    folder = output_folder(out, NAME)
    corpus_path = folder / "corpus.txt"
    corpus_path.write_text(make_corpus(seed), encoding="utf-8")
    steps = 60 if quick else 200
    runs = {}
    for name, (norm, placement) in MODELS.items():
        if progress:
            progress(f"{name}: {steps} steps, statistics every {EVERY}")
        runs[name] = record(corpus_path, seed, steps, norm, placement)
    result = LabResult(NAME, CLAIM, data={"steps": steps, "runs": runs})
    _checks(result)
    _write_csv(result, folder)
    _plot(result, folder)
    result.files.append(corpus_path)
    return result


def _checks(result: LabResult) -> None:
    runs = result.data["runs"]
    post, pre, none = runs["post-norm"], runs["pre-norm"], runs["no norm"]
    result.headline.append(
        f"held-out loss after {result.data['steps']} steps, nats/char: "
        + ", ".join(f"{n} {r['loss']:.2f}" for n, r in runs.items())
    )
    result.headline.append(
        "stream RMS after the last block, first / last recorded step: "
        + "; ".join(f"{n} {r['stream_rms'][-1, 0]:.2f} / {r['stream_rms'][-1, -1]:.2f}"
                    for n, r in runs.items())
    )  # fmt: skip

    def spread(r) -> float:
        g = r["grad_norm"][:, -1]
        return float(g.max() / g.min())

    result.headline.append(
        "blocks' gradient norms at the last recorded step, largest / smallest: "
        + ", ".join(f"{n} {spread(r):.2f}" for n, r in runs.items())
    )
    blocks = post["stream_rms"][1:]
    result.check(
        "post-norm: the stream's RMS stays within 0.5 to 2 after every block at every step",
        bool(np.all((blocks >= 0.5) & (blocks <= 2.0))),
        f"range {blocks.min():.3f} to {blocks.max():.3f} (needs 0.5 to 2)",
    )
    ratio = pre["stream_rms"][-1] / pre["stream_rms"][1]
    result.check(
        "pre-norm: the stream is larger after the last block than after the first at every step",
        bool(np.all(ratio > 1.0)),
        f"last / first block's stream RMS {ratio.min():.2f} to {ratio.max():.2f} over the "
        "recorded steps (needs > 1 at every step)",
    )
    end_none, end_pre = none["stream_rms"][-1, -1], pre["stream_rms"][-1, -1]
    result.check(
        "no norm: the last block's stream ends larger than pre-norm's",
        math.isfinite(end_none) and end_none > end_pre,
        f"stream RMS after the last block at the end: no norm {end_none:.2f}, pre-norm "
        f"{end_pre:.2f} (needs no norm > pre-norm)",
    )
    result.check(
        "no norm: the blocks' gradient norms are more uneven than pre-norm's",
        spread(none) > spread(pre),
        f"largest / smallest block's gradient norm at the last recorded step: no norm "
        f"{spread(none):.2f}, pre-norm {spread(pre):.2f} (needs no norm > pre-norm)",
    )


def _write_csv(result: LabResult, folder) -> None:
    rows = []
    for name, r in result.data["runs"].items():
        for j, step in enumerate(r["steps"]):
            for layer in range(r["stream_rms"].shape[0]):
                block = layer - 1
                rows.append([name, step, layer, float(r["stream_rms"][layer, j])]
                            + ([float(r["update_rms"][block, j]), float(r["grad_norm"][block, j])]
                               if block >= 0 else [None, None]))  # fmt: skip
    columns = ["model", "step", "layer", "stream_rms", "update_rms", "grad_norm"]
    result.files.append(write_csv(folder / f"{NAME}.csv", columns, rows))


def _plot(result: LabResult, folder) -> None:
    """One figure per quantity: a heatmap of layers x steps for each model."""
    runs = result.data["runs"]
    for quantity, title in QUANTITIES.items():
        fig, axes = new_figure(result, 1, 3, width=4.2, height=3.2)
        if fig is None:
            return
        from matplotlib.colors import LogNorm
        from matplotlib.ticker import MaxNLocator

        values = np.concatenate([r[quantity].ravel() for r in runs.values()])
        values = values[np.isfinite(values) & (values > 0)]
        norm = LogNorm(values.min(), values.max())  # one colour scale for the three
        for ax, (name, r) in zip(axes, runs.items()):
            first = 0 if quantity == "stream_rms" else 1
            steps = r["steps"]
            image = ax.imshow(
                r[quantity], aspect="auto", origin="lower", cmap="magma", norm=norm,
                extent=(0, steps[-1], first - 0.5, r[quantity].shape[0] + first - 0.5),
            )  # fmt: skip
            ax.set_title(name, fontsize=10)
            ax.set_xlabel("step")
            ax.set_ylabel("layer" if first == 0 else "block")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        fig.colorbar(image, ax=axes, fraction=0.03, pad=0.02, label=title)
        fig.suptitle(f"training-stats: {title}, {DEPTH} blocks of width {WIDTH}, lr {LR:g}")
        fig.set_layout_engine("none")
        fig.subplots_adjust(left=0.05, right=0.86, top=0.84, bottom=0.15, wspace=0.3)
        path = folder / f"{NAME}-{quantity.replace('_', '-')}.png"
        fig.savefig(path, dpi=110)
        result.files.append(path)

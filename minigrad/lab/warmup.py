"""warmup: the same small language model, post-norm vs pre-norm, with and without warmup.

A character-level model of a generated text (``corpus.py``), 6 blocks of width 32,
trained four times from the same initialization and data order with AdamW at a
constant, fairly high learning rate (2e-2): post-norm and pre-norm, each without
warmup and with a linear warmup over the first half of the steps. No gradient
clipping, which is a second remedy for the same problem and would hide it.

"Trains" means: the held-out loss ends well below what a model that only knows the
letter frequencies gets (the unigram loss). To compare a run without warmup with the
same model with warmup, take the progress each makes below the unigram loss: the ratio
(unigram - loss without warmup) / (unigram - loss with warmup) is about 1 when warmup
is not needed and about 0 when the model learns nothing without it.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.lab.corpus import make_corpus
from minigrad.lab.output import PLOT_HINT, new_figure, output_folder, save_figure, write_csv
from minigrad.lab.result import LabResult
from minigrad.lab.stacks import seeded

NAME = "warmup"
TITLE = "a small language model, post- vs pre-norm, with and without learning-rate warmup"
CLAIM = (
    "Pre-norm trains stably without learning-rate warmup; post-norm needs it (at a "
    "depth and learning rate where the difference shows)."
)

RUNS = (("post-norm", False), ("post-norm", True), ("pre-norm", False), ("pre-norm", True))
TRAINS = 0.8  # "trains": held-out loss at most this fraction of the unigram loss
LAYERS, LR = 6, 2e-2
NOT_NEEDED = 0.85  # warmup not needed: this much of warmup's progress without it
NEEDED = 0.25  # warmup needed: at most this much of warmup's progress without it


def _label(placement: str, warmup: bool) -> str:
    return f"{placement}, {'warmup' if warmup else 'no warmup'}"


def unigram_loss(train: np.ndarray, heldout: np.ndarray, vocab_size: int) -> float:
    """Cross-entropy (nats per character) of the held-out text under the training text's
    letter frequencies (add-one smoothed): what a model without context achieves."""
    counts = np.bincount(train, minlength=vocab_size) + 1.0
    logp = np.log(counts / counts.sum())
    return float(-logp[heldout].mean())


def progress_ratio(without: float, with_warmup: float, unigram: float) -> float:
    """How much of the progress below the unigram loss made with warmup is made without
    it (NaN counts as no progress)."""
    if not math.isfinite(without):
        return 0.0
    return (unigram - without) / (unigram - with_warmup)


def train_once(config):
    """Train one model; returns ``(record, task)``: the per-step losses and learning
    rates and the final held-out loss (NaN if training produced a NaN), and the task
    (its data) the model trained on."""
    from minigrad.train.trainer import Trainer

    trainer = Trainer(config)
    losses, lrs = [], []
    while not trainer.done:
        metrics = trainer.train_step()
        losses.append(metrics["loss"])
        lrs.append(metrics["lr"])
        if not math.isfinite(metrics["loss"]):
            break
    final = trainer.evaluate()["val_loss"] if math.isfinite(losses[-1]) else float("nan")
    record = {"loss": np.array(losses), "lr": np.array(lrs), "val_loss": final}
    return record, trainer.task


def run(out=None, seed: int = 0, quick: bool = False, progress=None) -> LabResult:
    """Train the four models and check the claim (see the module docstring).

    Defaults: 150 steps of 8 sequences of 32 characters, warmup over 75 steps.
    ``quick``: 80 steps, warmup over 40.
    """
    from minigrad.train.config import TrainConfig

    folder = output_folder(out, NAME)
    corpus_path = folder / "corpus.txt"
    corpus_path.write_text(make_corpus(seed), encoding="utf-8")
    steps = 80 if quick else 150
    warmup_steps = steps // 2
    base = dict(
        task="text", text=str(corpus_path), length=32, n_layers=LAYERS, d_model=32, n_heads=4,
        d_ff=128, norm="layer", activation="gelu", dropout=0.0, steps=steps, batch_size=8,
        lr=LR, min_lr_ratio=1.0, weight_decay=0.0, grad_clip=0.0, seed=seed,
    )  # fmt: skip

    runs = {}
    for placement, warmup in RUNS:
        if progress:
            progress(f"training {_label(placement, warmup)}: {steps} steps")
        config = TrainConfig(
            **base,
            norm_placement="post" if placement == "post-norm" else "pre",
            warmup_steps=warmup_steps if warmup else 0,
        )
        with seeded(seed):  # the Trainer seeds minigrad's generator; give it back after
            runs[placement, warmup], task = train_once(config)  # the same text each time
    unigram = unigram_loss(task.train_data, task.val_data, task.vocab_size)
    final = {key: r["val_loss"] for key, r in runs.items()}

    result = LabResult(NAME, CLAIM, data={"final": final, "unigram": unigram, "steps": steps,
                                          "runs": runs})  # fmt: skip
    result.headline = [
        f"held-out loss after {steps} steps (nats/char; letter frequencies alone: {unigram:.2f}): "
        + ", ".join(f"{_label(*key)} {final[key]:.2f}" for key in RUNS),
    ]

    def ok(value: float, limit: float, below: bool) -> bool:
        return math.isfinite(value) and (value <= limit if below else value >= limit)

    pre_no, pre_wu = final["pre-norm", False], final["pre-norm", True]
    post_no, post_wu = final["post-norm", False], final["post-norm", True]
    pre_ratio = progress_ratio(pre_no, pre_wu, unigram)
    post_ratio = progress_ratio(post_no, post_wu, unigram)
    result.data.update(pre_ratio=pre_ratio, post_ratio=post_ratio)
    result.headline.append(
        f"progress without warmup / progress with warmup: pre-norm {pre_ratio:.2f}, "
        f"post-norm {post_ratio:.2f} (1 = warmup not needed, 0 = nothing learned without it)"
    )
    result.check(
        "pre-norm trains without warmup",
        ok(pre_no, TRAINS * unigram, below=True),
        f"held-out loss {pre_no:.3f} (needs <= {TRAINS} x {unigram:.2f} = {TRAINS * unigram:.2f})",
    )
    result.check(
        "pre-norm does not need warmup",
        pre_ratio >= NOT_NEEDED,
        f"reaches {pre_ratio:.2f} of the progress it makes with warmup (needs >= {NOT_NEEDED})",
    )
    result.check(
        "post-norm trains with warmup",
        ok(post_wu, TRAINS * unigram, below=True),
        f"held-out loss {post_wu:.3f} (needs <= {TRAINS * unigram:.2f})",
    )
    result.check(
        "post-norm needs warmup",
        post_ratio <= NEEDED,
        f"reaches {post_ratio:.2f} of the progress it makes with warmup (needs <= {NEEDED}); "
        f"held-out loss {post_no:.3f} without warmup",
    )

    columns = ["step"] + [f"{_label(*key)} {k}" for key in RUNS for k in ("loss", "lr")]
    rows = []
    for i in range(steps):
        row = [i + 1]
        for key in RUNS:
            r = runs[key]
            row += [float(r["loss"][i]) if i < len(r["loss"]) else None,
                    float(r["lr"][i]) if i < len(r["lr"]) else None]  # fmt: skip
        rows.append(row)
    result.files.append(write_csv(folder / f"{NAME}.csv", columns, rows))
    result.files.append(corpus_path)
    _plot(result, folder, runs, unigram)
    return result


def _smooth(y: np.ndarray, k: int = 9) -> np.ndarray:
    if len(y) < k:
        return y
    return np.convolve(np.pad(y, (k // 2, k // 2), mode="edge"), np.ones(k) / k, mode="valid")


def _plot(result, folder, runs, unigram) -> None:
    fig, axes = new_figure(1, 2, width=5.5)
    if fig is None:
        result.notes.append(PLOT_HINT)
        return
    ax, ax_lr = axes
    colors = {"post-norm": "#dc2626", "pre-norm": "#2563eb"}
    for (placement, warmup), r in runs.items():
        style = "-" if warmup else "--"
        steps = np.arange(1, len(r["loss"]) + 1)
        label = f"{_label(placement, warmup)} (held-out {r['val_loss']:.2f})"
        ax.plot(steps, _smooth(r["loss"]), style, color=colors[placement], label=label)
        if placement == "pre-norm":  # the schedules are the same for both placements
            ax_lr.plot(steps, r["lr"], style, color="black",
                       label="warmup" if warmup else "no warmup")  # fmt: skip
    ax.axhline(
        unigram, color="gray", linestyle=":", label=f"letter frequencies only ({unigram:.2f})"
    )
    ax.set_xlabel("step")
    ax.set_ylabel("training loss (nats/char, smoothed)")
    ax.set_title("training loss")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    ax_lr.set_xlabel("step")
    ax_lr.set_ylabel("learning rate")
    ax_lr.set_title("learning-rate schedule")
    ax_lr.grid(True, alpha=0.3)
    ax_lr.legend(fontsize=8)
    fig.suptitle(f"warmup: {LAYERS}-block character model, AdamW, lr {LR:g}, no gradient clipping")
    result.files.append(save_figure(fig, folder / f"{NAME}.png"))

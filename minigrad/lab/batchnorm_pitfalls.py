"""batchnorm-pitfalls: four ways BatchNorm's batch statistics bite, against LayerNorm.

The data: examples of C = 16 features with mean 2 and standard deviation 1.5, in
float64 (so that a difference that shows is a real one, not float32 rounding).

1. Batch size. One fixed example is normalized inside many random batches of size B
   (training mode). Its output changes with its batch companions; the spread over
   batches grows as B shrinks (the batch mean and variance are estimates from B values).
2. Train vs eval. A BatchNorm whose running statistics have converged gives different
   outputs for the same batch in training mode (batch statistics) and in eval mode
   (running statistics); the gap grows as the batch shrinks.
3. Forgetting ``eval()``. Evaluating a test set with the layer still in training mode:
   an example's output depends on which test batch it lands in, and the running
   statistics are overwritten by the test data (here shifted to mean 3).
4. Padding. Variable-length sequences padded with zeros to a common length: the
   padding enters BatchNorm's statistics and changes every real token's output.
   Compared with statistics over the real tokens only.

LayerNorm normalizes each example (each token) on its own: it has no batch statistics,
no running statistics and no train/eval difference, so every one of these is exactly 0
for it.
"""

from __future__ import annotations

import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.lab.output import new_figure, output_folder, save_figure, write_csv
from minigrad.lab.result import LabResult

NAME = "batchnorm-pitfalls"
TITLE = "BatchNorm's batch statistics: batch size, train vs eval, forgetting eval(), padding"
CLAIM = (
    "BatchNorm's output for one example depends on its batch: it gets noisier as the "
    "batch shrinks, differs between train and eval mode, changes (and corrupts the "
    "running statistics) when eval() is forgotten, and is corrupted by padding in "
    "variable-length sequences. LayerNorm has none of these problems."
)
FINDING = (
    "supported (5 of 5 at seed 0; the same at seeds 0-3, quick): one example's output "
    "varies by 0.415 across batches of 8 (0.072 of 256); LayerNorm's by 2e-15."
)

C, MEAN, STD = 16, 2.0, 1.5


def _examples(rng, n: int, mean: float = MEAN) -> np.ndarray:
    return mean + STD * rng.standard_normal((n, C))  # float64: differences are not rounding


def _bn_train(x: np.ndarray) -> np.ndarray:
    """BatchNorm in training mode with fresh parameters (weight 1, bias 0)."""
    return F.batch_norm(mg.tensor(x), None, None, training=True).numpy()


def _ln(x: np.ndarray) -> np.ndarray:
    return F.layer_norm(mg.tensor(x), (C,)).numpy()


@mg.no_grad()
def batch_size_noise(rng, sizes, draws: int) -> tuple[np.ndarray, np.ndarray]:
    """Spread (std over random batches, averaged over features) of one example's output."""
    x0 = _examples(rng, 1)
    bn, ln = [], []
    for b in sizes:
        outs_bn, outs_ln = [], []
        for _ in range(draws):
            batch = np.concatenate([x0, _examples(rng, b - 1)])  # x0 is row 0
            outs_bn.append(_bn_train(batch)[0])
            outs_ln.append(_ln(batch)[0])
        bn.append(float(np.std(outs_bn, axis=0).mean()))
        ln.append(float(np.std(outs_ln, axis=0).mean()))
    return np.array(bn), np.array(ln)


def _trained_batchnorm(rng, batches: int = 200) -> nn.BatchNorm1d:
    bn = nn.BatchNorm1d(C).double()
    with mg.no_grad():
        for _ in range(batches):
            bn(mg.tensor(_examples(rng, 32)))
    return bn


@mg.no_grad()
def train_eval_gap(rng, sizes, draws: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean |train-mode output - eval-mode output| for the same batch, per batch size."""
    bn = _trained_batchnorm(rng)
    ln = nn.LayerNorm(C).double()
    gap_bn, gap_ln = [], []
    for b in sizes:
        g_bn = g_ln = 0.0
        for _ in range(draws):
            x = mg.tensor(_examples(rng, b))
            saved = (bn.running_mean.numpy().copy(), bn.running_var.numpy().copy())
            train_out = bn.train()(x).numpy()
            bn.running_mean.numpy()[...], bn.running_var.numpy()[...] = saved  # undo the update
            g_bn += float(np.abs(train_out - bn.eval()(x).numpy()).mean())
            g_ln += float(np.abs(ln.train()(x).numpy() - ln.eval()(x).numpy()).mean())
        gap_bn.append(g_bn / draws)
        gap_ln.append(g_ln / draws)
    return np.array(gap_bn), np.array(gap_ln)


@mg.no_grad()
def forgotten_eval(rng, test_batches: int, shift: float = 1.0) -> dict:
    """Evaluate a shifted test set in training mode by mistake (batches of 8)."""
    bn = _trained_batchnorm(rng)
    ln = nn.LayerNorm(C).double()
    example = _examples(rng, 1, MEAN + shift)
    # The same example in two different test batches.
    batch_a = mg.tensor(np.concatenate([example, _examples(rng, 7, MEAN + shift)]))
    batch_b = mg.tensor(np.concatenate([example, _examples(rng, 7, MEAN + shift)]))
    bn.eval()
    eval_diff = float(np.abs(bn(batch_a).numpy()[0] - bn(batch_b).numpy()[0]).max())
    ln_diff = float(np.abs(ln(batch_a).numpy()[0] - ln(batch_b).numpy()[0]).max())
    bn.train()  # forgot model.eval()
    start = float(bn.running_mean.numpy().mean())
    train_diff = float(np.abs(bn(batch_a).numpy()[0] - bn(batch_b).numpy()[0]).max())
    running = [start]
    for _ in range(test_batches):
        bn(mg.tensor(_examples(rng, 8, MEAN + shift)))
        running.append(float(bn.running_mean.numpy().mean()))
    return {
        "train_mode_diff": train_diff, "eval_mode_diff": eval_diff, "layernorm_diff": ln_diff,
        "running_mean": np.array(running), "shift": shift,
    }  # fmt: skip


@mg.no_grad()
def padding_error(rng, pad_fractions, n_seqs: int = 16, length: int = 32) -> tuple:
    """Mean |output with padding in the statistics - output from real tokens only| over the
    real tokens, for sequences padded with zeros to ``length``."""
    err_bn, err_ln, actual = [], [], []
    for p in pad_fractions:
        mean_len = (1 - p) * length
        lengths = np.clip(np.round(mean_len + rng.integers(-4, 5, n_seqs)), 1, length).astype(int)
        if p == 0:
            lengths[:] = length
        x = np.zeros((n_seqs, length, C))  # (N, L, C), zero padding
        real = np.arange(length)[None, :] < lengths[:, None]  # (N, L)
        x[real] = _examples(rng, int(real.sum()))
        # BatchNorm1d wants (N, C, L): statistics over N and L, padding included.
        padded = (
            nn.BatchNorm1d(C).double()(mg.tensor(x.transpose(0, 2, 1))).numpy().transpose(0, 2, 1)
        )
        masked = _bn_train(x[real])  # (tokens, C): statistics over the real tokens only
        err_bn.append(float(np.abs(padded[real] - masked).mean()))
        ln_padded = _ln(x)[real]  # LayerNorm over the features of each token
        ln_alone = np.concatenate([_ln(x[i, : lengths[i]]) for i in range(n_seqs)])
        err_ln.append(float(np.abs(ln_padded - ln_alone).mean()))
        actual.append(1 - real.mean())
    return np.array(err_bn), np.array(err_ln), np.array(actual)


def run(out=None, seed: int = 0, quick: bool = False, progress=None) -> LabResult:
    """Measure the four pitfalls and check the claim (see the module docstring).

    Defaults: 200 random batches per batch size; ``quick``: 40.
    """
    folder = output_folder(out, NAME)
    rng = np.random.default_rng([seed, 9])
    sizes = np.array([2, 4, 8, 16, 32, 64, 128, 256])
    draws = 40 if quick else 200
    if progress:
        progress(f"batch sizes {sizes[0]}..{sizes[-1]}, {draws} random batches each")
    spread_bn, spread_ln = batch_size_noise(rng, sizes, draws)
    gap_bn, gap_ln = train_eval_gap(rng, sizes, max(10, draws // 10))
    forgot = forgotten_eval(rng, test_batches=50)
    pads = np.array([0.0, 0.1, 0.25, 0.5, 0.75])
    pad_bn, pad_ln, pad_actual = padding_error(rng, pads)

    i8, i256 = int(np.flatnonzero(sizes == 8)[0]), int(np.flatnonzero(sizes == 256)[0])
    i25 = int(np.flatnonzero(pads == 0.25)[0])
    drift = forgot["running_mean"][-1] - forgot["running_mean"][0]
    result = LabResult(NAME, CLAIM, data={
        "sizes": sizes, "spread_bn": spread_bn, "spread_ln": spread_ln, "gap_bn": gap_bn,
        "gap_ln": gap_ln, "forgot": forgot, "pads": pad_actual, "pad_bn": pad_bn,
        "pad_ln": pad_ln,
    })  # fmt: skip
    result.headline = [
        f"one example's output across random batches (std): batch of 8 {spread_bn[i8]:.3f}, "
        f"of 256 {spread_bn[i256]:.3f}; LayerNorm {spread_ln.max():.0e}",
        f"train-mode vs eval-mode output: batch of 8 {gap_bn[i8]:.3f}, of 256 "
        f"{gap_bn[i256]:.3f}; LayerNorm {gap_ln.max():.0e}",
        f"eval() forgotten: the same test example differs by {forgot['train_mode_diff']:.3f} "
        f"between two test batches (eval mode: {forgot['eval_mode_diff']:.0e}); the running "
        f"mean drifted {drift:+.2f} toward the test data in 50 batches",
        f"padding ~25% of the positions shifts real tokens' outputs by {pad_bn[i25]:.3f} on "
        f"average (LayerNorm: {pad_ln.max():.0e})",
    ]
    result.check(
        "BatchNorm: one example's output gets noisier as the batch shrinks",
        spread_bn[i8] >= 2 * spread_bn[i256] and np.all(np.diff(spread_bn[1:]) < 0),
        f"spread {', '.join(f'{s:.3f}' for s in spread_bn)} for batch sizes "
        f"{', '.join(map(str, sizes))} (needs to fall from 4 on, and batch 8 >= 2 x batch 256)",
    )
    result.check(
        "BatchNorm: train and eval mode differ, more for small batches",
        gap_bn[i8] >= 0.05 and gap_bn[i8] >= 2 * gap_bn[i256],
        f"mean gap {gap_bn[i8]:.3f} at batch 8 (needs >= 0.05 and >= 2 x the {gap_bn[i256]:.3f} "
        f"at batch 256)",
    )
    result.check(
        "BatchNorm: forgetting eval() makes outputs depend on the test batch and corrupts "
        "the running statistics",
        forgot["train_mode_diff"] >= 0.05 and forgot["eval_mode_diff"] <= 1e-6
        and drift >= 0.5 * forgot["shift"],
        f"same example, two test batches: differs by {forgot['train_mode_diff']:.3f} (needs >= "
        f"0.05; eval mode {forgot['eval_mode_diff']:.0e}); running mean moved {drift:+.2f} "
        f"(needs >= half the test shift of {forgot['shift']:+.1f})",
    )  # fmt: skip
    result.check(
        "BatchNorm: padding corrupts the statistics",
        pad_bn[0] <= 1e-5 and pad_bn[i25] >= 0.1 and np.all(np.diff(pad_bn) > 0),
        f"mean error {', '.join(f'{e:.3f}' for e in pad_bn)} at padding "
        f"{', '.join(f'{p:.0%}' for p in pad_actual)} (needs 0 without padding, >= 0.1 at "
        f"~25%, and to grow)",
    )
    worst_ln = max(spread_ln.max(), gap_ln.max(), forgot["layernorm_diff"], pad_ln.max())
    result.check(
        "LayerNorm has none of these problems",
        worst_ln <= 1e-9,
        f"largest LayerNorm difference in all four measurements {worst_ln:.0e} (needs <= 1e-9)",
    )

    columns = ["pitfall", "x", "batchnorm", "layernorm"]
    rows = [["batch-size spread", int(b), float(s), float(t)]
            for b, s, t in zip(sizes, spread_bn, spread_ln)]  # fmt: skip
    rows += [["train-eval gap", int(b), float(g), float(h)]
             for b, g, h in zip(sizes, gap_bn, gap_ln)]  # fmt: skip
    rows += [["running mean after k test batches in train mode", k, float(m), None]
             for k, m in enumerate(forgot["running_mean"])]  # fmt: skip
    rows += [["padding error", float(p), float(e), float(f)]
             for p, e, f in zip(pad_actual, pad_bn, pad_ln)]  # fmt: skip
    result.files.append(write_csv(folder / f"{NAME}.csv", columns, rows))
    _plot(result, folder)
    return result


def _batch_axis(ax, sizes) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [str(b) for b in sizes])
    ax.minorticks_off()
    ax.set_xlabel("batch size")


def _versus(ax, x, bn, ln, ylabel: str, title: str) -> None:
    """One panel: BatchNorm's measurement (red) next to LayerNorm's (blue) against ``x``."""
    ax.plot(x, bn, color="#dc2626", marker="o", label="BatchNorm")
    ax.plot(x, ln, color="#2563eb", marker="s", label="LayerNorm")
    ax.set_ylabel(ylabel)
    ax.set_title(title)


def _plot(result, folder) -> None:
    fig, axes = new_figure(result, 2, 2, width=5.0, height=3.6)
    if fig is None:
        return
    d, sizes = result.data, result.data["sizes"]
    _versus(axes[0], sizes, d["spread_bn"], d["spread_ln"], "std of one example's output",
            "1. the same example in random batches")  # fmt: skip
    _batch_axis(axes[0], sizes)
    _versus(axes[1], sizes, d["gap_bn"], d["gap_ln"], "mean |train output - eval output|",
            "2. train vs eval mode")  # fmt: skip
    _batch_axis(axes[1], sizes)
    ax = axes[2]
    forgot = d["forgot"]
    ax.plot(forgot["running_mean"], color="#dc2626", label="BatchNorm running_mean (train mode)")
    ax.axhline(MEAN, color="gray", linestyle=":", label=f"training data mean {MEAN:g}")
    ax.axhline(MEAN + forgot["shift"], color="black", linestyle="--",
               label=f"test data mean {MEAN + forgot['shift']:g}")  # fmt: skip
    ax.set_xlabel("test batches evaluated without eval()")
    ax.set_ylabel("running mean (average over features)")
    ax.set_title("3. forgetting eval()")
    _versus(axes[3], 100 * d["pads"], d["pad_bn"], d["pad_ln"], "mean error on real tokens",
            "4. zero padding in the statistics")  # fmt: skip
    axes[3].set_xlabel("padding (% of positions)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("BatchNorm pitfalls (LayerNorm for comparison)")
    result.files.append(save_figure(fig, folder / f"{NAME}.png"))

"""Draw the normalization pages' figures (matplotlib only):

- normalization-axes.png: which values share one mean and variance, for BatchNorm,
  LayerNorm, GroupNorm and instance norm, on a batch drawn as examples x channels;
- batchnorm-by-hand-batch.png: the batch of docs/batchnorm-by-hand.md as a table, with
  BatchNorm's statistics (per channel, down the batch) beside LayerNorm's (per example);
- rmsnorm-by-hand-row.png: the row [1, 2, 4, 9] after LayerNorm and after RMSNorm.

The numbers are computed here with NumPy, not typed in. Each function returns its
figure; ``save=False`` leaves it open instead of writing the PNG (the notebooks draw
the figures inline that way).

    python docs/images/make_norm_figures.py
"""

import pathlib

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

HERE = pathlib.Path(__file__).resolve().parent
SHARED, OTHER = "#f59e0b", "#e5e7eb"


def axes_figure(save: bool = True):
    n, c, groups = 4, 6, 2
    panels = {
        "BatchNorm\none channel, every example": lambda i, j: j == 1,
        "LayerNorm\none example, every channel": lambda i, j: i == 1,
        f"GroupNorm ({groups} groups)\none example, one group of channels": (
            lambda i, j: i == 1 and j < c // groups
        ),
        "instance norm (GroupNorm(C, C))\none example, one channel": (
            lambda i, j: i == 1 and j == 1
        ),
    }
    fig, axes = plt.subplots(1, 4, figsize=(13, 3.6))
    for ax, (title, shares) in zip(axes, panels.items()):
        for i in range(n):
            for j in range(c):
                color = SHARED if shares(i, j) else OTHER
                ax.add_patch(Rectangle((j, n - 1 - i), 0.92, 0.92, facecolor=color))
        ax.set_xlim(-0.1, c)
        ax.set_ylim(-0.1, n)
        ax.set_aspect("equal")
        ax.set_xticks(np.arange(c) + 0.46, [str(j) for j in range(c)], fontsize=8)
        ax.set_yticks(np.arange(n) + 0.46, [str(i) for i in reversed(range(n))], fontsize=8)
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        ax.set_xlabel("channel (C)", fontsize=9)
        ax.set_ylabel("example (N)", fontsize=9)
        ax.set_title(title, fontsize=10)
    fig.suptitle(
        "Orange: the values that share one mean and one variance (each cell holds all the "
        "positions of that example and channel, for [N, C, L] or [N, C, H, W] inputs)",
        fontsize=10,
        y=0.1,
    )
    if save:
        fig.savefig(HERE / "normalization-axes.png", dpi=110, bbox_inches="tight")
        plt.close(fig)
    return fig


def batch_figure(save: bool = True):
    x = np.array([[1.0, 0.0], [2.0, 3.0], [4.0, -1.0], [9.0, 2.0]])  # the page's batch
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
    for ax, per_channel in zip(axes, (True, False)):
        mean = x.mean(axis=0 if per_channel else 1)
        var = x.var(axis=0 if per_channel else 1)
        for i in range(4):
            for j in range(2):
                group = j if per_channel else i
                color = plt.cm.Pastel1(group)
                ax.add_patch(Rectangle((j, 3 - i), 0.95, 0.95, facecolor=color))
                ax.text(j + 0.47, 3 - i + 0.47, f"{x[i, j]:g}", ha="center", va="center")
        if per_channel:
            for j in range(2):
                ax.text(j + 0.47, -0.45, f"mean {mean[j]:g}\nvar {var[j]:g}", ha="center",
                        va="center", fontsize=9)  # fmt: skip
            ax.set_title(
                "BatchNorm: one mean and variance\nper channel, down the batch", fontsize=10
            )
        else:
            for i in range(4):
                ax.text(2.15, 3 - i + 0.47, f"mean {mean[i]:g}, var {var[i]:g}", va="center",
                        fontsize=9)  # fmt: skip
            ax.set_title(
                "LayerNorm on the same batch: one per\nexample, across the channels", fontsize=10
            )
        ax.set_xlim(-0.1, 3.6)
        ax.set_ylim(-1.0, 4.0)
        ax.set_aspect("equal")
        ax.xaxis.tick_top()
        ax.set_xticks([0.47, 1.47], ["ch. 0", "ch. 1"], fontsize=9)
        ax.set_yticks([3.47, 2.47, 1.47, 0.47], ["example 0", "1", "2", "3"], fontsize=9)
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
    if save:
        fig.savefig(HERE / "batchnorm-by-hand-batch.png", dpi=110, bbox_inches="tight")
        plt.close(fig)
    return fig


def rms_figure(save: bool = True):
    x = np.array([1.0, 2.0, 4.0, 9.0])
    eps = 1e-5
    layer = (x - x.mean()) / np.sqrt(x.var() + eps)
    rms = x / np.sqrt((x * x).mean() + eps)
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    positions = np.arange(4)
    for k, (values, label) in enumerate([
        (x / 10, "x / 10 (the input, scaled to fit)"),
        (layer, "LayerNorm: x - mean, divided by the std (mean 0)"),
        (rms, "RMSNorm: x divided by its RMS (not centered)"),
    ]):  # fmt: skip
        ax.bar(positions + (k - 1) * 0.27, values, width=0.26, label=label)
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_xticks(positions, [f"x = {v:g}" for v in x])
    ax.set_ylabel("value")
    ax.set_title("The row [1, 2, 4, 9] after LayerNorm and after RMSNorm (no weight)")
    ax.legend(fontsize=8.5, loc="upper left", frameon=False)
    ax.set_ylim(-1.3, 2.6)
    if save:
        fig.savefig(HERE / "rmsnorm-by-hand-row.png", dpi=110, bbox_inches="tight")
        plt.close(fig)
    return fig


if __name__ == "__main__":
    matplotlib.use("Agg")  # only as a script: a notebook keeps its inline backend
    axes_figure()
    batch_figure()
    rms_figure()
    print("wrote", ", ".join(p.name for p in sorted(HERE.glob("*.png"))))

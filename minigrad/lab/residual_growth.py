"""residual-growth: the size of the residual stream, block by block, at initialization.

A deep stack (64 blocks by default) of each variant reads the same unit-variance input;
after every block we record the stream's RMS and variance. "pre-norm + final norm" is
the pre-norm stream passed through one more LayerNorm, as a model's output would be
if the stack ended at that block.

Why: a block adds ``f(input)`` to the stream. When ``f`` reads a normalized copy
(pre-norm), what it adds has about the same variance ``c`` at every depth, so the
variance after L blocks is about ``1 + c L``: linear. With no normalization at all,
``f`` reads the stream itself and adds a share of what is already there: the growth
compounds. Post-norm renormalizes after every addition.
"""

from __future__ import annotations

import numpy as np

import minigrad as mg
import minigrad.nn as nn
from minigrad.lab.output import new_figure, output_folder, save_figure, write_csv
from minigrad.lab.result import LabResult
from minigrad.lab.stacks import make_stack, random_stream

NAME = "residual-growth"
TITLE = "the residual stream's size, block by block, at initialization"
CLAIM = (
    "With an identity path and no normalization of the stream, its variance grows with "
    "depth: roughly linearly when each block reads a normalized copy (pre-norm), because "
    "every block adds about the same amount, and faster than linearly with no "
    "normalization at all, because each block adds a share of what is already there "
    "(64 blocks of width 64 at PyTorch's default initialization, unit-variance input)."
)
FINDING = (
    "supported (3 of 3 at seed 0, full size; the same at seeds 0-3, quick): after 64 "
    "blocks the variance is 10 with pre-norm (0.144 per block, R^2 0.991) and 2.8e+05 "
    "with no norm."
)

VARIANT_LABELS = ("none", "pre-norm", "post-norm", "pre-norm + final norm")


def measure(depth: int, d_model: int, batch: int, seq: int, seeds: list[int]) -> dict:
    """Variance and RMS of the stream after 0..depth blocks, averaged over ``seeds``.

    Returns ``{variant: {"var": array [depth + 1], "rms": array [depth + 1]}}``.
    """
    sums = {v: {"var": np.zeros(depth + 1), "rms": np.zeros(depth + 1)} for v in VARIANT_LABELS}
    for seed in seeds:
        x0 = random_stream(batch, seq, d_model, seed)
        final_norm = nn.LayerNorm(d_model)
        for variant in ("none", "pre-norm", "post-norm"):
            blocks = make_stack(variant, depth, d_model, seed=seed)
            x = x0
            with mg.no_grad():
                for layer in range(depth + 1):
                    if layer > 0:
                        x = blocks[layer - 1](x, is_causal=True)  # (N, L, E)
                    _accumulate(sums[variant], layer, x.numpy())
                    if variant == "pre-norm":
                        _accumulate(sums["pre-norm + final norm"], layer, final_norm(x).numpy())
    return {v: {k: a / len(seeds) for k, a in s.items()} for v, s in sums.items()}


def _accumulate(into: dict, layer: int, x: np.ndarray) -> None:
    x = x.astype(np.float64)
    into["var"][layer] += x.var()
    into["rms"][layer] += np.sqrt(np.mean(x * x))


def linear_fit(y: np.ndarray) -> tuple[float, float, float]:
    """``(intercept, slope, r2)`` of a straight line through ``y`` against 0, 1, 2, ..."""
    d = np.arange(len(y), dtype=np.float64)
    slope, intercept = np.polyfit(d, y, 1)
    residual = y - (intercept + slope * d)
    r2 = 1.0 - float(residual @ residual) / float(((y - y.mean()) ** 2).sum())
    return float(intercept), float(slope), r2


def half_ratio(y: np.ndarray) -> float:
    """Growth over the second half of the depth divided by growth over the first half:
    about 1 for a straight line, much more than 1 for compounding growth."""
    mid = (len(y) - 1) // 2
    first, second = y[mid] - y[0], y[-1] - y[mid]
    return float(second / first) if first > 0 else float("inf")


def run(out=None, seed: int = 0, quick: bool = False, progress=None) -> LabResult:
    """Measure the stream's growth and check the claim (see the module docstring).

    Defaults: 64 blocks of width 64 (4 heads, feed-forward 256, GELU), a batch of 8
    sequences of 16 positions, averaged over 2 initializations. ``quick``: 16 blocks.
    """
    folder = output_folder(out, NAME)
    depth = 16 if quick else 64
    d_model, batch, seq = 64, 8, 16
    seeds = [seed, seed + 1]
    if progress:
        progress(f"{depth} blocks x 3 stacks x {len(seeds)} initializations, forward only")
    stats = measure(depth, d_model, batch, seq, seeds)
    result = LabResult(NAME, CLAIM, data={"depth": depth, "stats": stats})

    var = {v: stats[v]["var"] for v in VARIANT_LABELS}
    intercept, slope, r2 = linear_fit(var["pre-norm"])
    pre_half, none_half = half_ratio(var["pre-norm"]), half_ratio(var["none"])
    post_dev = float(np.abs(var["post-norm"][1:] - 1.0).max())  # [0] is the input
    final_dev = float(np.abs(var["pre-norm + final norm"][1:] - 1.0).max())
    growth = var["pre-norm"][-1] / var["pre-norm"][0]
    result.data.update(pre_slope=slope, pre_r2=r2, pre_half_ratio=pre_half,
                       none_half_ratio=none_half, post_max_deviation=post_dev)  # fmt: skip

    result.headline = [
        f"variance after {depth} blocks (input 1.00): no norm {var['none'][-1]:.3g}, "
        f"pre-norm {var['pre-norm'][-1]:.3g}, post-norm {var['post-norm'][-1]:.3f}, "
        f"pre-norm + final norm {var['pre-norm + final norm'][-1]:.3f}",
        f"pre-norm adds {slope:.3f} variance per block (straight-line fit, R^2 = {r2:.3f})",
        f"growth in the second half of the depth / in the first half: pre-norm "
        f"{pre_half:.2f}, no norm {none_half:.3g}",
    ]
    result.check(
        "pre-norm: the stream's variance grows with depth",
        growth >= 1.5,
        f"variance x{growth:.2f} over {depth} blocks (needs >= 1.5)",
    )
    result.check(
        "pre-norm: the growth is roughly linear",
        r2 >= 0.95 and pre_half <= 2.5,
        f"straight-line R^2 = {r2:.3f} (needs >= 0.95), second-half / first-half "
        f"growth {pre_half:.2f} (needs <= 2.5)",
    )
    result.check(
        "no normalization: the growth is faster than linear",
        none_half >= 3.0,
        f"second-half / first-half growth {none_half:.3g} (needs >= 3)",
    )
    result.notes.append(
        f"post-norm's stream (largest |variance - 1| {post_dev:.4f}) and the output of a final "
        f"norm ({final_dev:.4f}) sit at variance 1 by construction: each is the output of a "
        "LayerNorm, so they are shown, not checked; the final norm fixes what the head "
        f"reads while the stream beneath it grows x{growth:.2f}."
    )

    columns = ["depth"] + [f"{v} {k}" for v in VARIANT_LABELS for k in ("variance", "rms")]
    rows = [
        [layer] + [float(stats[v][k][layer]) for v in VARIANT_LABELS for k in ("var", "rms")]
        for layer in range(depth + 1)
    ]
    result.files.append(write_csv(folder / f"{NAME}.csv", columns, rows))
    _plot(result, folder, stats, depth, (intercept, slope))
    return result


def _plot(result: LabResult, folder, stats: dict, depth: int, fit: tuple) -> None:
    fig, axes = new_figure(result, 1, 2, width=5.5)
    if fig is None:
        return
    left, right = axes
    layers = np.arange(depth + 1)
    colors = {"none": "#dc2626", "pre-norm": "#2563eb", "post-norm": "#16a34a",
              "pre-norm + final norm": "#9333ea"}  # fmt: skip
    # post-norm and the final norm both sit at 1: a wide pale line under a dashed one with
    # markers, so that neither hides the other
    styles = {"none": dict(linestyle="-", linewidth=2),
              "pre-norm": dict(linestyle="-", linewidth=2),
              "post-norm": dict(linestyle="-", linewidth=5, alpha=0.45),
              "pre-norm + final norm": dict(linestyle="--", linewidth=1.5, marker="o",
                                            markersize=3, markevery=4)}  # fmt: skip
    for v in VARIANT_LABELS:
        left.plot(layers, stats[v]["var"], label=v, color=colors[v], **styles[v])
    left.set_yscale("log")
    left.set_title("variance of the stream (log scale)")
    for v in ("pre-norm", "post-norm", "pre-norm + final norm"):
        right.plot(layers, stats[v]["var"], label=v, color=colors[v], **styles[v])
    intercept, slope = fit
    right.plot(layers, intercept + slope * layers, "--", color="#2563eb", alpha=0.6,
               label=f"straight-line fit, slope {slope:.3f}")  # fmt: skip
    right.set_title("the same, linear scale, without 'none'")
    for ax in (left, right):
        ax.set_xlabel("blocks")
        ax.set_ylabel("variance")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("residual stream at initialization")
    result.files.append(save_figure(fig, folder / f"{NAME}.png"))

"""invariance: what LayerNorm's and RMSNorm's outputs do not depend on.

For a row ``x`` of ``n`` numbers (no affine parameters: weight 1, bias 0):

    LayerNorm(x) = (x - mean(x)) / sqrt(var(x) + eps)
    RMSNorm(x)   = x / sqrt(mean(x^2) + eps)

- Scaling ``x -> a x`` (a > 0): both outputs stay the same, up to ``eps``: once
  ``a^2 var(x)`` is comparable to ``eps``, ``eps`` dominates and the output shrinks.
- Shifting every element by the same ``c``: LayerNorm subtracts the mean, so its output
  is unchanged; RMSNorm keeps the offset (its output's mean is ``mean(x + c) / rms(x + c)``).
- Direction: RMSNorm only rescales, so its output points exactly along ``x``;
  LayerNorm's points along ``x - mean(x)``, which differs from ``x`` when the mean is
  not zero.

Everything runs in float64 on 256 rows of 64 standard-normal numbers, through the
default (fused) kernels, with each layer's default ``eps`` (1e-5 for LayerNorm, the
float64 machine epsilon 2.2e-16 for RMSNorm).
"""

from __future__ import annotations

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.lab.output import new_figure, output_folder, save_figure, write_csv
from minigrad.lab.result import LabResult

NAME = "invariance"
TITLE = "what LayerNorm and RMSNorm are invariant to"
CLAIM = (
    "LayerNorm's output does not change when its input is scaled or shifted; RMSNorm's "
    "does not change when scaled, keeps a shared offset, and keeps the input's direction."
)
FINDING = (
    "supported (5 of 5 at seed 0; the same at seeds 0-3, quick): every change under "
    "scaling is the one eps causes; RMSNorm keeps a shift's offset and the input's "
    "direction."
)

LN_EPS = 1e-5


def layer_norm(x: np.ndarray) -> np.ndarray:
    return F.layer_norm(mg.tensor(x), (x.shape[-1],), eps=LN_EPS).numpy()


def rms_norm(x: np.ndarray, eps: float | None = None) -> np.ndarray:
    return F.rms_norm(mg.tensor(x), (x.shape[-1],), eps=eps).numpy()


def rms_norm_same_eps(x: np.ndarray) -> np.ndarray:
    """RMSNorm with LayerNorm's eps (1e-5), for a comparison at the same eps."""
    return rms_norm(x, LN_EPS)


def max_change(norm, x: np.ndarray, transformed: np.ndarray) -> float:
    """Largest absolute change of the output when ``x`` is replaced by ``transformed``."""
    return float(np.abs(norm(transformed) - norm(x)).max())


def eps_change(x: np.ndarray, a: float, centered: bool, eps: float) -> float:
    """The change of the output under ``x -> a x`` that ``eps`` alone causes (exact):
    ``|d| * |a / sqrt(a^2 s + eps) - 1 / sqrt(s + eps)|`` with ``d = x - mean(x)`` and
    ``s = var(x)`` for LayerNorm (``centered``), ``d = x`` and ``s = mean(x^2)`` for RMSNorm."""
    d = x - x.mean(-1, keepdims=True) if centered else x
    s = (d * d).mean(-1, keepdims=True)
    return float((np.abs(d) * np.abs(a / np.sqrt(a * a * s + eps) - 1 / np.sqrt(s + eps))).max())


def row_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row of ``a`` with the same row of ``b``."""
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def run(out=None, seed: int = 0, quick: bool = False, progress=None) -> LabResult:
    """Measure the invariances and check the claim (see the module docstring).

    ``quick`` uses 32 rows instead of 256 (the experiment takes under a second either way).
    """
    folder = output_folder(out, NAME)
    rng = np.random.default_rng([seed, 5])
    x = rng.standard_normal((32 if quick else 256, 64))  # (rows, n) float64
    scales = np.logspace(-4, 3, 29)
    shifts = np.array(
        [-100.0, -30.0, -10.0, -3.0, -1.0, -0.3, 0.0, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]
    )

    scale_ln = np.array([max_change(layer_norm, x, a * x) for a in scales])
    scale_rms = np.array([max_change(rms_norm, x, a * x) for a in scales])
    scale_rms_same = np.array([max_change(rms_norm_same_eps, x, a * x) for a in scales])
    rms_eps = float(np.finfo(np.float64).eps)  # RMSNorm's default eps for float64
    eps_ln = np.array([eps_change(x, a, True, LN_EPS) for a in scales])
    eps_rms = np.array([eps_change(x, a, False, rms_eps) for a in scales])
    explained_ln = float(np.abs(scale_ln - eps_ln).max())
    explained_rms = float(np.abs(scale_rms - eps_rms).max())
    shift_ln = np.array([max_change(layer_norm, x, x + c) for c in shifts])
    shift_rms = np.array([max_change(rms_norm, x, x + c) for c in shifts])
    # Offsets: the mean of each output row, and what "keeps the offset" predicts for RMSNorm.
    mean_ln = np.array([layer_norm(x + c).mean(-1).mean() for c in shifts])
    mean_rms = np.array([rms_norm(x + c).mean(-1).mean() for c in shifts])
    predicted = np.array(
        [((x + c).mean(-1) / np.sqrt(((x + c) ** 2).mean(-1))).mean() for c in shifts]
    )
    # Direction: cosine of each output row with its input row.
    cos_ln = np.array([row_cosine(layer_norm(x + c), x + c).min() for c in shifts])
    cos_rms = np.array([row_cosine(rms_norm(x + c), x + c).min() for c in shifts])
    centered = row_cosine(layer_norm(x + 3.0), x - x.mean(-1, keepdims=True)).min()

    big = scales >= 1.0  # var(a x) >= a^2 * 0.5 or so: 5e4 times eps and more
    c3 = int(np.flatnonzero(shifts == 3.0)[0])
    result = LabResult(NAME, CLAIM, data={
        "scales": scales, "shifts": shifts, "scale_ln": scale_ln, "scale_rms": scale_rms,
        "scale_rms_same_eps": scale_rms_same,
        "shift_ln": shift_ln, "shift_rms": shift_rms, "mean_ln": mean_ln, "mean_rms": mean_rms,
        "cos_ln": cos_ln, "cos_rms": cos_rms,
    })  # fmt: skip
    breaks = scales[scale_ln > 1e-3]
    result.headline = [
        f"largest output change under scaling by 1..1000: LayerNorm {scale_ln[big].max():.1e}, "
        f"RMSNorm {scale_rms[big].max():.1e}; at every scale (1e-4..1000) the change is the "
        f"one eps causes, to {max(explained_ln, explained_rms):.0e}",
        f"at the same eps (1e-5) RMSNorm changes by {scale_rms_same[big].max():.1e} for scales "
        f"1..1000: the ten orders of magnitude above come from its smaller default eps "
        f"({rms_eps:.1e}), not from the formula",
        f"under shifting by -100..100: LayerNorm {shift_ln.max():.1e}, RMSNorm "
        f"{shift_rms.max():.2f}",
        f"output mean after a shift of +3: LayerNorm {mean_ln[c3]:.1e}, RMSNorm "
        f"{mean_rms[c3]:.3f} (predicted {predicted[c3]:.3f})",
        f"lowest cosine(output, input) over all shifts: RMSNorm {cos_rms.min():.12f}, "
        f"LayerNorm {cos_ln.min():.3f}",
    ]
    if breaks.size:
        result.notes.append(
            f"LayerNorm's output changes by more than 1e-3 at scales of {breaks.max():.2g} and "
            f"below: there var(a x), about a^2, is no longer large next to eps = {LN_EPS:g}."
        )
    result.check(
        "LayerNorm: unchanged when the input is scaled (up to eps)",
        scale_ln[big].max() <= 1e-4 and explained_ln <= 1e-9,
        f"largest change {scale_ln[big].max():.1e} for scales 1..1000 (needs <= 1e-4); at "
        f"smaller scales it grows exactly as eps predicts (to {explained_ln:.0e}, needs <= 1e-9)",
    )
    result.check(
        "LayerNorm: unchanged when the input is shifted",
        shift_ln.max() <= 1e-8,
        f"largest change {shift_ln.max():.1e} for shifts -100..100 (needs <= 1e-8)",
    )
    result.check(
        "RMSNorm: unchanged when the input is scaled (up to eps)",
        scale_rms[scales >= 1e-2].max() <= 1e-10 and explained_rms <= 1e-9,
        f"largest change {scale_rms[scales >= 1e-2].max():.1e} for scales 0.01..1000 (needs "
        f"<= 1e-10); its eps is {rms_eps:.1e}, and the change matches it to {explained_rms:.0e}",
    )
    result.check(
        "RMSNorm: keeps a shared offset",
        np.abs(mean_rms - predicted).max() <= 1e-9 and abs(mean_rms[c3]) >= 0.5
        and np.abs(mean_ln).max() <= 1e-9,
        f"output mean matches mean(x + c) / rms(x + c) to {np.abs(mean_rms - predicted).max():.0e}"
        f" and is {mean_rms[c3]:.3f} at c = 3 (needs >= 0.5); LayerNorm's output mean stays "
        f"at {np.abs(mean_ln).max():.0e}",
    )  # fmt: skip
    result.check(
        "RMSNorm: keeps the input's direction",
        cos_rms.min() >= 1 - 1e-12 and cos_ln.min() < 0.99 and centered >= 1 - 1e-12,
        f"lowest cosine with the input {cos_rms.min():.15f} (needs >= 1 - 1e-12); LayerNorm's "
        f"{cos_ln.min():.3f}: it keeps the direction of x - mean(x) instead "
        f"(cosine {centered:.12f})",
    )

    columns = ["transform", "amount", "layernorm_max_change", "rmsnorm_max_change",
               "layernorm_output_mean", "rmsnorm_output_mean", "layernorm_min_cosine",
               "rmsnorm_min_cosine"]  # fmt: skip
    rows = [["scale", float(a), float(ln), float(rms), None, None, None, None]
            for a, ln, rms in zip(scales, scale_ln, scale_rms)]  # fmt: skip
    rows += [
        ["shift", float(c), float(shift_ln[i]), float(shift_rms[i]), float(mean_ln[i]),
         float(mean_rms[i]), float(cos_ln[i]), float(cos_rms[i])]
        for i, c in enumerate(shifts)
    ]  # fmt: skip
    result.files.append(write_csv(folder / f"{NAME}.csv", columns, rows))
    _plot(result, folder, result.data)
    return result


def _plot(result, folder, d) -> None:
    fig, axes = new_figure(result, 1, 3, width=4.3)
    if fig is None:
        return
    ax_scale, ax_mean, ax_cos = axes
    tiny = 1e-17  # exact zeros on a log axis
    panels = [(ax_scale, "scales", "scale", tiny), (ax_mean, "shifts", "mean", 0.0),
              (ax_cos, "shifts", "cos", 0.0)]  # fmt: skip
    for ax, x_key, prefix, offset in panels:
        for label, suffix, color, marker in (("LayerNorm, eps 1e-5", "ln", "#2563eb", "o"),
                                             ("RMSNorm, eps 2.2e-16", "rms", "#dc2626", "s"),
                                             ("RMSNorm, eps 1e-5", "rms_same_eps", "#f59e0b",
                                              "^")):  # fmt: skip
            if f"{prefix}_{suffix}" not in d:
                continue
            y = d[f"{prefix}_{suffix}"] + offset
            ax.plot(d[x_key], y, f"{marker}-", color=color, markersize=4,
                    label=label if prefix == "scale" else label.split(",")[0])  # fmt: skip
    ax_scale.set_xscale("log")
    ax_scale.set_yscale("log")
    ax_scale.axvline(np.sqrt(LN_EPS), color="gray", linestyle=":", label="a^2 = LayerNorm eps")
    ax_scale.set_xlabel("scale a (input a x)")
    ax_scale.set_ylabel("largest change of the output")
    ax_scale.set_title("scaling (each at its eps)")
    ax_mean.set_xscale("symlog", linthresh=1.0)
    ax_mean.set_xlabel("shift c (input x + c)")
    ax_mean.set_ylabel("mean of the output")
    ax_mean.set_title("shifting: is the offset kept?")
    ax_cos.set_xscale("symlog", linthresh=1.0)
    ax_cos.set_xlabel("shift c (input x + c)")
    ax_cos.set_ylabel("lowest cosine(output, input)")
    ax_cos.set_title("direction")
    # legends where the curves are not: above the flat tails, below the cosine's peak
    for ax, where in ((ax_scale, "upper right"), (ax_mean, "upper left"), (ax_cos, "lower center")):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc=where)
    fig.suptitle("invariance of LayerNorm and RMSNorm (float64, 64 features)")
    result.files.append(save_figure(fig, folder / f"{NAME}.png"))

"""norm-pitfalls: five ways to use a norm layer wrongly, each measured next to the right way.

1. ``nn.LayerNorm(C)`` on an image batch ``[N, C, H, W]`` normalizes over the last axis,
   W, not over the channels, and it runs without complaint whenever W == C. The input
   here has a brightness that varies along W; normalizing each pixel's C channels (the
   right way: move C last, ``x.permute(0, 2, 3, 1)``, normalize, move it back) gives
   every pixel unit RMS across its channels; the wrong way keeps the brightness.
2. ``nn.BatchNorm1d(E)`` on a sequence batch ``[N, L, E]``: BatchNorm1d reads dim 1 as
   the channels, so it normalizes every *position* over the batch and the features,
   silently when L == E. The right way transposes to ``[N, E, L]`` first. The input's
   features have different means; only the right way removes them.
3. Epsilon in half precision. ``float16`` has no number near 1e-12 (it rounds to 0), so
   a hand-written norm computed in float16 with ``eps = 1e-12`` (some pretrained
   models' default) divides 0 by 0 on a constant row (a padding row) and blows up on a
   nearly constant one. Measured against float64 on rows ``c + s z`` for noise scales
   ``s`` from 1e-6 to 1; the right way is an eps float16 can hold (1e-5) with the
   statistics in float32, as minigrad's ``F.layer_norm`` does for float16 inputs.
4. A frozen BatchNorm: ``requires_grad_(False)`` stops its weight and bias from
   training, but in training mode it still updates its running statistics from every
   batch it sees. ``.eval()`` on that layer (after ``model.train()``) fixes it.
5. Forgetting ``model.eval()``: a small model with BatchNorm and dropout predicts a test
   batch in training mode: the predictions change from one call to the next (dropout)
   and depend on the batch (batch statistics). In eval mode two calls agree exactly.
"""

from __future__ import annotations

import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.lab.output import new_figure, output_folder, save_figure, write_csv
from minigrad.lab.result import LabResult
from minigrad.lab.stacks import seeded

NAME = "norm-pitfalls"
TITLE = "LayerNorm on NCHW, BatchNorm1d on NLE, eps in float16, frozen BatchNorm, no eval()"
CLAIM = (
    "Five mistakes give wrong numbers without an error: LayerNorm(C) on [N, C, H, W] "
    "normalizes over W when W == C; BatchNorm1d(E) on [N, L, E] normalizes over the wrong "
    "axis when L == E; eps = 1e-12 is 0 in float16 and a nearly constant row blows up; "
    "a BatchNorm with frozen parameters still moves its running statistics in training "
    "mode; forgetting model.eval() makes predictions random and batch-dependent. The "
    "right way fixes each one."
)
FINDING = (
    "supported (5 of 5 at seed 0; the same at seeds 0-3, quick): each mistake runs "
    "silently and gives wrong numbers; each right way fixes it."
)

C = 8  # channels / features; the sizes that match make the mistakes silent


@mg.no_grad()
def layernorm_on_images(rng) -> dict:
    """Per-pixel RMS across channels after the wrong and the right LayerNorm(C)."""
    n, h, w = 4, 6, C
    brightness = np.linspace(1.0, 10.0, w)  # grows along W
    x = rng.standard_normal((n, C, h, w)) * brightness  # (N, C, H, W) float64
    ln = nn.LayerNorm(C).double()
    wrong = ln(mg.tensor(x)).numpy()  # normalizes over W: (N, C, H, W)
    right = ln(mg.tensor(x).permute(0, 2, 3, 1)).permute(0, 3, 1, 2).numpy()
    try:
        nn.LayerNorm(C)(mg.tensor(np.zeros((n, C, h, w + 1))))
        error = ""
    except ValueError as e:
        error = str(e)
    return {
        "brightness": brightness,
        "wrong_rms": np.sqrt((wrong**2).mean(axis=(0, 1, 2))),  # per W position, over C
        "right_rms": np.sqrt((right**2).mean(axis=(0, 1, 2))),
        "input_rms": np.sqrt((x**2).mean(axis=(0, 1, 2))),
        "error_when_sizes_differ": error,
    }


@mg.no_grad()
def batchnorm_on_sequences(rng) -> dict:
    """Per-feature mean of the output of the wrong and the right BatchNorm1d(E)."""
    n, length = 16, C  # L == E: the wrong call runs
    offsets = np.linspace(-4.0, 4.0, C)  # each feature has its own mean
    x = rng.standard_normal((n, length, C)) + offsets  # (N, L, E)
    bn = nn.BatchNorm1d(C).double()
    wrong = bn(mg.tensor(x)).numpy()  # dim 1 (L) taken for the channels
    right = bn(mg.tensor(x).transpose(1, 2)).transpose(1, 2).numpy()  # (N, E, L) and back
    try:
        bn(mg.tensor(np.zeros((n, length + 2, C))))
        error = ""
    except ValueError as e:
        error = str(e)
    return {
        "offsets": offsets,
        "wrong_mean": wrong.mean(axis=(0, 1)),  # per feature, over N and L
        "right_mean": right.mean(axis=(0, 1)),
        "right_var": right.var(axis=(0, 1)),
        "error_when_sizes_differ": error,
    }


def _layer_norm_float16(x: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm written by hand with every step in float16 (what a half-precision kernel
    that does not widen its statistics computes)."""
    x = x.astype(np.float16)
    mean = x.mean(-1, keepdims=True, dtype=np.float16)
    d = x - mean
    var = (d * d).mean(-1, keepdims=True, dtype=np.float16)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return d / np.sqrt(var + np.float16(eps))


def eps_in_half(rng, noise_scales) -> dict:
    """Largest error against float64 on rows ``c + s z`` (64 features) for each ``s``, and
    on constant rows, for float16 with eps 1e-12, and for the right way."""
    z = rng.standard_normal((64, 64))
    errors = {"float16, eps 1e-12": [], "float16, eps 1e-5": [], "F.layer_norm, eps 1e-5": []}
    for s in list(noise_scales) + [0.0]:
        x = (1.0 + s * z).astype(np.float16).astype(np.float64)  # representable inputs
        for label, eps in (("float16, eps 1e-12", 1e-12), ("float16, eps 1e-5", 1e-5),
                           ("F.layer_norm, eps 1e-5", 1e-5)):  # fmt: skip
            ref = F.layer_norm(mg.tensor(x), (64,), eps=eps).numpy()
            if label.startswith("F."):
                out = F.layer_norm(mg.tensor(x.astype(np.float16)), (64,), eps=eps).numpy()
            else:
                out = _layer_norm_float16(x, eps)
            out = out.astype(np.float64)
            err = np.abs(out - ref).max() if np.isfinite(out).all() else np.inf
            errors[label].append(float(err))
    return {
        "noise_scales": np.asarray(noise_scales),
        "errors": {k: np.array(v[:-1]) for k, v in errors.items()},
        "constant_row": {k: v[-1] for k, v in errors.items()},
        "eps_1e-12_in_float16": float(np.float16(1e-12)),
    }


@mg.no_grad()
def frozen_batchnorm(rng, batches: int = 40, shift: float = 3.0) -> dict:
    """Running mean of a frozen BatchNorm fed shifted batches in train mode, and after
    ``.eval()`` on that layer."""
    means = {}
    for mode in ("frozen, train mode", "frozen, .eval()"):
        bn = nn.BatchNorm1d(C).double()
        bn.requires_grad_(False)
        if mode.endswith(".eval()"):
            bn.eval()
        track = [float(bn.running_mean.numpy().mean())]
        for _ in range(batches):
            bn(mg.tensor(shift + rng.standard_normal((32, C))))
            track.append(float(bn.running_mean.numpy().mean()))
        means[mode] = np.array(track)
    return {"running_mean": means, "shift": shift,
            "requires_grad": bool(bn.weight.requires_grad)}  # fmt: skip


@mg.no_grad()
def forgotten_eval(rng, seed: int) -> dict:
    """Predictions of a model with BatchNorm and dropout on one test batch: two calls in
    training mode and two in eval mode."""
    with seeded(seed):
        model = nn.Sequential(nn.Linear(C, 32), nn.BatchNorm1d(32), nn.ReLU(),
                              nn.Dropout(0.3), nn.Linear(32, 1)).double()  # fmt: skip
        for _ in range(100):  # let the running statistics settle on training data
            model(mg.tensor(rng.standard_normal((64, C))))
        test = mg.tensor(rng.standard_normal((16, C)))
        train_a, train_b = model(test).numpy()[:, 0], model(test).numpy()[:, 0]
        model.eval()
        eval_a, eval_b = model(test).numpy()[:, 0], model(test).numpy()[:, 0]
        alone = model(test[:4]).numpy()[:, 0]  # the same examples in a smaller batch
    return {
        "train_a": train_a, "train_b": train_b, "eval_a": eval_a, "eval_b": eval_b,
        "train_calls_differ": float(np.abs(train_a - train_b).max()),
        "eval_calls_differ": float(np.abs(eval_a - eval_b).max()),
        "eval_batch_dependence": float(np.abs(alone - eval_a[:4]).max()),
        "train_vs_eval": float(np.abs(train_a - eval_a).mean()),
    }  # fmt: skip


def run(out=None, seed: int = 0, quick: bool = False, progress=None) -> LabResult:
    """Measure the five pitfalls and check the claim (see the module docstring).

    Takes about a second either way; ``quick`` uses fewer noise scales.
    """
    folder = output_folder(out, NAME)
    rng = np.random.default_rng([seed, 29])
    noise_scales = np.logspace(-6, 0, 7 if quick else 19)
    if progress:
        progress("five pitfalls, each the wrong way and the right way")
    img = layernorm_on_images(rng)
    seq = batchnorm_on_sequences(rng)
    half = eps_in_half(rng, noise_scales)
    frozen = frozen_batchnorm(rng)
    forgot = forgotten_eval(rng, seed)
    result = LabResult(NAME, CLAIM, data={"images": img, "sequences": seq, "half": half,
                                          "frozen": frozen, "forgot": forgot})  # fmt: skip

    spread_wrong = img["wrong_rms"].max() / img["wrong_rms"].min()
    spread_right = img["right_rms"].max() / img["right_rms"].min()
    seq_wrong = float(np.abs(seq["wrong_mean"]).max())
    seq_right = float(np.abs(seq["right_mean"]).max())
    errs, const = half["errors"], half["constant_row"]
    small = half["noise_scales"] <= 1e-3
    fm = frozen["running_mean"]
    drift_train = fm["frozen, train mode"][-1] - fm["frozen, train mode"][0]
    drift_eval = fm["frozen, .eval()"][-1] - fm["frozen, .eval()"][0]

    result.headline = [
        f"LayerNorm(C) on [N, C, H, W] with W == C: per-pixel RMS across channels varies "
        f"x{spread_wrong:.2f} along W (the input's brightness x{img['brightness'][-1]:.0f}); "
        f"permuted to channels-last: x{spread_right:.4f}",
        f"BatchNorm1d(E) on [N, L, E] with L == E: features keep means up to "
        f"{seq_wrong:.2f} (input offsets up to {np.abs(seq['offsets']).max():.0f}); "
        f"transposed: {seq_right:.0e}",
        f"float16(1e-12) = {half['eps_1e-12_in_float16']:g}: on a constant row the float16 "
        f"norm with eps 1e-12 gives {_nan_or(const['float16, eps 1e-12'])}; "
        "at noise 1e-3 and below its largest error is "
        f"{errs['float16, eps 1e-12'][small].max():.2g}, "
        f"with eps 1e-5 {errs['float16, eps 1e-5'][small].max():.2g}, F.layer_norm on float16 "
        f"{errs['F.layer_norm, eps 1e-5'].max():.2g} at every scale",
        f"frozen BatchNorm, train mode: running mean moved {drift_train:+.2f} toward the "
        f"data's {frozen['shift']:g} in {len(fm['frozen, train mode']) - 1} batches; after "
        f".eval() on the layer: {drift_eval:+.2f}",
        f"model.eval() forgotten: two calls on the same test batch differ by up to "
        f"{forgot['train_calls_differ']:.3f}, and by {forgot['train_vs_eval']:.3f} on average "
        f"from eval mode; in eval mode the calls differ by {forgot['eval_calls_differ']:.0e} "
        f"and a smaller batch changes nothing ({forgot['eval_batch_dependence']:.0e})",
    ]  # fmt: skip
    result.check(
        "LayerNorm(C) on [N, C, H, W] runs when W == C and normalizes the wrong axis",
        spread_wrong >= 2.0 and spread_right <= 1.001 and bool(img["error_when_sizes_differ"]),
        f"per-pixel RMS spread x{spread_wrong:.2f} (needs >= 2) against x{spread_right:.4f} "
        f"channels-last (needs <= 1.001); when W != C it raises: "
        f"{img['error_when_sizes_differ'][:60]!r}...",
    )
    result.check(
        "BatchNorm1d(E) on [N, L, E] runs when L == E and normalizes the wrong axis",
        seq_wrong >= 1.0 and seq_right <= 1e-9 and bool(seq["error_when_sizes_differ"]),
        f"largest per-feature mean {seq_wrong:.2f} (needs >= 1) against {seq_right:.0e} "
        "transposed (needs <= 1e-9); when L != E it raises",
    )
    result.check(
        "eps = 1e-12 is 0 in float16 and a nearly constant row blows up; a representable "
        "eps with float32 statistics does not",
        half["eps_1e-12_in_float16"] == 0.0 and not np.isfinite(const["float16, eps 1e-12"])
        and errs["float16, eps 1e-12"][small].max() >= 1.0
        and errs["F.layer_norm, eps 1e-5"].max() <= 0.01,
        f"constant row: {const['float16, eps 1e-12']} (needs NaN/inf); largest error at noise "
        f"<= 1e-3 {errs['float16, eps 1e-12'][small].max():.2g} (needs >= 1); F.layer_norm on "
        f"float16, eps 1e-5: {errs['F.layer_norm, eps 1e-5'].max():.2g} (needs <= 0.01)",
    )  # fmt: skip
    result.check(
        "a frozen BatchNorm still moves its running statistics in train mode; .eval() on "
        "the layer stops it",
        not frozen["requires_grad"] and drift_train >= 0.9 * frozen["shift"]
        and drift_eval == 0.0,
        f"running mean moved {drift_train:+.2f} (needs >= 0.9 x {frozen['shift']:g}) with "
        f"requires_grad False; {drift_eval:+.2f} after .eval() (needs 0)",
    )  # fmt: skip
    result.check(
        "forgetting model.eval() makes predictions change between calls; eval mode is "
        "deterministic and batch-independent",
        forgot["train_calls_differ"] >= 0.05 and forgot["eval_calls_differ"] == 0.0
        and forgot["eval_batch_dependence"] <= 1e-12,
        f"train-mode calls differ by {forgot['train_calls_differ']:.3f} (needs >= 0.05); "
        f"eval-mode by {forgot['eval_calls_differ']:.0e} (needs 0), batch dependence "
        f"{forgot['eval_batch_dependence']:.0e} (needs <= 1e-12)",
    )  # fmt: skip

    columns = ["pitfall", "x", "wrong", "right"]
    rows = [
        ["layernorm NCHW: per-pixel RMS", float(b), float(wv), float(rv)]
        for b, wv, rv in zip(img["brightness"], img["wrong_rms"], img["right_rms"])
    ]
    rows += [
        ["batchnorm1d NLE: feature mean", float(o), float(wv), float(rv)]
        for o, wv, rv in zip(seq["offsets"], seq["wrong_mean"], seq["right_mean"])
    ]
    rows += [
        ["float16 eps: max error", float(s), float(a), float(b)]
        for s, a, b in zip(
            half["noise_scales"], errs["float16, eps 1e-12"], errs["F.layer_norm, eps 1e-5"]
        )
    ]
    rows += [
        ["frozen batchnorm: running mean", k, float(a), float(b)]
        for k, (a, b) in enumerate(zip(fm["frozen, train mode"], fm["frozen, .eval()"]))
    ]
    rows += [["no eval(): prediction", i, float(a), float(b)]
             for i, (a, b) in enumerate(zip(forgot["train_a"], forgot["eval_a"]))]  # fmt: skip
    result.files.append(write_csv(folder / f"{NAME}.csv", columns, rows))
    _plot(result, folder)
    return result


WRONG, RIGHT = dict(color="#dc2626", marker="o"), dict(color="#2563eb", marker="s")


def _plot(result: LabResult, folder) -> None:
    fig, axes = new_figure(result, 1, 5, width=3.7, height=3.6)
    if fig is None:
        return
    d = result.data
    ax = axes[0]
    img = d["images"]
    pos = np.arange(1, len(img["brightness"]) + 1)
    ax.plot(pos, img["input_rms"], ":", color="gray", label="input")
    ax.plot(pos, img["wrong_rms"], **WRONG, label="LayerNorm(C)(x)")
    ax.plot(pos, img["right_rms"], **RIGHT, label="permute, LayerNorm, permute")
    ax.set_yscale("log")
    ax.set_xlabel("position along W")
    ax.set_ylabel("RMS across the C channels")
    ax.set_title("1. LayerNorm(C) on [N, C, H, W]", fontsize=10)
    ax = axes[1]
    seq = d["sequences"]
    ax.plot(seq["offsets"], seq["wrong_mean"], **WRONG, label="BatchNorm1d(E)(x)")
    ax.plot(seq["offsets"], seq["right_mean"], **RIGHT, label="transpose(1, 2) first")
    ax.set_xlabel("the feature's mean in the input")
    ax.set_ylabel("the feature's mean in the output")
    ax.set_title("2. BatchNorm1d(E) on [N, L, E]", fontsize=10)
    ax = axes[2]
    half = d["half"]
    styles = {"float16, eps 1e-12": WRONG, "float16, eps 1e-5": dict(color="#f59e0b", marker="^"),
              "F.layer_norm, eps 1e-5": RIGHT}  # fmt: skip
    for label, errs in half["errors"].items():
        shown = np.where(np.isfinite(errs), np.maximum(errs, 1e-6), np.nan)
        ax.loglog(half["noise_scales"], shown, **styles[label], label=label)
    bad = half["noise_scales"][~np.isfinite(half["errors"]["float16, eps 1e-12"])]
    if bad.size:
        ax.text(0.03, 0.5, f"eps 1e-12: NaN/inf\nat s <= {bad.max():.0e}\nand on a constant row",
                transform=ax.transAxes, color="#dc2626", fontsize=8)  # fmt: skip
    ax.set_xlabel("noise scale s (rows 1 + s z)")
    ax.set_ylabel("largest error against float64")
    ax.set_title("3. eps in float16", fontsize=10)
    ax = axes[3]
    for label, track in d["frozen"]["running_mean"].items():
        style = WRONG if "train" in label else RIGHT
        ax.plot(track, color=style["color"], label=label)
    ax.axhline(d["frozen"]["shift"], color="gray", linestyle=":", label="the data's mean")
    ax.set_xlabel("batches seen")
    ax.set_ylabel("running mean")
    ax.set_title("4. frozen BatchNorm", fontsize=10)
    ax = axes[4]
    f = d["forgot"]
    ax.plot(f["eval_a"], f["train_a"], "o", color="#dc2626", label="train mode, call 1")
    ax.plot(f["eval_a"], f["train_b"], "x", color="#dc2626", label="train mode, call 2")
    ax.plot(f["eval_a"], f["eval_b"], "s", color="#2563eb", markersize=4, label="eval mode")
    ax.set_xlabel("prediction in eval mode")
    ax.set_ylabel("prediction")
    ax.set_title("5. forgetting model.eval()", fontsize=10)
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("norm pitfalls: the wrong way (red) next to the right way (blue)")
    result.files.append(save_figure(fig, folder / f"{NAME}.png"))


def _nan_or(value: float):
    """``"NaN"`` for a non-finite number, the number itself otherwise (for headlines)."""
    return "NaN" if not np.isfinite(value) else value

"""The backprop-ninja exercise: a small model written as a chain of named tensors, and a
table that compares gradients written by hand with autograd's, tensor by tensor.

The model (docs/backprop-ninja.md): the previous ``CONTEXT`` tokens are looked up in an
embedding table, concatenated, and go through a linear layer, a BatchNorm written out
step by step in the by-hand pages' names (``mean``, ``xmu``, ``var``, ``rstd``,
``xhat``), tanh, a second linear layer, and a cross-entropy written out step by step.
``forward`` returns every intermediate by name, with autograd's gradient kept on each;
the learner computes the same gradients by hand and ``compare`` tells, per tensor,
whether they are exact (equal to minigrad's own autograd to the last bit), approximate
(``np.allclose``), wrong, or of the wrong shape, with the largest difference.
Everything is float64. ``forward(..., norm="layer")`` is the same model with a LayerNorm
instead (the page's first exercise).

The payoff: ``load_names`` reads a real corpus shipped with the lab (5,163 first names
from the 1990 U.S. Census, public domain: ``minigrad/lab/data/README.md``) and
``make_dataset`` turns names into (context, next character) examples, so the same model
can be trained with a backward pass written by hand and sampled from.

Example::

    >>> batch = make_batch(seed=0)
    >>> params = make_params(seed=0)
    >>> tensors, loss = forward(params, batch)
    >>> loss.backward()
    >>> rows = compare({"logits": tensors["logits"].grad.numpy()}, tensors)
    >>> rows[0].verdict
    'exact'
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass

import numpy as np

import minigrad as mg

__all__ = [
    "Row",
    "compare",
    "format_table",
    "forward",
    "load_names",
    "make_batch",
    "make_dataset",
    "make_params",
]

VOCAB = 12  # tokens 0..11
CONTEXT = 3  # tokens the model reads
EMBED = 4  # embedding width
HIDDEN = 16  # hidden width (BatchNorm channels)
BATCH = 32
EPS = 1e-5
RTOL, ATOL = 1e-5, 1e-8  # "approximate": np.allclose with these
NAMES = pathlib.Path(__file__).resolve().parent / "data" / "census-1990-first-names.txt"


def make_batch(seed: int = 0, n: int = BATCH) -> dict[str, np.ndarray]:
    """``{"x": (n, CONTEXT) token ids, "y": (n,) next token}``: a toy sequence task (the
    next token is the sum of the context mod ``VOCAB``, with some noise), int64."""
    rng = np.random.default_rng([seed, 27])
    x = rng.integers(0, VOCAB, size=(n, CONTEXT))
    y = (x.sum(1) + (rng.random(n) < 0.2) * rng.integers(1, VOCAB, size=n)) % VOCAB
    return {"x": x, "y": y}


def make_params(
    seed: int = 0,
    vocab: int = VOCAB,
    context: int = CONTEXT,
    embed: int = EMBED,
    hidden: int = HIDDEN,
) -> dict[str, mg.Tensor]:
    """The model's parameters, float64, requiring gradients. The scales are chosen so
    that every gradient is far from zero at initialization (no dead tanh units, a
    non-trivial BatchNorm weight and bias). The sizes default to the exercise's; the
    payoff trains a wider one on names (``vocab=27``)."""
    rng = np.random.default_rng([seed, 28])
    fan_in = context * embed
    values = {
        "C": rng.standard_normal((vocab, embed)),
        "W1": rng.standard_normal((fan_in, hidden)) / np.sqrt(fan_in),
        "b1": 0.1 * rng.standard_normal(hidden),
        "gamma": 1.0 + 0.1 * rng.standard_normal(hidden),
        "beta": 0.1 * rng.standard_normal(hidden),
        "W2": 0.5 * rng.standard_normal((hidden, vocab)) / np.sqrt(hidden),
        "b2": 0.1 * rng.standard_normal(vocab),
    }
    return {k: mg.tensor(v, dtype=mg.float64, requires_grad=True) for k, v in values.items()}


def forward(
    params: dict[str, mg.Tensor], batch: dict[str, np.ndarray], norm: str = "batch"
) -> tuple[dict[str, mg.Tensor], mg.Tensor]:
    """The model as a chain of named steps; returns ``(tensors, loss)``.

    ``tensors`` holds every intermediate and every parameter by name, each keeping its
    gradient after ``loss.backward()`` (``retain_grad``; under ``mg.no_grad()`` nothing
    is recorded, and the values alone are there). ``norm="layer"`` takes the statistics
    over the hidden units of each example instead (``sum(1) / H``: ``mean``, ``var`` and
    ``rstd`` are ``(N, 1)``), a LayerNorm. Shapes, with N the batch, T the context, E the
    embedding width, H the hidden width and V the vocabulary::

        emb      = C[x]                        (N, T, E)
        embcat   = emb.reshape(N, T * E)       (N, T*E)
        hpre     = embcat @ W1 + b1            (N, H)
        mean     = hpre.sum(0) / N             (1, H)    BatchNorm, training mode
        xmu      = hpre - mean                 (N, H)
        xmu2     = xmu * xmu                   (N, H)
        var      = xmu2.sum(0) / N             (1, H)    biased, as in the step
        rstd     = (var + eps) ** -0.5         (1, H)
        xhat     = xmu * rstd                  (N, H)
        hact     = gamma * xhat + beta         (N, H)
        h        = tanh(hact)                  (N, H)
        logits   = h @ W2 + b2                 (N, V)
        lmax     = max over V of logits        (N, 1)    a constant: no gradient
        shifted  = logits - lmax               (N, V)
        counts   = exp(shifted)                (N, V)
        csum     = counts.sum(1)               (N, 1)
        logp     = shifted - log(csum)         (N, V)
        loss     = -mean of logp[i, y_i]       ()
    """
    if norm not in ("batch", "layer"):
        raise ValueError(f"norm must be 'batch' or 'layer', got {norm!r}")
    x, y = batch["x"], batch["y"]
    n = x.shape[0]
    t = dict(params)
    t["emb"] = t["C"][mg.tensor(x)]
    t["embcat"] = t["emb"].reshape(n, -1)
    t["hpre"] = t["embcat"] @ t["W1"] + t["b1"]
    axis = 0 if norm == "batch" else 1  # over the batch, or over the hidden units
    count = t["hpre"].shape[axis]
    t["mean"] = t["hpre"].sum(axis, keepdim=True) * (1.0 / count)
    t["xmu"] = t["hpre"] - t["mean"]
    t["xmu2"] = t["xmu"] * t["xmu"]
    t["var"] = t["xmu2"].sum(axis, keepdim=True) * (1.0 / count)
    t["rstd"] = (t["var"] + EPS) ** -0.5
    t["xhat"] = t["xmu"] * t["rstd"]
    t["hact"] = t["gamma"] * t["xhat"] + t["beta"]
    t["h"] = t["hact"].tanh()
    t["logits"] = t["h"] @ t["W2"] + t["b2"]
    lmax = mg.tensor(t["logits"].numpy().max(1, keepdims=True))  # a constant
    t["shifted"] = t["logits"] - lmax
    t["counts"] = t["shifted"].exp()
    t["csum"] = t["counts"].sum(1, keepdim=True)
    t["logp"] = t["shifted"] - t["csum"].log()
    loss = -t["logp"][mg.tensor(np.arange(n)), mg.tensor(y)].mean()
    for name, tensor in t.items():
        if name not in params and tensor.requires_grad:
            tensor.retain_grad()
    return t, loss


@dataclass(frozen=True)
class Row:
    """One line of the comparison: a tensor's name, the verdict, the largest difference,
    the largest true gradient (``scale``) and, for a shape mismatch, both shapes."""

    name: str
    verdict: str  # "exact", "approximate", "wrong", "wrong shape" or "missing"
    max_diff: float
    scale: float = float("nan")  # max |autograd's gradient|
    shapes: tuple = ()  # (yours, autograd's) when the verdict is "wrong shape"

    @property
    def near_zero(self) -> bool:
        """The true gradient is zero up to rounding (below ``ATOL``): any near-zero answer,
        right or wrong, is then "approximate"."""
        return self.scale < ATOL


def compare(by_hand: dict[str, np.ndarray], tensors: dict[str, mg.Tensor]) -> list[Row]:
    """Compare hand-written gradients with minigrad's autograd, one row per entry of
    ``by_hand``, in its order (the order you computed them: from the loss backwards).

    ``by_hand`` maps a name to your gradient of the loss with respect to that tensor;
    ``tensors`` is ``forward``'s dictionary after ``loss.backward()``. A gradient is
    *exact* when it equals minigrad's autograd to the last bit, *approximate* when
    ``np.allclose`` (rtol ``RTOL``, atol ``ATOL``) holds, *wrong* otherwise, *wrong
    shape* when its shape is not the tensor's, *missing* when autograd has no gradient
    there; names that are not tensors of the model raise ``KeyError``.

    "Exact" is relative to minigrad: another library (PyTorch) adds the same terms in
    another order, so there a correct gradient is usually approximate (about 1e-17 off).
    """
    unknown = set(by_hand) - set(tensors)
    if unknown:
        raise KeyError(f"not a tensor of the model: {', '.join(sorted(unknown))}")
    rows = []
    for name, grad in by_hand.items():
        tensor = tensors[name]
        mine = np.asarray(grad, dtype=np.float64)
        if tensor.grad is None:
            rows.append(Row(name, "missing", float("nan")))
            continue
        ref = tensor.grad.numpy()
        scale = float(np.abs(ref).max()) if ref.size else 0.0
        if mine.shape != ref.shape:
            rows.append(Row(name, "wrong shape", float("nan"), scale, (mine.shape, ref.shape)))
            continue
        diff = float(np.abs(mine - ref).max()) if ref.size else 0.0
        if np.array_equal(mine, ref):
            verdict = "exact"
        elif np.allclose(mine, ref, rtol=RTOL, atol=ATOL):
            verdict = "approximate"
        else:
            verdict = "wrong"
        rows.append(Row(name, verdict, diff, scale))
    return rows


LEGEND = (
    "exact: bit-equal to minigrad's own autograd; approx: np.allclose (rtol 1e-5, atol 1e-8).\n"
    "Checked against PyTorch instead, a correct gradient usually reads approx (same sum,\n"
    "another order, about 1e-17 off); only a 'no' under approx means a mistake."
)


def _shape(shape: tuple) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def format_table(rows: list[Row], legend: bool = True) -> str:
    """The rows as a text table: name, exact, approximate, max difference, and a note
    for a wrong shape or a true gradient that is zero up to rounding; then, with
    ``legend``, what "exact" and "approx" compare against."""
    lines = [f"{'tensor':<8} {'exact':<6} {'approx':<7} max diff"]
    for r in rows:
        exact = "yes" if r.verdict == "exact" else "no"
        approx = "yes" if r.verdict in ("exact", "approximate") else "no"
        if r.verdict == "wrong shape":
            mine, ref = r.shapes
            lines.append(f"{r.name:<8} {exact:<6} {approx:<7} wrong shape: yours "
                         f"{_shape(mine)}, autograd's {_shape(ref)}")  # fmt: skip
            continue
        line = f"{r.name:<8} {exact:<6} {approx:<7} {r.max_diff:.1e}"
        if r.near_zero:
            line += f"  true gradient ~0 ({r.scale:.0e}): approx says little"
        lines.append(line)
    if legend:
        lines.append(LEGEND)
    return "\n".join(lines)


def load_names(path=None) -> list[str]:
    """The names of ``census-1990-first-names.txt`` (or of ``path``: one lower-case word
    a line), in the file's order."""
    text = pathlib.Path(path or NAMES).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip()]


def make_dataset(names: list[str], context: int = CONTEXT) -> dict[str, np.ndarray]:
    """Every (previous ``context`` characters, next character) pair of every name, with
    ``"."`` (token 0) both as the padding before a name and as its end: ``"ann"`` gives
    ``... -> a``, ``..a -> n``, ``.an -> n``, ``ann -> .``. Returns ``{"x": (n, context),
    "y": (n,), "itos": the characters by token}``; letters are tokens 1 to 26."""
    itos = ["."] + sorted(set("".join(names)))
    stoi = {c: i for i, c in enumerate(itos)}
    xs, ys = [], []
    for name in names:
        window = [0] * context
        for ch in name + ".":
            xs.append(window)
            ys.append(stoi[ch])
            window = window[1:] + [stoi[ch]]
    return {"x": np.array(xs, dtype=np.int64), "y": np.array(ys, dtype=np.int64),
            "itos": itos}  # fmt: skip

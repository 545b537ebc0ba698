"""The backprop-ninja exercise: a small model written as a chain of named tensors, and a
table that compares gradients written by hand with autograd's, tensor by tensor.

The model (docs/backprop-ninja.md): the previous ``CONTEXT`` tokens are looked up in an
embedding table, concatenated, and go through a linear layer, a BatchNorm written out
step by step in the by-hand pages' names (``mean``, ``xmu``, ``var``, ``rstd``,
``xhat``), tanh, a second linear layer, and a cross-entropy written out step by step.
``forward`` returns every intermediate by name, with autograd's gradient kept on each;
the learner computes the same gradients by hand and ``compare`` tells, per tensor,
whether they are exact (equal to the last bit), approximate (``np.allclose``) or wrong,
with the largest difference. Everything is float64.

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

from dataclasses import dataclass

import numpy as np

import minigrad as mg

__all__ = ["Row", "compare", "format_table", "forward", "make_batch", "make_params"]

VOCAB = 12  # tokens 0..11
CONTEXT = 3  # tokens the model reads
EMBED = 4  # embedding width
HIDDEN = 16  # hidden width (BatchNorm channels)
BATCH = 32
EPS = 1e-5


def make_batch(seed: int = 0, n: int = BATCH) -> dict[str, np.ndarray]:
    """``{"x": (n, CONTEXT) token ids, "y": (n,) next token}``: a toy sequence task (the
    next token is the sum of the context mod ``VOCAB``, with some noise), int64."""
    rng = np.random.default_rng([seed, 27])
    x = rng.integers(0, VOCAB, size=(n, CONTEXT))
    y = (x.sum(1) + (rng.random(n) < 0.2) * rng.integers(1, VOCAB, size=n)) % VOCAB
    return {"x": x, "y": y}


def make_params(seed: int = 0) -> dict[str, mg.Tensor]:
    """The model's parameters, float64, requiring gradients. The scales are chosen so
    that every gradient is far from zero at initialization (no dead tanh units, a
    non-trivial BatchNorm weight and bias)."""
    rng = np.random.default_rng([seed, 28])
    fan_in = CONTEXT * EMBED
    values = {
        "C": rng.standard_normal((VOCAB, EMBED)),
        "W1": rng.standard_normal((fan_in, HIDDEN)) / np.sqrt(fan_in),
        "b1": 0.1 * rng.standard_normal(HIDDEN),
        "gamma": 1.0 + 0.1 * rng.standard_normal(HIDDEN),
        "beta": 0.1 * rng.standard_normal(HIDDEN),
        "W2": 0.5 * rng.standard_normal((HIDDEN, VOCAB)) / np.sqrt(HIDDEN),
        "b2": 0.1 * rng.standard_normal(VOCAB),
    }
    return {k: mg.tensor(v, dtype=mg.float64, requires_grad=True) for k, v in values.items()}


def forward(
    params: dict[str, mg.Tensor], batch: dict[str, np.ndarray]
) -> tuple[dict[str, mg.Tensor], mg.Tensor]:
    """The model as a chain of named steps; returns ``(tensors, loss)``.

    ``tensors`` holds every intermediate and every parameter by name, each keeping its
    gradient after ``loss.backward()`` (``retain_grad``). Shapes, with N the batch, T the
    context, E the embedding width, H the hidden width and V the vocabulary::

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
    x, y = batch["x"], batch["y"]
    n = x.shape[0]
    t = dict(params)
    t["emb"] = t["C"][mg.tensor(x)]
    t["embcat"] = t["emb"].reshape(n, CONTEXT * EMBED)
    t["hpre"] = t["embcat"] @ t["W1"] + t["b1"]
    t["mean"] = t["hpre"].sum(0, keepdim=True) * (1.0 / n)
    t["xmu"] = t["hpre"] - t["mean"]
    t["xmu2"] = t["xmu"] * t["xmu"]
    t["var"] = t["xmu2"].sum(0, keepdim=True) * (1.0 / n)
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
        if name not in params:
            tensor.retain_grad()
    return t, loss


@dataclass(frozen=True)
class Row:
    """One line of the comparison: a tensor's name, the verdict, the largest difference."""

    name: str
    verdict: str  # "exact", "approximate", "wrong" or "missing"
    max_diff: float


def compare(by_hand: dict[str, np.ndarray], tensors: dict[str, mg.Tensor]) -> list[Row]:
    """Compare hand-written gradients with autograd's, one row per entry of ``by_hand``,
    in its order (the order you computed them: from the loss backwards).

    ``by_hand`` maps a name to your gradient of the loss with respect to that tensor;
    ``tensors`` is ``forward``'s dictionary after ``loss.backward()``. A gradient is
    *exact* when it equals autograd's to the last bit, *approximate* when
    ``np.allclose`` (rtol 1e-5, atol 1e-8) holds, *wrong* otherwise (or when its shape
    differs), *missing* when autograd has no gradient there; names that are not tensors
    of the model raise ``KeyError``.
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
        if mine.shape != ref.shape:
            rows.append(Row(name, "wrong", float("inf")))
            continue
        diff = float(np.abs(mine - ref).max()) if ref.size else 0.0
        if np.array_equal(mine, ref):
            verdict = "exact"
        elif np.allclose(mine, ref, rtol=1e-5, atol=1e-8):
            verdict = "approximate"
        else:
            verdict = "wrong"
        rows.append(Row(name, verdict, diff))
    return rows


def format_table(rows: list[Row]) -> str:
    """The rows as a text table: name, exact, approximate, max difference."""
    lines = [f"{'tensor':<8} {'exact':<6} {'approx':<7} max diff"]
    for r in rows:
        exact = "yes" if r.verdict == "exact" else "no"
        approx = "yes" if r.verdict in ("exact", "approximate") else "no"
        lines.append(f"{r.name:<8} {exact:<6} {approx:<7} {r.max_diff:.1e}")
    return "\n".join(lines)

"""The rest of PyTorch's losses, each a composition of Tensor operations (autograd
differentiates them), with PyTorch's formulas and reductions.

Every loss takes ``reduction='mean' | 'sum' | 'none'``: the per-element (or per-sample)
losses averaged, added, or returned as they are. Formulas below use ``x`` for the input,
``y`` for the target.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad import dtypes
from minigrad.functions.errors import ShapeError, floating_only
from minigrad.nn.functional.activation_composite import softplus
from minigrad.nn.functional.distance import cosine_similarity, pairwise_distance
from minigrad.nn.functional.loss import REDUCTIONS, check_reduction, reduce_loss
from minigrad.ops import where
from minigrad.tensor import Tensor, as_tensor

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def _pair(name: str, input, target) -> tuple[Tensor, Tensor]:
    x, y = as_tensor(input), as_tensor(target)
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise ShapeError(
            f"{name}: input of shape {tuple(x.shape)} and target of shape {tuple(y.shape)} "
            "do not broadcast"
        ) from None
    return x, y


def _floating_pair(kernel: str, input, target) -> tuple[Tensor, Tensor]:
    """``_pair`` for the losses PyTorch computes on floating tensors only."""
    x, y = _pair(f"{kernel}_loss", input, target)
    common = dtypes.result_type(x.dtype, x.ndim, y.dtype, y.ndim)
    floating_only(kernel, common)
    return x, y


def _weighted(loss: Tensor, weight) -> Tensor:
    """``loss`` times the optional ``weight`` (broadcast), or ``loss`` itself."""
    return loss if weight is None else loss * as_tensor(weight)


# ------------------------------------------------------------------ regression
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``|x - y|``."""
    check_reduction("l1_loss", reduction, size_average, reduce)
    x, y = _pair("l1_loss", input, target)
    return reduce_loss((x - y).abs(), reduction)


def smooth_l1_loss(
    input,
    target,
    size_average=None,
    reduce=None,
    reduction="mean",
    beta: float = 1.0,
):
    """``0.5 d^2 / beta`` where ``d = |x - y| < beta``, ``d - 0.5 beta`` elsewhere
    (``beta = 0``: the L1 loss)."""
    check_reduction("smooth_l1_loss", reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    x, y = _floating_pair("smooth_l1", input, target)
    d = (x - y).abs()
    if beta == 0:
        return reduce_loss(d, reduction)
    return reduce_loss(where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def huber_loss(input, target, reduction="mean", delta: float = 1.0, weight=None):
    """``0.5 d^2`` where ``d = |x - y| < delta``, ``delta (d - 0.5 delta)`` elsewhere."""
    check_reduction("huber_loss", reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    x, y = _floating_pair("huber", input, target)
    d = (x - y).abs()
    loss = where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return reduce_loss(_weighted(loss, weight), reduction)


def poisson_nll_loss(
    input,
    target,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,
    reduction="mean",
):
    """Negative log-likelihood of ``y ~ Poisson(rate)``: ``exp(x) - y x`` with
    ``log_input`` (x is the log-rate), ``x - y log(x + eps)`` otherwise; ``full`` adds
    Stirling's term ``y log y - y + 0.5 log(2 pi y)`` where ``y > 1``."""
    check_reduction("poisson_nll_loss", reduction, size_average, reduce)
    x, y = _pair("poisson_nll_loss", input, target)
    loss = x.exp() - y * x if log_input else x - y * (x + eps).log()
    if full:
        big = y > 1
        safe = where(big, y, y * 0 + 1)
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + where(big, stirling, stirling * 0)
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(
    input,
    target,
    var,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
):
    """Negative log-likelihood of ``y ~ N(x, var)``: ``0.5 (log(var) + (x - y)^2 / var)``
    (plus ``0.5 log(2 pi)`` with ``full``). ``var`` is clamped to ``eps`` in value (its
    gradient passes unchanged, as in PyTorch); it may have the input's shape, lack its
    last dimension (one variance per sample), or broadcast to it (one variance for all
    samples: ``(1, D)`` for an ``(N, D)`` input)."""
    check_reduction("gaussian_nll_loss", reduction)
    x, y = as_tensor(input), as_tensor(target)
    floating_only("gaussian_nll_loss", x.dtype)
    v = as_tensor(var)
    if v.shape != x.shape:
        if x.shape[:-1] == v.shape:
            v = v.unsqueeze(-1)
        else:
            try:
                np.broadcast_shapes(v.shape, x.shape)
            except ValueError:
                raise ValueError("var is of incorrect size") from None
    if (v.numpy() < 0).any():
        raise ValueError("var has negative entry/entries")
    v = v + (v.detach().clamp(min=eps) - v.detach())
    loss = 0.5 * (v.log() + (x - y) ** 2 / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


# ------------------------------------------------------------------ probabilities
def binary_cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """``-w (y log x + (1 - y) log(1 - x))`` for probabilities ``x`` in ``[0, 1]``; each
    log is clamped below at -100, as in PyTorch, so the loss stays finite."""
    check_reduction("binary_cross_entropy", reduction, size_average, reduce)
    x, y = as_tensor(input), as_tensor(target)
    if x.shape != y.shape:
        raise ValueError(
            f"Using a target size ({tuple(y.shape)}) that is different to the input size "
            f"({tuple(x.shape)}) is deprecated. Please ensure they have the same size."
        )
    data = x.numpy()
    if ((data < 0) | (data > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    loss = -(y * x.log().clamp(min=-100) + (1 - y) * (1 - x).log().clamp(min=-100))
    return reduce_loss(_weighted(loss, weight), reduction)


def binary_cross_entropy_with_logits(
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction="mean",
    pos_weight=None,
):
    """``binary_cross_entropy(sigmoid(x), y)`` computed stably from the logits ``x``:
    ``(1 - y) x + (1 + (p - 1) y) softplus(-x)`` with ``p = pos_weight`` (1 when absent,
    broadcast along the last dimension: one weight per class)."""
    check_reduction("binary_cross_entropy_with_logits", reduction, size_average, reduce)
    x, y = as_tensor(input), as_tensor(target)
    if x.shape != y.shape:
        raise ValueError(
            f"Target size ({tuple(y.shape)}) must be the same as input size ({tuple(x.shape)})"
        )
    log_weight = 1 if pos_weight is None else 1 + (as_tensor(pos_weight) - 1) * y
    loss = (1 - y) * x + log_weight * softplus(-x)
    return reduce_loss(_weighted(loss, weight), reduction)


def kl_div(
    input,
    target,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
):
    """Kullback-Leibler divergence of the target from ``input`` (log-probabilities):
    ``xlogy(y, y) - y x`` (0 where ``y = 0``, NaN where ``y < 0``, as PyTorch), or
    ``exp(y) (y - x)`` with ``log_target``. ``reduction='batchmean'`` divides the sum by
    the batch size (the true KL divergence); ``'mean'`` averages over every element, as
    PyTorch does."""
    check_reduction("kl_div", reduction, size_average, reduce, (*REDUCTIONS, "batchmean"))
    x, y = _pair("kl_div", input, target)
    if log_target:
        loss = y.exp() * (y - x)
    else:
        loss = y.xlogy(y) - y * x
    if reduction == "batchmean":
        return loss.sum() / (x.shape[0] if x.ndim else 1)
    return reduce_loss(loss, reduction)


# ------------------------------------------------------------------ margins and rankings
def margin_ranking_loss(
    input1,
    input2,
    target,
    margin: float = 0.0,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """``max(0, -y (x1 - x2) + margin)`` for ``y`` in ``{1, -1}``."""
    check_reduction("margin_ranking_loss", reduction, size_average, reduce)
    x1, x2, y = as_tensor(input1), as_tensor(input2), as_tensor(target)
    if not x1.ndim == x2.ndim == y.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {tuple(x1.shape)}, input2: {tuple(x2.shape)}, target: {tuple(y.shape)}"
        )
    return reduce_loss((-y * (x1 - x2) + margin).relu(), reduction)


def hinge_embedding_loss(
    input,
    target,
    margin: float = 1.0,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """``x`` where ``y = 1``, ``max(0, margin - x)`` where ``y = -1``."""
    check_reduction("hinge_embedding_loss", reduction, size_average, reduce)
    x, y = _pair("hinge_embedding_loss", input, target)
    zero = x * 0
    loss = where(y != -1, x, zero) + where(y != 1, (margin - x).relu(), zero)
    return reduce_loss(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-y x))`` for ``y`` in ``{1, -1}``."""
    check_reduction("soft_margin_loss", reduction, size_average, reduce)
    x, y = _pair("soft_margin_loss", input, target)
    return reduce_loss(softplus(-y * x), reduction)


def cosine_embedding_loss(
    input1,
    input2,
    target,
    margin: float = 0.0,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """``1 - cos(x1, x2)`` where ``y = 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``y = -1`` (cosine along the last dimension). Shape: ``(N, D)`` -> ``(N,)``."""
    check_reduction("cosine_embedding_loss", reduction, size_average, reduce)
    x1, x2, y = as_tensor(input1), as_tensor(input2), as_tensor(target)
    if x1.dtype.kind != "f" or x2.dtype.kind != "f":  # PyTorch's loss takes integer inputs
        x1, x2 = x1.to(dtypes.default_float), x2.to(dtypes.default_float)
    cos = cosine_similarity(x1, x2, dim=-1, eps=1e-12)
    zero = cos * 0
    loss = where(y == 1, 1 - cos, zero) + where(y == -1, (cos - margin).relu(), zero)
    return reduce_loss(loss, reduction)


def _class_scores(name: str, x: Tensor) -> Tensor:
    """The scores as ``(N, C)``: a vector is one sample, a 0-d tensor one sample of one
    class (as PyTorch takes it); an empty vector is refused, as there."""
    if x.ndim > 2 or (x.ndim == 1 and x.shape[0] == 0):
        raise RuntimeError(
            f"{name}: Expected non-empty vector or matrix with optional 0-dim batch size, but "
            f"got: {list(x.shape)}"
        )
    return x.reshape(1, -1) if x.ndim < 2 else x


def _reduce_samples(loss: Tensor, x: Tensor, reduction: str) -> Tensor:
    """The ``(N,)`` per-sample losses of ``_class_scores(x)``, reduced; a single sample
    (``x`` a vector or 0-d) gives a 0-d loss, as in PyTorch."""
    if x.ndim < 2:
        loss = loss.reshape(())
    return reduce_loss(loss, reduction)


def multi_margin_loss(
    input,
    target,
    p: int = 1,
    margin: float = 1.0,
    weight=None,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """Multi-class hinge loss: ``sum_{j != y} max(0, margin - x_y + x_j)^p / C`` per
    sample (times ``weight[y]``). Shape: ``(N, C)`` scores and ``(N,)`` classes -> ``(N,)``."""
    check_reduction("multi_margin_loss", reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = as_tensor(input)
    floating_only("multi_margin_loss", x.dtype)
    scores = _class_scores("multi_margin_loss", x)
    n, c = scores.shape
    if weight is not None:
        w = as_tensor(weight)
        if w.ndim != 1 or w.shape[0] != c:
            raise ShapeError(
                f"multi_margin_loss: inconsistent weight size, expected {c} but got {list(w.shape)}"
            )
    t = as_tensor(target)
    if t.ndim > 1 or t.numel() != n:
        raise ShapeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{n}], but got "
            f"{list(t.shape)}. Input has shape {list(x.shape)}."
        )
    y = as_tensor(target).numpy().reshape(-1).astype(np.int64)
    picked = scores.gather(1, as_tensor(y.reshape(-1, 1)))  # (N, 1): x_y
    others = np.ones((n, c), dtype=scores.dtype)
    others[np.arange(n), y] = 0
    hinge = (margin - picked + scores).relu()
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * w.numpy()[y].reshape(-1, 1)
    loss = (hinge * others).sum(1) / c
    return _reduce_samples(loss, x, reduction)


def multilabel_margin_loss(
    input,
    target,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """``sum_{j in Y, k not in Y} max(0, 1 - (x_j - x_k)) / C`` per sample, with ``Y``
    the class indices at the start of the target row, up to the first ``-1`` (a class
    listed twice counts twice, as in PyTorch's loop over the entries).
    Shape: ``(N, C)`` scores and ``(N, C)`` integer targets -> ``(N,)``."""
    check_reduction("multilabel_margin_loss", reduction, size_average, reduce)
    x = as_tensor(input)
    floating_only("multilabel_margin_loss", x.dtype)
    scores = _class_scores("multilabel_margin_loss", x)
    t = as_tensor(target).numpy()
    if t.shape != tuple(x.shape) and t.size != scores.numel():
        raise RuntimeError(
            f"multilabel_margin_loss: inconsistent target size: {list(t.shape)} for input of "
            f"size: {list(x.shape)}"
        )
    t = t.reshape(scores.shape)
    n, c = scores.shape
    entries = np.zeros((n, c))  # how often each class is listed before the first -1
    for i in range(n):
        for cls in t[i]:
            if cls < 0:
                break
            if cls >= c:
                raise IndexError(f"multilabel_margin_loss: target {cls} is out of bounds")
            entries[i, cls] += 1
    pairs = (entries[:, :, None] * (entries == 0)[:, None, :]).astype(scores.dtype)
    margin = (1 - scores.unsqueeze(2) + scores.unsqueeze(1)).relu()  # (N, j, k)
    loss = (margin * pairs).sum((1, 2)) / c
    return _reduce_samples(loss, x, reduction)


def multilabel_soft_margin_loss(
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """``-mean_c (y_c log sigmoid(x_c) + (1 - y_c) log sigmoid(-x_c))`` per sample
    (each class term times ``weight[c]``). Shape: ``(N, C)`` -> ``(N,)``."""
    check_reduction("multilabel_soft_margin_loss", reduction, size_average, reduce)
    x, y = _pair("multilabel_soft_margin_loss", input, target)
    loss = y * softplus(-x) + (1 - y) * softplus(x)
    return reduce_loss(_weighted(loss, weight).mean(-1), reduction)


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """``max(0, d(a, p) - d(a, n) + margin)`` with ``d`` the pairwise p-norm distance;
    ``swap`` uses ``min(d(a, n), d(p, n))`` as the negative distance."""
    check_reduction("triplet_margin_loss", reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin}")

    def dist(u, v):
        return pairwise_distance(u, v, p, eps)

    return _triplet(anchor, positive, negative, dist, margin, swap, reduction)


def triplet_margin_with_distance_loss(
    anchor,
    positive,
    negative,
    *,
    distance_function=None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
):
    """:func:`triplet_margin_loss` with any ``distance_function(u, v)`` (default: the
    Euclidean pairwise distance)."""
    check_reduction("triplet_margin_with_distance_loss", reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _triplet(
        anchor, positive, negative, distance_function or pairwise_distance, margin, swap, reduction
    )


def _triplet(anchor, positive, negative, dist, margin, swap, reduction) -> Tensor:
    a, pos, neg = as_tensor(anchor), as_tensor(positive), as_tensor(negative)
    d_ap, d_an = dist(a, pos), dist(a, neg)
    if swap:
        d_an = d_an.minimum(dist(pos, neg))
    return reduce_loss((d_ap - d_an + margin).relu(), reduction)

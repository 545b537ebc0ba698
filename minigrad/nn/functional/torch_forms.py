"""The ``torch.X`` forms of nn.functional operations whose signature at the ``torch``
level differs from ``F.X``: losses take ``reduction`` as an int (0 ``'none'``, 1
``'mean'``, 2 ``'sum'``), ``torch.embedding`` takes the weight first (``padding_idx=-1``
for none), ``torch.batch_norm`` / ``torch.instance_norm`` take the affine weights before
the running statistics (and a ``cudnn_enabled`` flag, ignored). Each calls its ``F.*``
function; ``mg.kl_div`` and friends reach them."""

from __future__ import annotations

from minigrad.nn.functional import loss_composite as L
from minigrad.nn.functional.ctc import ctc_loss as _ctc_loss
from minigrad.nn.functional.dropout_variants import feature_dropout
from minigrad.nn.functional.instance_norm import instance_norm as _instance_norm
from minigrad.nn.functional.linear import embedding as _embedding
from minigrad.nn.functional.normalization import batch_norm as _batch_norm

__all__ = [
    "batch_norm",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "ctc_loss",
    "embedding",
    "feature_dropout",
    "hinge_embedding_loss",
    "instance_norm",
    "kl_div",
    "margin_ranking_loss",
    "poisson_nll_loss",
    "triplet_margin_loss",
]

_REDUCTION = ("none", "mean", "sum")


def _reduction(value: int) -> str:
    if value not in (0, 1, 2):
        raise ValueError(f"reduction must be 0 (none), 1 (mean) or 2 (sum), got {value!r}")
    return _REDUCTION[value]


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return L.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )


def kl_div(input, target, reduction=1, *, log_target=False):
    return L.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return L.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return L.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return L.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return L.poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1
):
    return L.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )


def ctc_loss(
    log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False
):
    return _ctc_loss(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        _reduction(reduction),
        zero_infinity,
    )


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding(weight, indices)``: ``F.embedding(indices, weight)``; at this
    level ``padding_idx=-1`` means no padding row."""
    return _embedding(
        indices,
        weight,
        None if padding_idx == -1 else padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )


def batch_norm(
    input,
    weight,
    bias,
    running_mean,
    running_var,
    training,
    momentum,
    eps,
    cudnn_enabled,
):
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input,
    weight,
    bias,
    running_mean,
    running_var,
    use_input_stats,
    momentum,
    eps,
    cudnn_enabled,
):
    return _instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )

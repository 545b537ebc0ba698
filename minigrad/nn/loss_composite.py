"""The rest of PyTorch's loss layers and the distance layers: each is its ``F.*``
function (``nn/functional/loss_composite.py`` and ``distance.py``, where the formulas
are) with its options stored. Class and positive-class weights are buffers, as in
PyTorch, so they appear in ``state_dict`` when given.

Example::

    >>> loss_fn = nn.BCEWithLogitsLoss(pos_weight=mg.tensor([2.0, 1.0]))
    >>> loss = loss_fn(mg.randn(4, 2, requires_grad=True), mg.ones(4, 2))
    >>> loss.backward()
"""

from __future__ import annotations

from minigrad.nn.functional import distance as D
from minigrad.nn.functional import loss_composite as F
from minigrad.nn.functional.ctc import ctc_loss
from minigrad.nn.loss import _Loss, _ReductionOnly, _WeightedLoss
from minigrad.nn.module import Module
from minigrad.tensor import Tensor

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CTCLoss",
    "CosineEmbeddingLoss",
    "CosineSimilarity",
    "GaussianNLLLoss",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MarginRankingLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "PairwiseDistance",
    "PoissonNLLLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
]


class L1Loss(_ReductionOnly):
    """``|x - y|``, reduced. Shape: input and target alike -> scalar (or same, 'none')."""

    fn = staticmethod(F.l1_loss)


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above (see ``F.smooth_l1_loss``)."""

    fn = staticmethod(F.smooth_l1_loss)

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta: float = 1.0):
        super().__init__(size_average, reduce, reduction, beta=beta)


class HuberLoss(_Loss):
    """Quadratic below ``delta``, ``delta``-scaled linear above (see ``F.huber_loss``)."""

    fn = staticmethod(F.huber_loss)

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        if isinstance(delta, bool) or not isinstance(delta, (int, float)):
            raise TypeError(f"delta must be a float or int, got: {type(delta)}")
        super().__init__(reduction=reduction, delta=delta)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (see ``F.binary_cross_entropy``)."""

    fn = staticmethod(F.binary_cross_entropy)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits, computed stably (see
    ``F.binary_cross_entropy_with_logits``)."""

    fn = staticmethod(F.binary_cross_entropy_with_logits)
    weights = ("weight", "pos_weight")

    def __init__(
        self,
        weight=None,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
        pos_weight=None,
    ) -> None:
        super().__init__(size_average, reduce, reduction, weight=weight, pos_weight=pos_weight)


class KLDivLoss(_Loss):
    """KL divergence of the target from the input's log-probabilities (see ``F.kl_div``);
    ``reduction='batchmean'`` gives the true divergence per sample."""

    fn = staticmethod(F.kl_div)
    reductions = (*_Loss.reductions, "batchmean")

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction, log_target=log_target)


class PoissonNLLLoss(_Loss):
    """Poisson negative log-likelihood (see ``F.poisson_nll_loss``)."""

    fn = staticmethod(F.poisson_nll_loss)

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average=None,
        eps: float = 1e-8,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction, log_input=log_input, full=full, eps=eps)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log-likelihood; ``forward(input, target, var)`` (see
    ``F.gaussian_nll_loss``)."""

    fn = staticmethod(F.gaussian_nll_loss)

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(reduction=reduction, full=full, eps=eps)


class MarginRankingLoss(_Loss):
    """``max(0, -y (x1 - x2) + margin)``; ``forward(input1, input2, target)``."""

    fn = staticmethod(F.margin_ranking_loss)

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, margin=margin)


class HingeEmbeddingLoss(_Loss):
    """``x`` for ``y = 1``, ``max(0, margin - x)`` for ``y = -1``."""

    fn = staticmethod(F.hinge_embedding_loss)

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, margin=margin)


class SoftMarginLoss(_ReductionOnly):
    """``log(1 + exp(-y x))``."""

    fn = staticmethod(F.soft_margin_loss)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos`` for ``y = 1``, ``max(0, cos - margin)`` for ``y = -1``;
    ``forward(input1, input2, target)``."""

    fn = staticmethod(F.cosine_embedding_loss)

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, margin=margin)


class MultiMarginLoss(_Loss):
    """Multi-class hinge loss (see ``F.multi_margin_loss``)."""

    fn = staticmethod(F.multi_margin_loss)
    weights = ("weight",)

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight=None,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        super().__init__(size_average, reduce, reduction, p=p, margin=margin, weight=weight)


class MultiLabelMarginLoss(_ReductionOnly):
    """Multi-label hinge loss (see ``F.multilabel_margin_loss``)."""

    fn = staticmethod(F.multilabel_margin_loss)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss (see ``F.multilabel_soft_margin_loss``)."""

    fn = staticmethod(F.multilabel_soft_margin_loss)


class TripletMarginLoss(_Loss):
    """``max(0, d(a, p) - d(a, n) + margin)``; ``forward(anchor, positive, negative)``."""

    fn = staticmethod(F.triplet_margin_loss)

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction, margin=margin, p=p, eps=eps, swap=swap)


class TripletMarginWithDistanceLoss(_Loss):
    """:class:`TripletMarginLoss` with any ``distance_function(u, v)``."""

    fn = staticmethod(F.triplet_margin_with_distance_loss)

    def __init__(
        self,
        *,
        distance_function=None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        super().__init__(
            reduction=reduction, distance_function=distance_function, margin=margin, swap=swap
        )


class CTCLoss(_Loss):
    """Connectionist temporal classification loss; ``forward(log_probs, targets,
    input_lengths, target_lengths)`` (see ``F.ctc_loss``)."""

    fn = staticmethod(ctc_loss)

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction=reduction, blank=blank, zero_infinity=zero_infinity)


class CosineSimilarity(Module):
    """``x1 . x2 / (max(||x1||, eps) max(||x2||, eps))`` along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return D.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` over the last dimension."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return D.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)

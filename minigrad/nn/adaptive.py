"""``AdaptiveLogSoftmaxWithLoss``: the log-probability of a target among many classes,
cheaply, by splitting the classes into a frequent shortlist and rarer clusters (Grave et
al., 2017).

Classes below ``cutoffs[0]`` form the shortlist; ``[cutoffs[i], cutoffs[i + 1])`` (and up
to ``n_classes``) form cluster ``i``. The head is a linear layer over the shortlist plus
one logit per cluster; cluster ``i`` has its own two-layer projection of width
``in_features // div_value^(i + 1)``. For a target ``y``:

    log p(y) = log_softmax(head(x))_y                              (y in the shortlist)
    log p(y) = log_softmax(head(x))_{shortlist + i}
               + log_softmax(tail_i(x))_{y - cutoffs[i]}           (y in cluster i)

``forward(input, target)`` returns ``(output, loss)``: ``output`` the log-probability of
each target, ``loss = -output.mean()``. (Each cluster's scores are computed for every row
and masked, which keeps the code to tensor operations; PyTorch computes only the rows
that need them. The values and gradients are the same.)
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from minigrad.nn.containers import ModuleList, Sequential
from minigrad.nn.linear import Linear
from minigrad.nn.module import Module
from minigrad.ops import cat, where
from minigrad.tensor import Tensor, as_tensor

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax (see the module docstring).

    Args:
        in_features: size of each input's last dimension.
        n_classes: the number of classes.
        cutoffs: increasing class indices between 1 and ``n_classes - 1`` that end the
            shortlist and each cluster but the last.
        div_value: each cluster's projection is ``div_value`` times narrower (4.0).
        head_bias: give the head a bias (False).

    Shape: ``forward``: input ``(N, in_features)`` or ``(in_features,)``, target ``(N,)``
    or ``()`` -> ``output`` of the target's shape and a scalar ``loss``;
    ``log_prob(input)``: ``(N, n_classes)``; ``predict(input)``: ``(N,)``.
    """

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs,
        div_value: float = 4.0,
        head_bias: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > (n_classes - 1)
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, dtype=dtype),
                    Linear(hidden, size, bias=False, dtype=dtype),
                )
            )

    def forward(self, input: Tensor, target) -> _ASMoutput:
        x = as_tensor(input)
        y = np.asarray(as_tensor(target).numpy()).astype(np.int64)
        unbatched = x.ndim == 1
        if unbatched:
            if y.ndim != 0:
                raise RuntimeError("1D target tensor expects 0D input tensors")
            x, y = x.unsqueeze(0), y.reshape(1)
        elif x.ndim != 2 or y.ndim != 1 or x.shape[0] != y.shape[0]:
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        if ((y < 0) | (y >= self.n_classes)).any():
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{y.min()}, {y.max()}] were found. "
            )
        head_column = y.copy()  # the head's logit that each target goes through
        output = None
        for i in range(self.n_clusters):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            mask = (y >= low) & (y < high)
            head_column[mask] = self.shortlist_size + i
            if not mask.any():
                continue
            local = np.clip(y - low, 0, high - low - 1).reshape(-1, 1)
            scores = self.tail[i](x).log_softmax(1).gather(1, Tensor(local)).reshape(-1)
            part = where(Tensor(mask), scores, 0.0)
            output = part if output is None else output + part
        head = self.head(x).log_softmax(1).gather(1, Tensor(head_column.reshape(-1, 1)))
        output = head.reshape(-1) if output is None else output + head.reshape(-1)
        loss = (-output).mean()
        return _ASMoutput(output[0] if unbatched else output, loss)

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probability of every class: ``(N, in_features) -> (N, n_classes)``."""
        x = as_tensor(input)
        head = self.head(x).log_softmax(-1)
        parts = [head[..., : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = self.tail[i](x).log_softmax(-1)
            parts.append(cluster + head[..., self.shortlist_size + i : self.shortlist_size + i + 1])
        return cat(parts, -1)

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row: ``(N, in_features) -> (N,)``."""
        return self.log_prob(input).argmax(-1)

    def extra_repr(self) -> str:
        return ""

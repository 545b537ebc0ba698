"""``Embedding``: a lookup table of learned vectors, one row per index; ``EmbeddingBag``:
the sum, mean or max of the vectors of each bag of indices."""

from __future__ import annotations

import numpy as np

from minigrad import dtypes, no_grad
from minigrad.nn import init
from minigrad.nn.functional.embedding_bag import embedding_bag
from minigrad.nn.functional.linear import embedding
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor
from minigrad.unsupported import refused

__all__ = ["Embedding", "EmbeddingBag"]


class _EmbeddingTable(Module):
    """What ``Embedding`` and ``EmbeddingBag`` share: the table ``weight``
    ``(num_embeddings, embedding_dim)`` and its padding row.

    Subclasses call ``_make_table`` in their constructor.
    """

    def _make_table(
        self, num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
        scale_grad_by_freq: bool, sparse: bool, _weight, dtype, freeze: bool = False,
    ) -> None:  # fmt: skip
        """Set the table options ``max_norm``, ``norm_type``, ``scale_grad_by_freq`` and
        ``sparse``, then ``num_embeddings``, ``embedding_dim``, ``padding_idx`` (made
        non-negative) and ``weight``: ``_weight`` if given (shared, not copied;
        ``freeze``: no grad), else a new table, initialised by ``reset_parameters``.
        ``sparse=True`` (a sparse gradient) is refused."""
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        name = type(self).__name__
        if sparse:
            raise refused(f"nn.{name}(sparse=True), a sparse gradient,", "sparse")
        self.num_embeddings = int(num_embeddings)
        self.embedding_dim = int(embedding_dim)
        if self.num_embeddings < 0 or self.embedding_dim < 0:
            raise RuntimeError(
                "Trying to create tensor with negative dimension "
                f"{min(self.num_embeddings, self.embedding_dim)}: "
                f"[{self.num_embeddings}, {self.embedding_dim}]"
            )
        if padding_idx is not None:
            if not -self.num_embeddings <= padding_idx < self.num_embeddings:
                raise ValueError(
                    f"{name}: padding_idx {padding_idx} must be within num_embeddings "
                    f"({self.num_embeddings})"
                )
            padding_idx = padding_idx % self.num_embeddings
        self.padding_idx = padding_idx
        shape = (self.num_embeddings, self.embedding_dim)
        if _weight is None:
            self.weight = Parameter(np.empty(shape, dtype=dtypes.or_default_float(dtype)))
            self.reset_parameters()
        else:
            w = _weight._data if isinstance(_weight, Tensor) else np.asarray(_weight)
            if w.shape != shape:
                raise ValueError(
                    f"{name}: _weight has shape {list(w.shape)}, expected {list(shape)}"
                )
            self.weight = Parameter(w, requires_grad=not freeze)

    def _table_options(self) -> str:
        """``max_norm``, ``norm_type`` and ``scale_grad_by_freq`` as PyTorch's repr shows
        them (only those set away from their defaults)."""
        s = ""
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2.0:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        return s

    def reset_parameters(self) -> None:
        """weight ~ N(0, 1), with the padding row (if any) set to zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight._data[self.padding_idx] = 0


class Embedding(_EmbeddingTable):
    """``out[...] = weight[input[...]]``: row ``i`` of ``weight`` is the vector of index ``i``.

    Args:
        num_embeddings: number of rows (the vocabulary size).
        embedding_dim: size of each vector.
        padding_idx: if given, that row starts at zero and its gradient is always zero,
            so it stays a fixed "padding" vector (negative values count from the end).
        dtype: parameter dtype (default float32).

    Attributes:
        weight: ``(num_embeddings, embedding_dim)``, initialised from ``N(0, 1)``.

    Shape:
        input: integer indices, any shape -> output ``input.shape + (embedding_dim,)``.

    Example::

        >>> emb = nn.Embedding(10, 3, padding_idx=0)
        >>> emb(mg.tensor([[0, 2, 4]])).shape
        (1, 3, 3)
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight=None,
        _freeze: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self._make_table(
            num_embeddings, embedding_dim, padding_idx, max_norm, norm_type, scale_grad_by_freq,
            sparse, _weight, dtype, _freeze,
        )  # fmt: skip

    @classmethod
    def from_pretrained(
        cls, embeddings, freeze: bool = True, padding_idx: int | None = None, **kwargs
    ) -> Embedding:
        """An Embedding holding ``embeddings`` (2-D, shared, not copied); ``freeze=True``
        makes its weight not require grad."""
        w = embeddings._data if isinstance(embeddings, Tensor) else np.asarray(embeddings)
        if w.ndim != 2:
            raise ValueError(f"Embeddings parameter is expected to be 2-dimensional, got {w.ndim}")
        return cls(w.shape[0], w.shape[1], padding_idx, _weight=w, _freeze=freeze, **kwargs)

    def forward(self, input) -> Tensor:
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq)  # fmt: skip

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s + self._table_options()


class EmbeddingBag(_EmbeddingTable):
    """``F.embedding_bag`` with a learned table: the sum, mean or max of the embeddings of
    each bag of indices (see ``F.embedding_bag`` for bags, offsets and padding).

    Args:
        num_embeddings, embedding_dim: the table's shape; ``weight`` starts ``N(0, 1)``.
        mode: ``'sum'``, ``'mean'`` (default) or ``'max'``.
        include_last_offset: ``offsets`` has one more entry, the end of the last bag.
        padding_idx: an index left out of every bag (its row starts at zero).

    Shape: ``forward(input, offsets=None, per_sample_weights=None)``: ``(B, N)`` or
    ``(L,)`` with ``offsets`` -> ``(B, embedding_dim)``.
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight=None,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.mode, self.include_last_offset = mode, include_last_offset
        self._make_table(
            num_embeddings, embedding_dim, padding_idx, max_norm, norm_type, scale_grad_by_freq,
            sparse, _weight, dtype,
        )  # fmt: skip

    def forward(self, input, offsets=None, per_sample_weights=None) -> Tensor:
        return embedding_bag(
            input,
            self.weight,
            offsets,
            max_norm=self.max_norm,
            norm_type=self.norm_type,
            scale_grad_by_freq=self.scale_grad_by_freq,
            mode=self.mode,
            per_sample_weights=per_sample_weights,
            include_last_offset=self.include_last_offset,
            padding_idx=self.padding_idx,
        )

    def extra_repr(self) -> str:
        pad = f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        options = self._table_options()
        return f"{self.num_embeddings}, {self.embedding_dim}{options}, mode='{self.mode}'{pad}"

"""Transformer encoder layers: ``TransformerEncoderLayer``, ``TransformerEncoder``, the
configurable ``TransformerBlock``, and ``generate_square_subsequent_mask``.

A block reads from and adds to the residual stream ``x`` (one vector of width
``d_model`` per position) twice: once with self-attention (positions exchange
information), once with a position-wise feed-forward network. Post-norm (the original
Transformer, PyTorch's default)::

    x = norm1(x + dropout1(self_attn(x)))
    x = norm2(x + dropout2(linear2(dropout(activation(linear1(x))))))

Pre-norm (``norm_first=True``, GPT-2 and most models since; each sub-block sees a
normalized copy, the stream itself is never normalized)::

    x = x + dropout1(self_attn(norm1(x)))
    x = x + dropout2(linear2(dropout(activation(linear1(norm2(x))))))

Dropout sits in four places, as in PyTorch: on the attention weights (inside
``self_attn``), on each sub-block's output before it joins the stream (``dropout1``,
``dropout2``) and after the feed-forward activation (``dropout``). See
docs/transformer.md.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import numpy as np

from minigrad import dtypes
from minigrad.nn.attention import MultiheadAttention
from minigrad.nn.containers import ModuleList
from minigrad.nn.dropout import Dropout
from minigrad.nn.functional.activation import gelu, relu, silu
from minigrad.nn.functional.multi_head_attention import check_sequences
from minigrad.nn.linear import Identity, Linear
from minigrad.nn.module import Module
from minigrad.nn.normalization import LayerNorm, RMSNorm
from minigrad.tensor import Tensor

__all__ = [
    "TransformerEncoderLayer",
    "TransformerEncoder",
    "TransformerBlock",
    "generate_square_subsequent_mask",
]


def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    """The causal mask [sz, sz] as a float mask: 0 on and below the diagonal, -inf above.

    Query i may attend to keys j <= i. It is what PyTorch's
    ``nn.Transformer.generate_square_subsequent_mask(sz)`` returns (minigrad has no
    ``nn.Transformer``, so it is a function of ``nn``). Pass it as ``mask`` /
    ``src_mask`` / ``attn_mask``.

    Example::

        >>> nn.generate_square_subsequent_mask(3)
        tensor([[0., -inf, -inf],
                [0., 0., -inf],
                [0., 0., 0.]])
    """
    if not isinstance(sz, (int, np.integer)) or sz < 0:
        raise ValueError(
            f"generate_square_subsequent_mask: sz must be a non-negative int, got {sz!r}"
        )
    dtype = dtypes.or_default_float(dtype)
    mask = np.triu(np.full((sz, sz), -np.inf, dtype=dtype), 1)
    return Tensor._make(mask, False, None)


def _swiglu(x: Tensor) -> Tensor:
    """SwiGLU(a, b) = silu(a) * b, with a and b the two halves of the last dim."""
    a, b = x.chunk(2, -1)
    return silu(a) * b


_ACTIVATIONS = {"relu": relu, "gelu": gelu}


class _ResidualBlock(Module):
    """The sub-layers and blocks of a Transformer layer: the forward of
    ``TransformerEncoderLayer`` and ``TransformerBlock``; ``TransformerDecoderLayer``
    (``transformer_decoder.py``) adds cross-attention and has its own forward.

    Subclasses call ``_add_sublayers`` and set ``activation``.
    """

    norm_first: bool
    activation: Callable[[Tensor], Tensor]

    def _add_sublayers(
        self, d_model, nhead, dim_feedforward, dropout, bias, batch_first, norm_first,
        make_norm, dtype, linear1_out=None, cross_attention=False,
    ) -> None:  # fmt: skip
        """``self_attn``, ``linear1``, ``dropout``, ``linear2``, ``norm1``, ``norm2``,
        ``dropout1``, ``dropout2``: PyTorch's names, in its order (the ``state_dict``
        keys); with ``cross_attention`` (the decoder layer) also ``multihead_attn`` after
        ``self_attn``, and ``norm3`` and ``dropout3``. ``make_norm()`` builds each norm;
        ``linear1_out`` defaults to ``dim_feedforward``."""
        attn = dict(dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, **attn)
        if cross_attention:
            self.multihead_attn = MultiheadAttention(d_model, nhead, **attn)
        self.linear1 = Linear(d_model, linear1_out or dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = bool(norm_first)
        self.norm1 = make_norm()
        self.norm2 = make_norm()
        if cross_attention:
            self.norm3 = make_norm()
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if cross_attention:
            self.dropout3 = Dropout(dropout)

    def forward(
        self,
        src: Tensor,
        src_mask=None,
        src_key_padding_mask=None,
        is_causal: bool = False,
    ) -> Tensor:
        """One block over ``src`` (L, N, E), or (N, L, E) with ``batch_first``, or (L, E).

        Args:
            src: the residual stream.
            src_mask: attention mask (L, L) or (N * nhead, L, L); True (bool) blocks, a
                float mask is added.
            src_key_padding_mask: (N, L); True marks padding positions.
            is_causal: with no ``src_mask``, attend causally (position i sees j <= i).
        """
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal) -> Tensor:
        return self.dropout1(_attend(self.self_attn, x, x, attn_mask, key_padding_mask, is_causal))

    def _ff_block(self, x) -> Tensor:
        return self.dropout2(self._feed_forward(x))

    def _feed_forward(self, x) -> Tensor:
        """The position-wise network, without the dropout on its output."""
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


def _attend(attn: MultiheadAttention, x, memory, attn_mask, key_padding_mask, is_causal):
    """``attn`` from the queries ``x`` to the keys and values ``memory`` (``x`` itself in
    self-attention): the attention output alone, without the weights."""
    out, _ = attn(
        x,
        memory,
        memory,
        attn_mask=attn_mask,
        key_padding_mask=key_padding_mask,
        need_weights=False,
        is_causal=is_causal,
    )
    return out


def _check_sizes(name: str, **sizes) -> None:
    """Each of ``sizes`` (``d_model=...``) must be a positive int (``ValueError``)."""
    for arg, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
            raise ValueError(f"{name}: {arg} must be a positive int, got {value!r}")


def _resolve_activation(name: str, activation) -> Callable[[Tensor], Tensor]:
    """A layer's ``activation`` argument as a function: ``'relu'``, ``'gelu'``, or a
    callable (a function or a module), which is kept."""
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise ValueError(
                f"{name}: activation should be 'relu' or 'gelu' (or a callable), not {activation!r}"
            )
        return _ACTIVATIONS[activation]
    if not callable(activation):
        raise TypeError(
            f"{name}: activation must be 'relu', 'gelu' or a callable, "
            f"got {type(activation).__name__}"
        )
    return activation


class _LayerStack(Module):
    """``num_layers`` independent deep copies of a layer (same initial weights, trained
    separately), registered as ``layers.0``, ``layers.1``, ..., then an optional final
    ``norm``: ``TransformerEncoder`` and ``TransformerDecoder``. ``name`` and
    ``layer_arg`` (the layer's argument) are for the messages."""

    def __init__(self, name: str, layer_arg: str, layer, num_layers, norm) -> None:
        super().__init__()
        if not isinstance(layer, Module):
            raise TypeError(f"{name}: {layer_arg} must be a Module, got {type(layer).__name__}")
        is_int = isinstance(num_layers, (int, np.integer)) and not isinstance(num_layers, bool)
        if not is_int or num_layers < 0:
            raise ValueError(f"{name}: num_layers must be a non-negative int, got {num_layers!r}")
        self.layers = ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])
        self.num_layers = int(num_layers)
        self.norm = norm

    def _through_layers(self, x: Tensor, *args, **kwargs) -> Tensor:
        """``x`` through every layer in order (each called with ``args`` and ``kwargs``
        after it), then the final norm."""
        for layer in self.layers:
            x = layer(x, *args, **kwargs)
        if self.norm is not None:
            x = self.norm(x)
        return x


class _PyTorchLayer(_ResidualBlock):
    """The constructor of PyTorch's ``TransformerEncoderLayer`` and
    ``TransformerDecoderLayer`` (the same arguments): LayerNorms, and an ``activation``
    given by name or as a callable; ``_cross_attention`` (the decoder layer) adds its
    sub-layers."""

    _cross_attention = False

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        _check_sizes(name, d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        self._add_sublayers(
            d_model, nhead, dim_feedforward, dropout, bias, batch_first, norm_first,
            lambda: LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype), dtype,
            cross_attention=self._cross_attention,
        )  # fmt: skip
        self.activation = _resolve_activation(name, activation)


class TransformerEncoderLayer(_PyTorchLayer):
    """A Transformer encoder layer, as PyTorch's (post-norm by default).

    Formulas: see the module docstring (``norm_first`` chooses post- or pre-norm).

    Args:
        d_model: the width of the residual stream (E).
        nhead: attention heads (must divide d_model).
        dim_feedforward: the feed-forward network's hidden width (default 2048).
        dropout: dropout probability everywhere (default 0.1).
        activation: ``'relu'`` (default), ``'gelu'``, or a callable (a function or a
            module such as ``nn.GELU(approximate='tanh')``).
        layer_norm_eps: the LayerNorms' eps (default 1e-5).
        batch_first: inputs are (N, L, E) instead of (L, N, E) (default False).
        norm_first: pre-norm instead of post-norm (default False).
        bias: biases in the linear layers, the attention and the LayerNorms.
        dtype: parameter dtype (default float32).

    Sub-modules (PyTorch's names, so ``state_dict`` keys match): ``self_attn``,
    ``linear1`` [dim_feedforward, d_model], ``dropout``, ``linear2`` [d_model,
    dim_feedforward], ``norm1``, ``norm2``, ``dropout1``, ``dropout2``.

    Shape:
        src (L, N, E), (N, L, E) with ``batch_first``, or unbatched (L, E); the output
        has the same shape.

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32,
        ...                                    batch_first=True)
        >>> layer(mg.randn(2, 10, 16)).shape
        (2, 10, 16)
    """


class TransformerEncoder(_LayerStack):
    """A stack of ``num_layers`` copies of an encoder layer, then an optional final norm.

    The layers are independent deep copies of ``encoder_layer`` (``copy.deepcopy``: same
    initial weights, trained separately), registered as ``layers.0``, ``layers.1``, ...
    With pre-norm layers the stream is never normalized inside the stack, so pass a
    final ``norm`` (``nn.LayerNorm(d_model)``), as GPT-2 does.

    Args:
        encoder_layer: a ``TransformerEncoderLayer`` or ``TransformerBlock`` (any module
            with the same ``forward(src, src_mask, src_key_padding_mask, is_causal)``).
        num_layers: how many copies.
        norm: a module applied to the output (state_dict keys ``norm.*``), or None.
        enable_nested_tensor, mask_check: accepted for PyTorch compatibility; no effect.

    Shape: as the layer's.

    Example::

        >>> layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, norm_first=True)
        >>> enc = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(16))
        >>> x = mg.randn(10, 2, 16)                       # (L, N, E)
        >>> enc(x, mask=nn.generate_square_subsequent_mask(10)).shape
        (10, 2, 16)
    """

    def __init__(
        self,
        encoder_layer: Module,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__("TransformerEncoder", "encoder_layer", encoder_layer, num_layers, norm)

    def forward(
        self,
        src: Tensor,
        mask=None,
        src_key_padding_mask=None,
        is_causal: bool | None = None,
    ) -> Tensor:
        """Run the layers in order, then the final norm.

        Args:
            src: (L, N, E), (N, L, E) with batch-first layers, or (L, E).
            mask: attention mask for every layer ((L, L) or (N * nhead, L, L)).
            src_key_padding_mask: (N, L); True marks padding.
            is_causal: ``True`` with no ``mask`` attends causally; with a ``mask`` it is
                only a hint, as in the layers (``None``, the default, means False; PyTorch
                uses it to look for a causal ``mask``, which changes nothing here).
        """
        check_sequences("TransformerEncoder", "src", src)
        return self._through_layers(
            src, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal)
        )


class TransformerBlock(_ResidualBlock):
    """A configurable encoder block, for the experiments PyTorch's layer cannot express.

    The same residual structure as ``TransformerEncoderLayer`` (formulas in the module
    docstring), with a choice of normalization and feed-forward activation::

        nn.TransformerBlock(64, 4, 256, 0.1, norm="layer", norm_first=False)  # = PyTorch's layer
        nn.TransformerBlock(64, 4, 256, 0.1, norm="rms", activation="swiglu")  # LLaMA-style
        nn.TransformerBlock(64, 4, 256, 0.1, norm="none")                      # no norm at all

    Args:
        d_model, nhead, dim_feedforward, dropout: as in ``TransformerEncoderLayer``.
        norm: ``'layer'`` (LayerNorm), ``'rms'`` (RMSNorm) or ``'none'`` (Identity).
        norm_first: pre-norm (default True here) or post-norm.
        activation: ``'relu'``, ``'gelu'`` or ``'swiglu'``: ``linear1`` then maps to
            2 * dim_feedforward and the hidden vector is ``silu(a) * b`` with ``a`` the
            first half of ``linear1``'s output (the gate) and ``b`` the second.
        bias: biases in the linear layers, the attention and the LayerNorms.
        batch_first: (N, L, E) inputs (default True here).
        norm_eps: the norms' eps (default 1e-5).
        dtype: parameter dtype (default float32).

    ``state_dict`` keys: ``self_attn.in_proj_weight``, ``self_attn.in_proj_bias``,
    ``self_attn.out_proj.weight``, ``self_attn.out_proj.bias``, ``linear1.weight``
    [dim_feedforward (x2 for swiglu), d_model], ``linear1.bias``, ``linear2.weight``
    [d_model, dim_feedforward], ``linear2.bias``, then ``norm1.weight``, ``norm1.bias``,
    ``norm2.weight``, ``norm2.bias`` for ``'layer'``; only the ``.weight`` ones for
    ``'rms'``; none for ``'none'`` (no ``.bias`` keys anywhere with ``bias=False``).
    With ``norm='layer'`` and ``'relu'`` / ``'gelu'`` the keys and the computation are
    exactly ``TransformerEncoderLayer``'s (with the same ``norm_first``).

    Shape: src (N, L, E) (or (L, N, E) with ``batch_first=False``, or (L, E)).
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        norm: str = "layer",
        norm_first: bool = True,
        activation: str = "relu",
        bias: bool = True,
        batch_first: bool = True,
        norm_eps: float = 1e-5,
        dtype=None,
    ) -> None:
        super().__init__()
        _check_sizes(
            "TransformerBlock", d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward
        )
        if norm not in ("layer", "rms", "none"):
            raise ValueError(
                f"TransformerBlock: norm must be 'layer', 'rms' or 'none', got {norm!r}"
            )
        if activation not in ("relu", "gelu", "swiglu"):
            raise ValueError(
                f"TransformerBlock: activation must be 'relu', 'gelu' or 'swiglu', got "
                f"{activation!r}"
            )
        hidden_in = 2 * dim_feedforward if activation == "swiglu" else dim_feedforward
        self._add_sublayers(
            d_model, nhead, dim_feedforward, dropout, bias, batch_first, norm_first,
            lambda: _make_norm(norm, d_model, norm_eps, bias, dtype), dtype, linear1_out=hidden_in,
        )  # fmt: skip
        self.activation = _swiglu if activation == "swiglu" else _ACTIVATIONS[activation]
        self.norm_type = norm
        self.activation_name = activation

    def extra_repr(self) -> str:
        return (
            f"norm={self.norm_type!r}, norm_first={self.norm_first}, "
            f"activation={self.activation_name!r}"
        )


def _make_norm(kind: str, d_model: int, eps: float, bias: bool, dtype) -> Module:
    if kind == "layer":
        return LayerNorm(d_model, eps=eps, bias=bias, dtype=dtype)
    if kind == "rms":
        return RMSNorm(d_model, eps=eps, dtype=dtype)
    return Identity()

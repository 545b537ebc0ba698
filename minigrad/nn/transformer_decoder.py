"""The Transformer decoder and the full encoder-decoder ``Transformer``, as PyTorch's.

A decoder layer is an encoder layer with one more sub-layer: after self-attention over
the target ``x`` (masked causally with ``tgt_mask``), cross-attention lets every target
position attend to the encoder's output ``memory``. Post-norm (the default)::

    x = norm1(x + dropout1(self_attn(x, x, x)))
    x = norm2(x + dropout2(multihead_attn(x, memory, memory)))
    x = norm3(x + dropout3(linear2(dropout(activation(linear1(x))))))

and with ``norm_first`` (pre-norm) each sub-layer reads ``norm_k(x)`` and adds its
result to ``x``. The sub-modules have PyTorch's names, in its order, so ``state_dict``
keys match: ``self_attn.*``, ``multihead_attn.*``, ``linear1.*``, ``linear2.*``,
``norm1.*``, ``norm2.*``, ``norm3.*`` (and ``layers.0.*``, ``norm.*`` in the stack;
``encoder.*``, ``decoder.*`` in ``Transformer``).

Built on the public ``nn.MultiheadAttention``, ``nn.Linear``, ``nn.LayerNorm`` and
``nn.TransformerEncoder``; masks follow ``MultiheadAttention``'s convention (a boolean
mask marks with True what may NOT be attended, a float mask is added to the scores).
"""

from __future__ import annotations

from minigrad.nn import init
from minigrad.nn.module import Module
from minigrad.nn.normalization import LayerNorm
from minigrad.nn.transformer import (
    TransformerEncoder,
    TransformerEncoderLayer,
    _attend,
    _LayerStack,
    _PyTorchLayer,
)
from minigrad.nn.transformer import generate_square_subsequent_mask as _causal_mask
from minigrad.tensor import Tensor

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer"]


class TransformerDecoderLayer(_PyTorchLayer):
    """Self-attention, cross-attention to ``memory``, feed-forward (see the module docstring):
    the encoder layer's sub-layers and blocks with one more, cross-attention.

    Args: as ``TransformerEncoderLayer``: ``d_model``, ``nhead``, ``dim_feedforward=2048``,
    ``dropout=0.1``, ``activation='relu'``, ``layer_norm_eps=1e-5``, ``batch_first=False``,
    ``norm_first=False``, ``bias=True``, ``dtype``.

    Shape:
        tgt (T, N, E) and memory (S, N, E), or (N, T, E) / (N, S, E) with
        ``batch_first``, or unbatched (T, E) / (S, E); the output has tgt's shape.

    Example::

        >>> layer = nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        >>> tgt, memory = mg.randn(2, 5, 16), mg.randn(2, 7, 16)
        >>> layer(tgt, memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(5)).shape
        (2, 5, 16)
    """

    _cross_attention = True

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """One decoder layer.

        Args:
            tgt: the target sequence (the decoder's residual stream).
            memory: the encoder's output.
            tgt_mask: (T, T) self-attention mask, usually causal.
            memory_mask: (T, S) cross-attention mask.
            tgt_key_padding_mask: (N, T); memory_key_padding_mask: (N, S).
            tgt_is_causal, memory_is_causal: with no mask, attend causally.
        """
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(
                x
                + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            )
            x = self.norm3(x + self._ff_block(x))
        return x

    # _sa_block (self-attention, then dropout1) and _feed_forward come from _ResidualBlock
    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal) -> Tensor:
        attended = _attend(self.multihead_attn, x, mem, attn_mask, key_padding_mask, is_causal)
        return self.dropout2(attended)

    def _ff_block(self, x) -> Tensor:
        return self.dropout3(self._feed_forward(x))


class TransformerDecoder(_LayerStack):
    """``num_layers`` deep copies of ``decoder_layer`` (``layers.0`` ...), then ``norm``.

    Example::

        >>> layer = nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0)
        >>> dec = nn.TransformerDecoder(layer, num_layers=2)
        >>> dec(mg.randn(5, 2, 16), mg.randn(7, 2, 16)).shape
        (5, 2, 16)
    """

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Module | None = None):
        super().__init__("TransformerDecoder", "decoder_layer", decoder_layer, num_layers, norm)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        return self._through_layers(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=bool(tgt_is_causal),
            memory_is_causal=memory_is_causal,
        )


class Transformer(Module):
    """The encoder-decoder Transformer of "Attention Is All You Need", as PyTorch's.

    ``encoder`` is a ``TransformerEncoder`` of ``num_encoder_layers`` layers with a final
    ``LayerNorm``, ``decoder`` a ``TransformerDecoder`` likewise; every parameter with
    more than one dim is re-initialised with Xavier-uniform, as PyTorch does.

    Args: PyTorch's (``d_model=512``, ``nhead=8``, ``num_encoder_layers=6``,
    ``num_decoder_layers=6``, ``dim_feedforward=2048``, ``dropout=0.1``,
    ``activation='relu'``, ``custom_encoder``, ``custom_decoder``, ``layer_norm_eps``,
    ``batch_first``, ``norm_first``, ``bias``, ``dtype``).

    Shape: src (S, N, E), tgt (T, N, E) (batch first with ``batch_first``); output (T, N, E).
    """

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation="relu",
        custom_encoder=None,
        custom_decoder=None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        common = dict(
            dropout=dropout,
            activation=activation,
            layer_norm_eps=layer_norm_eps,
            batch_first=batch_first,
            norm_first=norm_first,
            bias=bias,
            dtype=dtype,
        )
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, **common)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, **common)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask=None,
        tgt_mask=None,
        memory_mask=None,
        src_key_padding_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        src_is_causal=None,
        tgt_is_causal=None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        batch_axis = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[batch_axis] != tgt.shape[batch_axis]:
            raise RuntimeError(
                f"Transformer: the batch number of src ({src.shape[batch_axis]}) and tgt "
                f"({tgt.shape[batch_axis]}) must be equal"
            )
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(
                f"Transformer: the feature number of src ({src.shape[-1]}) and tgt "
                f"({tgt.shape[-1]}) must be equal to d_model ({self.d_model})"
            )
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """The (sz, sz) causal float mask: 0 on and below the diagonal, -inf above."""
        return _causal_mask(sz, device=device, dtype=dtype)

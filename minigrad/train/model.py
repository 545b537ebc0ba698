"""``TinyTransformer``: a decoder-only (GPT-style) language model from minigrad's modules.

    tokens (B, T) -> token embedding + position embedding      (B, T, D)
                  -> n_layers x TransformerBlock, causal mask  (B, T, D)
                  -> final norm (pre-norm models only)          (B, T, D)
                  -> linear head                                (B, T, V)

Every block reads the residual stream and adds its attention and feed-forward
outputs back to it. A pre-norm stack leaves the stream itself unnormalized, so it
ends with one more norm before the head; a post-norm block already ends in a norm.
"""

from __future__ import annotations

import numpy as np

import minigrad as mg
import minigrad.nn as nn


class TinyTransformer(nn.Module):
    """A small causal transformer language model.

    Args:
        vocab_size: number of token ids.
        max_len: the longest sequence it reads (learned position embeddings).
        d_model, n_heads, n_layers, d_ff: width, heads, depth, feed-forward width.
        norm: ``"layer"`` (LayerNorm), ``"rms"`` (RMSNorm) or ``"none"`` (no norm at all).
        norm_first: pre-norm (True) or post-norm (False) blocks.
        activation: ``"relu"``, ``"gelu"`` or ``"swiglu"``.
        dropout: dropout probability on embeddings, attention weights and residual adds.

    Shape:
        input (B, T) int64 with T <= max_len; output logits (B, T, vocab_size).
    """

    def __init__(
        self,
        vocab_size: int,
        max_len: int,
        d_model: int = 64,
        n_heads: int = 4,
        n_layers: int = 2,
        d_ff: int = 256,
        norm: str = "layer",
        norm_first: bool = True,
        activation: str = "gelu",
        dropout: float = 0.0,
    ):
        super().__init__()
        self.max_len = max_len
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(max_len, d_model)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(
            [
                nn.TransformerBlock(
                    d_model,
                    n_heads,
                    d_ff,
                    dropout,
                    norm=norm,
                    norm_first=norm_first,
                    activation=activation,
                )
                for _ in range(n_layers)
            ]
        )
        if norm_first and norm == "layer":
            self.norm = nn.LayerNorm(d_model)
        elif norm_first and norm == "rms":
            self.norm = nn.RMSNorm(d_model)
        else:  # post-norm blocks end in a norm; norm="none" has none anywhere
            self.norm = nn.Identity()
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, tokens: mg.Tensor, streams: list | None = None) -> mg.Tensor:
        """Logits ``(B, T, V)`` for ``tokens`` ``(B, T)``. If ``streams`` is a list, the
        residual stream is appended to it before the first block and after every block
        (``n_layers + 1`` tensors of ``(B, T, D)``, kept in the graph), for statistics."""
        B, T = tokens.shape
        if T > self.max_len:
            raise ValueError(f"TinyTransformer: sequence length {T} exceeds max_len {self.max_len}")
        x = self.tok_emb(tokens) + self.pos_emb(mg.arange(T))  # (B, T, D)
        x = self.drop(x)
        if streams is not None:
            streams.append(x)
        for block in self.blocks:
            x = block(x, is_causal=True)  # (B, T, D)
            if streams is not None:
                streams.append(x)
        return self.head(self.norm(x))  # (B, T, V)

    @mg.no_grad()
    def attention_maps(self, tokens) -> np.ndarray:
        """The last block's attention weights on one sequence ``tokens`` (1-D ints), for
        each head: (n_heads, T, T), row i the weights query i gives keys 0..i."""
        was_training = self.training
        self.eval()
        try:
            t = np.asarray(tokens, dtype=np.int64).reshape(1, -1)  # (1, T)
            x = self.tok_emb(mg.tensor(t)) + self.pos_emb(mg.arange(t.shape[1]))  # (1, T, D)
            for block in self.blocks[:-1]:
                x = block(x, is_causal=True)
            last = self.blocks[-1]
            h = last.norm1(x) if last.norm_first else x  # what its attention reads
            _, weights = last.self_attn(
                h, h, h, need_weights=True, average_attn_weights=False, is_causal=True
            )  # (1, H, T, T)
        finally:
            self.train(was_training)
        return weights.numpy()[0]

    @mg.no_grad()
    def generate(
        self,
        tokens,
        n_new: int,
        temperature: float = 1.0,
        top_k: int | None = None,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        """Extend ``tokens`` (1-D ints) by ``n_new`` tokens.

        ``temperature=0`` picks the most likely token (greedy); otherwise tokens are
        sampled from the softmax of logits / temperature, optionally from the ``top_k``
        most likely only. The context is cropped to the last ``max_len`` tokens.
        """
        was_training = self.training
        self.eval()
        out = [int(t) for t in np.asarray(tokens).reshape(-1)]
        rng = rng if rng is not None else np.random.default_rng(0)
        try:
            for _ in range(n_new):
                context = np.array(out[-self.max_len :], dtype=np.int64)[None, :]
                logits = self(mg.tensor(context)).numpy()[0, -1].astype(np.float64)  # (V,)
                if temperature == 0:
                    out.append(int(np.argmax(logits)))
                    continue
                logits = logits / temperature
                if top_k is not None and top_k < logits.size:
                    cutoff = np.sort(logits)[-top_k]
                    logits = np.where(logits < cutoff, -np.inf, logits)
                p = np.exp(logits - logits.max())
                out.append(int(rng.choice(p.size, p=p / p.sum())))
        finally:
            self.train(was_training)
        return np.array(out, dtype=np.int64)

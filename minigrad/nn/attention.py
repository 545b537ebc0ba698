"""``MultiheadAttention``: H attention heads side by side, as in PyTorch.

Each of the H heads attends in its own subspace of size ``head_dim = E / H``::

    Q = query W_q^T + b_q,  K = key W_k^T + b_k,  V = value W_v^T + b_v   # (N, L|S, E)
    split E into H heads of head_dim                                      # (N, H, L|S, hd)
    O_h = softmax(Q_h K_h^T / sqrt(hd) + M) V_h                           # (N, H, L, hd)
    out = concat_h(O_h) W_o^T + b_o                                       # (N, L, E)

``W_q, W_k, W_v`` are stacked in one ``in_proj_weight`` [3E, E] (one parameter for the
three, as in PyTorch), unless ``kdim`` / ``vdim`` differ from ``embed_dim``: then they
are the separate ``q_proj_weight`` [E, E], ``k_proj_weight`` [E, kdim] and
``v_proj_weight`` [E, vdim]. ``W_o, b_o`` are ``out_proj`` (a ``Linear``). Each
projection is its own matmul (on a row slice of ``in_proj_weight``), so Q, K and V come
out as three contiguous arrays and their gradients need no zero-filled [N, L, 3E]
buffers to add up. The heads are computed together, with batched matmuls over (N, H),
by ``F.scaled_dot_product_attention`` (``minigrad/nn/functional/attention.py``), whose
output keeps the memory order of Q: merging the heads afterwards is a view.
With ``need_weights=True`` the weights are built from Tensor operations
(``attention_weights`` in the same file) and multiplied with V, as PyTorch does.

Masks (PyTorch's convention for this module, the opposite of
``F.scaled_dot_product_attention``'s): a **bool** mask marks with True the positions that
may NOT be attended; a **float** mask is added to the scores. A query whose every key is
masked gets all-zero attention weights, so its output is ``out_proj.bias``, and no
gradient flows through that row. (PyTorch returns NaN for such a row when
``need_weights=True`` and zeros when ``need_weights=False``; minigrad gives the zeros in
both cases.)
"""

from __future__ import annotations

import math

import numpy as np

from minigrad import dtypes
from minigrad.functions.constant import constant
from minigrad.nn import init
from minigrad.nn.functional.attention import (
    as_mask,
    attention_weights,
    causal_allow,
    check_float_mask,
    scaled_dot_product_attention,
)
from minigrad.nn.functional.linear import linear
from minigrad.nn.linear import NonDynamicallyQuantizableLinear
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.ops import cat
from minigrad.printing import shape_str
from minigrad.tensor import Tensor
from minigrad.unsupported import module_getattr

__all__ = ["MultiheadAttention"]
#: torch.nn.attention is a package in PyTorch: its submodules (bias, flex_attention ...) import
#: and refuse at use (minigrad/unsupported.py). An empty ``__path__`` makes this a package.
__path__: list[str] = []

_NAME = "MultiheadAttention"


class MultiheadAttention(Module):
    """Multi-head attention (see the module docstring for the formulas).

    Args:
        embed_dim: E, the model's width (the query's last dim and the output's).
        num_heads: H; must divide ``embed_dim`` (``head_dim = E / H``).
        dropout: probability of dropping an attention weight in training (default 0.0).
        bias: learn ``in_proj_bias`` and ``out_proj.bias`` (default True).
        add_bias_kv: learn ``bias_k``, ``bias_v`` [1, 1, E], appended to the projected
            keys and values as one extra position (default False).
        add_zero_attn: append a position of zeros to the keys and values (default False).
        kdim, vdim: the key's and value's last dim (default ``embed_dim``).
        batch_first: inputs and output are (N, L, E) instead of (L, N, E).
        dtype: parameter dtype (default float32).

    Parameters (PyTorch's ``state_dict`` keys):
        ``in_proj_weight`` [3E, E] (xavier uniform), or ``q_proj_weight`` [E, E],
        ``k_proj_weight`` [E, kdim], ``v_proj_weight`` [E, vdim] when kdim or vdim differ;
        ``in_proj_bias`` [3E] (zeros); ``bias_k``, ``bias_v`` [1, 1, E] (xavier normal);
        ``out_proj.weight`` [E, E] (Linear's init), ``out_proj.bias`` [E] (zeros).

    Shape:
        query (L, N, E), key (S, N, kdim), value (S, N, vdim), or (N, L, E) ... with
        ``batch_first``, or unbatched (L, E), (S, kdim), (S, vdim);
        key_padding_mask (N, S) or (S,); attn_mask (L, S) or (N * H, L, S).
        Output (L, N, E) / (N, L, E) / (L, E); weights (N, L, S) averaged over heads or
        (N, H, L, S), without the N for unbatched input.

    Example::

        >>> mha = nn.MultiheadAttention(16, 4, batch_first=True)
        >>> x = mg.randn(2, 5, 16)                       # (N, L, E)
        >>> out, weights = mha(x, x, x)
        >>> out.shape, weights.shape
        ((2, 5, 16), (2, 5, 5))
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        for name, value in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            if not isinstance(value, (int, np.integer)) or value <= 0:
                raise ValueError(f"{_NAME}: {name} must be a positive int, got {value!r}")
        if embed_dim % num_heads != 0:
            raise ValueError(
                f"{_NAME}: embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})"
            )
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{_NAME}: dropout must be in [0, 1], got {dropout}")
        self.embed_dim = int(embed_dim)
        self.kdim = int(kdim) if kdim is not None else self.embed_dim
        self.vdim = int(vdim) if vdim is not None else self.embed_dim
        self._qkv_same_embed_dim = self.kdim == self.embed_dim and self.vdim == self.embed_dim
        self.num_heads = int(num_heads)
        self.dropout = float(dropout)
        self.batch_first = bool(batch_first)
        self.head_dim = self.embed_dim // self.num_heads
        self.add_zero_attn = bool(add_zero_attn)
        E = self.embed_dim
        dtype = dtypes.or_default_float(dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(np.empty((3 * E, E), dtype=dtype))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(np.empty((E, E), dtype=dtype))
            self.k_proj_weight = Parameter(np.empty((E, self.kdim), dtype=dtype))
            self.v_proj_weight = Parameter(np.empty((E, self.vdim), dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(np.empty((3 * E,), dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        if add_bias_kv:
            self.bias_k = Parameter(np.empty((1, 1, E), dtype=dtype))
            self.bias_v = Parameter(np.empty((1, 1, E), dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.out_proj = NonDynamicallyQuantizableLinear(E, E, bias=bias, dtype=dtype)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """PyTorch's init: xavier-uniform projections, zero biases, xavier-normal bias_k/v;
        ``out_proj.weight`` keeps ``Linear``'s init."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    # ------------------------------------------------------------------------ forward
    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask=None,
        need_weights: bool = True,
        attn_mask=None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """Attend from ``query`` to ``key`` / ``value``; returns ``(output, weights)``.

        Args:
            query, key, value: see Shape in the class docstring.
            key_padding_mask: (N, S); True (bool) marks keys to ignore (padding), a
                float mask is added to every query's scores for that key.
            need_weights: also return the attention weights (after dropout, as in
                PyTorch); ``False`` returns ``None`` and takes the fused path.
            attn_mask: (L, S) for every batch element and head, or (N * H, L, S); True
                (bool) marks pairs that may not attend, a float mask is added.
            average_attn_weights: average the returned weights over the heads.
            is_causal: with no ``attn_mask``, apply the causal mask (query i sees keys
                j <= i). With an ``attn_mask`` it is only a hint and the mask is used.
        """
        H, hd = self.num_heads, self.head_dim
        batched = self._check_inputs(query, key, value)
        if not batched:  # (L, E) -> (1, L, E), handled as batch_first
            query, key, value = _unsqueeze_same(query, key, value, 0)
        # the layout is kept as it comes: (N, L, E) with batch_axis 0, (L, N, E) with 1
        batch_axis = 0 if (self.batch_first or not batched) else 1
        seq_axis = 1 - batch_axis
        N, L, S = query.shape[batch_axis], query.shape[seq_axis], key.shape[seq_axis]

        q, k, v = self._project(query, key, value, batch_axis)  # (N, H, L|S, hd)
        extra = 0  # positions appended to the keys (bias_k, zero attention)
        if self.bias_k is not None:
            bk = self.bias_k.reshape(1, H, 1, hd).expand(N, H, 1, hd)
            bv = self.bias_v.reshape(1, H, 1, hd).expand(N, H, 1, hd)
            k, v = cat([k, bk], 2), cat([v, bv], 2)  # (N, H, S + 1, hd)
            extra += 1
        if self.add_zero_attn:
            zeros = constant(np.zeros((N, H, 1, hd), dtype=k.dtype))
            k, v = cat([k, zeros], 2), cat([v, zeros], 2)  # (N, H, S + extra, hd)
            extra += 1

        # PyTorch trusts is_causal as a hint that attn_mask is the causal mask when it
        # takes its fused path (no padding mask, no weights returned): so does minigrad
        causal = is_causal and key_padding_mask is None and not need_weights and extra == 0
        kpm = self._key_padding_mask(key_padding_mask, batched, N, S, extra)
        am = None if causal else self._attn_mask(attn_mask, batched, N, L, S, extra, is_causal)
        add, allow = _merge_masks(am, kpm, query.dtype)
        dropout_p = self.dropout if self.training else 0.0
        scale = 1.0 / math.sqrt(hd)
        w = None
        if need_weights:
            w = attention_weights(q, k, add, allow, dropout_p, scale)  # (N, H, L, S')
            o = w @ v  # (N, H, L, hd)
        else:
            mask = add if add is not None else (None if allow is None else constant(allow))
            o = scaled_dot_product_attention(
                q, k, v, attn_mask=mask, dropout_p=dropout_p, is_causal=causal, scale=scale
            )  # (N, H, L, hd), laid out in memory as q: (N, L, H, hd) | (L, N, H, hd)

        # (N, H, L, hd) -> (N, L, H, hd) | (L, N, H, hd) -> merge the heads -> out_proj
        o = o.permute(0, 2, 1, 3) if batch_axis == 0 else o.permute(2, 0, 1, 3)
        o = o.reshape(o.shape[:2] + (self.embed_dim,))  # (N, L, E) | (L, N, E)
        out = self.out_proj(o)
        if w is not None and average_attn_weights:
            w = w.mean(1)  # (N, L, S')
        if not batched:
            out = out.squeeze(0)  # (L, E)
            w = None if w is None else w.squeeze(0)
        return out, w

    # ------------------------------------------------------------------- projections
    def _project(self, query, key, value, batch_axis):
        """The three projections, split into heads: (N, H, L|S, hd) each, views of
        (N, L, H, hd) | (L, N, H, hd) arrays."""
        E, H = self.embed_dim, self.num_heads
        b = self.in_proj_bias
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            wq, wk, wv = w[:E], w[E : 2 * E], w[2 * E :]
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        bq = bk = bv = None
        if b is not None:
            bq, bk, bv = b[:E], b[E : 2 * E], b[2 * E :]
        q = _split_heads(linear(query, wq, bq), H, batch_axis)
        k = _split_heads(linear(key, wk, bk), H, batch_axis)
        v = _split_heads(linear(value, wv, bv), H, batch_axis)
        return q, k, v

    # -------------------------------------------------------------------- checking
    def _check_inputs(self, query, key, value) -> bool:
        """Validate dims and sizes; returns whether the input is batched."""
        for name, t in (("query", query), ("key", key), ("value", value)):
            _check_sequences(_NAME, name, t)
        layout = "(N, L, E)" if self.batch_first else "(L, N, E)"
        if query.ndim == 2:
            layout = "(L, E)"
        for name, t in (("key", key), ("value", value)):
            if t.ndim != query.ndim:
                raise ValueError(
                    f"{_NAME}: {name} must have as many dims as query {layout}, got query "
                    f"{shape_str(query.shape)} and {name} {shape_str(t.shape)}"
                )
        for name, t, size in (
            ("query", query, self.embed_dim),
            ("key", key, self.kdim),
            ("value", value, self.vdim),
        ):
            if t.shape[-1] != size:
                what = "embed_dim" if name == "query" else ("kdim" if name == "key" else "vdim")
                raise ValueError(
                    f"{_NAME}: {name}'s last dim must be {what}={size}, got {name} of shape "
                    f"{shape_str(t.shape)}"
                )
        if key.shape[:-1] != value.shape[:-1]:
            raise ValueError(
                f"{_NAME}: key and value must have the same batch size and sequence length, "
                f"got key {shape_str(key.shape)} and value {shape_str(value.shape)}"
            )
        if query.ndim == 3:
            axis = 0 if self.batch_first else 1
            if key.shape[axis] != query.shape[axis]:
                raise ValueError(
                    f"{_NAME}: query and key must have the same batch size N (dim {axis} of "
                    f"{layout}), got query {shape_str(query.shape)} and key "
                    f"{shape_str(key.shape)}"
                )
        return query.ndim == 3

    def _key_padding_mask(self, mask, batched, N, S, extra):
        """(N, S) -> bool 'blocked' array or float Tensor shaped (N, 1, 1, S + extra)."""
        if mask is None:
            return None
        m = as_mask("key_padding_mask", mask, _NAME)
        expected = (N, S) if batched else (S,)
        if tuple(m.shape) != expected:
            raise ValueError(
                f"{_NAME}: key_padding_mask must have shape {shape_str(expected)} "
                f"({'[N, S]' if batched else '[S]'}), got {shape_str(m.shape)}"
            )
        m = _pad_keys(m.reshape(N, 1, 1, S), extra)  # (N, 1, 1, S + extra)
        return m

    def _attn_mask(self, mask, batched, N, L, S, extra, is_causal):
        """attn_mask -> bool 'blocked' array or float Tensor, (L, S') or (N, H, L, S')."""
        if mask is None:
            if not is_causal:
                return None
            return _pad_keys(~causal_allow(L, S), extra)  # (L, S + extra)
        m = as_mask("attn_mask", mask, _NAME)
        H = self.num_heads
        if m.ndim == 2:
            if tuple(m.shape) != (L, S):
                raise ValueError(
                    f"{_NAME}: a 2-D attn_mask must have shape [L, S] = {shape_str((L, S))}, "
                    f"got {shape_str(m.shape)}"
                )
        elif m.ndim == 3:
            expected = (N * H, L, S) if batched else (H, L, S)
            if tuple(m.shape) != expected:
                what = "[N * num_heads, L, S]" if batched else "[num_heads, L, S]"
                raise ValueError(
                    f"{_NAME}: a 3-D attn_mask must have shape {what} = "
                    f"{shape_str(expected)}, got {shape_str(m.shape)}"
                )
            m = m.reshape(N, H, L, S)
        else:
            raise ValueError(
                f"{_NAME}: attn_mask must be 2-D [L, S] = {shape_str((L, S))} or 3-D "
                f"[N * num_heads, L, S] = {shape_str((N * H, L, S))}, got shape "
                f"{shape_str(m.shape)}"
            )
        return _pad_keys(m, extra)

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}, "
            f"batch_first={self.batch_first}"
        )


# ------------------------------------------------------------------------- helpers
def _check_sequences(owner: str, name: str, t) -> None:
    """``t`` must be a Tensor of sequences of vectors: 3-D (a batch) or 2-D (one
    sequence). ``owner`` and ``name`` (the layer and its argument) start the message."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{owner}: {name} must be a Tensor, got {type(t).__name__}")
    if t.ndim not in (2, 3):
        raise ValueError(
            f"{owner}: {name} must be 3-D (batched) or 2-D (unbatched), got shape "
            f"{shape_str(t.shape)}"
        )


def _split_heads(x: Tensor, num_heads: int, batch_axis: int) -> Tensor:
    """(N, seq, E) or (seq, N, E) -> (N, H, seq, hd), a view."""
    b0, b1, width = x.shape
    x = x.reshape(b0, b1, num_heads, width // num_heads)
    return x.permute(0, 2, 1, 3) if batch_axis == 0 else x.permute(1, 2, 0, 3)


def _unsqueeze_same(query, key, value, dim):
    """Unsqueeze each input once, keeping ``query is key is value`` identities."""
    q = query.unsqueeze(dim)
    k = q if key is query else key.unsqueeze(dim)
    v = k if value is key else (q if value is query else value.unsqueeze(dim))
    return q, k, v


def _pad_keys(mask, extra: int):
    """Append ``extra`` key columns that nothing blocks (False / 0.0) to a mask."""
    if extra == 0:
        return mask
    if isinstance(mask, np.ndarray):
        pad = np.zeros(mask.shape[:-1] + (extra,), dtype=mask.dtype)
        return np.concatenate([mask, pad], axis=-1)
    pad = constant(np.zeros(mask.shape[:-1] + (extra,), dtype=mask.dtype))
    return cat([mask, pad], -1)


def _merge_masks(attn_mask, key_padding_mask, dtype):
    """Combine MHA's masks into the SDPA Function's ``(add, allow)`` pair.

    Both bool (True = blocked): one ``allow`` array, True where neither blocks. Any
    float: one additive float Tensor, bools becoming 0 / -inf (a float mask that
    requires grad keeps its gradient).
    """
    masks = [m for m in (attn_mask, key_padding_mask) if m is not None]
    if not masks:
        return None, None
    if all(isinstance(m, np.ndarray) for m in masks):
        blocked = masks[0] if len(masks) == 1 else masks[0] | masks[1]
        return None, ~blocked
    add = None
    for m in masks:
        if isinstance(m, np.ndarray):
            m = constant(np.where(m, -np.inf, 0.0).astype(dtype))
        else:
            m = check_float_mask(m, dtype)
        add = m if add is None else add + m
    return add, None


__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why

"""``MultiheadAttention``: H attention heads side by side, as in PyTorch.

Each of the H heads attends in its own subspace of size ``head_dim = E / H``::

    Q = query W_q^T + b_q,  K = key W_k^T + b_k,  V = value W_v^T + b_v   # (N, L|S, E)
    split E into H heads of head_dim                                      # (N, H, L|S, hd)
    O_h = softmax(Q_h K_h^T / sqrt(hd) + M) V_h                           # (N, H, L, hd)
    out = concat_h(O_h) W_o^T + b_o                                       # (N, L, E)

``W_q, W_k, W_v`` are stacked in one ``in_proj_weight`` [3E, E] (one parameter for the
three, as in PyTorch), unless ``kdim`` / ``vdim`` differ from ``embed_dim``: then they
are the separate ``q_proj_weight`` [E, E], ``k_proj_weight`` [E, kdim] and
``v_proj_weight`` [E, vdim]. ``W_o, b_o`` are ``out_proj``'s (a ``Linear``).

The layer holds the parameters; the computation is ``F.multi_head_attention_forward``'s
(``minigrad/nn/functional/multi_head_attention.py``), called as PyTorch's layer calls it,
except that ``batch_first`` inputs are taken as they are, (N, L, E), with no transpose.

Masks (PyTorch's convention for this module, the opposite of
``F.scaled_dot_product_attention``'s): a **bool** mask marks with True the positions that
may NOT be attended; a **float** mask is added to the scores. A query whose every key is
masked gets all-zero attention weights, so its output is ``out_proj.bias``, and no
gradient flows through that row. (PyTorch returns NaN for such a row when
``need_weights=True`` and zeros when ``need_weights=False``; minigrad gives the zeros in
both cases.)
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.nn import init
from minigrad.nn.functional.multi_head_attention import multi_head_attention
from minigrad.nn.linear import NonDynamicallyQuantizableLinear
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
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
        # F.multi_head_attention_forward with this layer's parameters, in its layout
        return multi_head_attention(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            static_k=None,
            static_v=None,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
            batch_first=self.batch_first,
            owner=_NAME,
        )

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}, "
            f"batch_first={self.batch_first}"
        )


__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why

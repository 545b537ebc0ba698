"""``F.multi_head_attention_forward``: multi-head attention with its weights passed in.

The functional form of ``nn.MultiheadAttention`` (the module calls it with its own
parameters, as PyTorch's does). H heads, each in its own subspace of ``hd = E / H``::

    Q = query W_q^T + b_q,  K = key W_k^T + b_k,  V = value W_v^T + b_v   # (N, L|S, E)
    K, V += [bias_k], [bias_v];  K, V += [0]                              # optional extra keys
    split E into H heads of hd                                            # (N, H, L|S', hd)
    O_h = dropout(softmax(Q_h K_h^T / sqrt(hd) + M)) V_h                  # (N, H, L, hd)
    out = concat_h(O_h) W_o^T + b_o                                       # (N, L, E)

``W_q, W_k, W_v`` are the three row blocks of ``in_proj_weight`` [3E, E], or the separate
``q_proj_weight`` [E, E], ``k_proj_weight`` [E, kdim], ``v_proj_weight`` [E, vdim];
``b_q, b_k, b_v`` the three blocks of ``in_proj_bias`` [3E]. Each projection is its own
matmul (on a row slice of the packed weight), so Q, K and V are three contiguous arrays
and their gradients need no zero-filled [N, L, 3E] buffer to add up. ``static_k`` /
``static_v`` [N * H, S', hd] replace the projected keys / values. The heads are computed
together by ``F.scaled_dot_product_attention`` (``attention.py`` here), whose output
keeps the memory order of Q, so merging the heads afterwards is a view. With
``need_weights=True`` the weights are built from Tensor operations
(``attention_weights``), multiplied with V and returned, as PyTorch does.

Masks (PyTorch's convention here, the opposite of ``F.scaled_dot_product_attention``'s):
a **bool** ``attn_mask`` or ``key_padding_mask`` marks with True the positions that may
NOT be attended; a **float** mask is added to the scores (and gets a gradient). The extra
positions of ``bias_k`` and ``add_zero_attn`` are never masked. A query whose every key is
masked gets all-zero weights, so its output is ``out_proj_bias``, and no gradient flows
through that row (PyTorch returns NaN there when ``need_weights=True``, zeros otherwise).

``is_causal`` applies the causal mask (query i reads keys j <= i) when ``attn_mask`` is
None (PyTorch raises there instead). With an ``attn_mask`` it is a hint, trusted as PyTorch
trusts it: on the path that returns no weights and has no padding mask, the causal mask
is used in place of ``attn_mask``; on the others, ``attn_mask`` is.

Bad input raises PyTorch's exception class: ``AssertionError`` where PyTorch asserts
(``AttentionArgumentError``, ``AttentionMaskTypeError``, also ``ValueError`` /
``TypeError``), ``RuntimeError`` where its computation fails (``ShapeError``).

The layout is kept as it comes: (L, N, E) for this function (batch on axis 1), (N, L, E)
for ``nn.MultiheadAttention(batch_first=True)`` (batch on axis 0), so neither transposes.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.functions.constant import constant
from minigrad.functions.errors import ShapeError
from minigrad.nn.functional.attention import (
    as_mask,
    attention_weights,
    causal_allow,
    check_dtypes,
    check_float_mask,
    scaled_dot_product_attention,
)
from minigrad.nn.functional.linear import linear
from minigrad.ops import cat
from minigrad.printing import shape_str
from minigrad.tensor import Tensor

__all__ = ["multi_head_attention_forward"]

_NAME = "multi_head_attention_forward"


class AttentionArgumentError(ValueError, AssertionError):
    """An argument that does not fit multi-head attention, where PyTorch's check is an
    ``assert`` (``AssertionError``); a ``ValueError`` too, as minigrad raised before."""


class AttentionMaskTypeError(TypeError, AssertionError):
    """A mask that is neither bool nor floating point (PyTorch asserts it)."""


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention of ``query`` over ``key`` / ``value`` (formulas in the module
    docstring); returns ``(output, weights)``.

    Args:
        query, key, value: (L, N, E), (S, N, kdim), (S, N, vdim), or unbatched (L, E),
            (S, kdim), (S, vdim).
        embed_dim_to_check: E; the query's last dim must be it.
        num_heads: H; must divide E.
        in_proj_weight: [3E, E], W_q, W_k, W_v stacked (unless ``use_separate_proj_weight``).
        in_proj_bias: [3E] or None.
        bias_k, bias_v: [E] (or [1, E], [1, 1, E]) appended to the keys / values as one
            more position, or None (both or neither).
        add_zero_attn: append a position of zeros to the keys and values.
        dropout_p: probability of dropping an attention weight (when ``training``).
        out_proj_weight: [E, E]; out_proj_bias: [E] or None.
        training: apply dropout.
        key_padding_mask: (N, S) or (S,); True (bool) marks keys to ignore, a float mask
            is added to every query's scores for that key.
        need_weights: also return the attention weights (after dropout, as in PyTorch).
        attn_mask: (L, S) for every batch element and head, or (N * H, L, S) ((H, L, S)
            unbatched); True (bool) marks pairs that may not attend, a float mask is added.
        use_separate_proj_weight: take ``q_proj_weight`` [E, E], ``k_proj_weight``
            [E, kdim], ``v_proj_weight`` [E, vdim] instead of ``in_proj_weight``.
        static_k, static_v: [N * H, S', hd], used as the heads' keys / values instead of
            projecting ``key`` / ``value``.
        average_attn_weights: average the returned weights over the heads.
        is_causal: the causal mask (see the module docstring).

    Returns:
        output (L, N, E) ((L, E) unbatched) and the weights (N, L, S'') averaged over the
        heads or (N, H, L, S''), S'' counting the extra key positions (without N when
        unbatched), or None when ``need_weights`` is False.

    Example::

        >>> E, H = 8, 2
        >>> x = mg.randn(5, 3, E)                                  # (L, N, E)
        >>> w_in, w_out = mg.randn(3 * E, E), mg.randn(E, E)
        >>> out, w = F.multi_head_attention_forward(
        ...     x, x, x, E, H, w_in, None, None, None, False, 0.0, w_out, None)
        >>> out.shape, w.shape
        ((5, 3, 8), (3, 5, 5))
    """
    # every argument by name, in the layout PyTorch's function takes: (L, N, E)
    return multi_head_attention(**locals(), batch_first=False, owner=_NAME)


def multi_head_attention(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training,
    key_padding_mask,
    need_weights,
    attn_mask,
    use_separate_proj_weight,
    q_proj_weight,
    k_proj_weight,
    v_proj_weight,
    static_k,
    static_v,
    average_attn_weights,
    is_causal,
    *,
    batch_first: bool,
    owner: str,
):
    """``multi_head_attention_forward`` for (N, L, E) inputs too (``batch_first``), with
    ``owner`` (the function or the layer) starting each error message."""
    batched = _check_inputs(owner, query, key, value, embed_dim_to_check, num_heads)
    E, H = embed_dim_to_check, num_heads
    hd = E // H
    if training and not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"{owner}: dropout_p must be in [0, 1], got {dropout_p}")
    if not batched:  # (L, E) -> (1, L, E), handled as batch_first
        query, key, value = _unsqueeze_same(query, key, value, 0)
    batch_axis = 0 if (batch_first or not batched) else 1
    seq_axis = 1 - batch_axis
    _check_batch(owner, query, key, batch_axis)
    N, L, S = query.shape[batch_axis], query.shape[seq_axis], key.shape[seq_axis]

    wq, wk, wv = _projection_weights(
        owner, E, in_proj_weight, use_separate_proj_weight, q_proj_weight, k_proj_weight,
        v_proj_weight, key, value,
    )  # fmt: skip
    bq, bk, bv = _split_bias(owner, in_proj_bias, E)
    _check_out_proj(owner, out_proj_weight, out_proj_bias, E)
    q = _split_heads(linear(query, wq, bq), H, batch_axis)  # (N, H, L, hd)
    k = _static_heads(owner, "static_k", static_k, N, H, hd)
    v = _static_heads(owner, "static_v", static_v, N, H, hd)
    if k is None:
        k = _split_heads(linear(key, wk, bk), H, batch_axis)  # (N, H, S, hd)
    if v is None:
        v = _split_heads(linear(value, wv, bv), H, batch_axis)  # (N, H, S, hd)
    if k.shape[2] != v.shape[2]:
        raise ShapeError(
            f"{owner}: keys and values must have as many positions, got {k.shape[2]} and "
            f"{v.shape[2]} (static_k / static_v replace the projected key / value)"
        )
    keys = k.shape[2]  # S, or the static keys' S'

    extra = 0  # positions appended to the keys (bias_k, zero attention)
    if _bias_kv(owner, bias_k, bias_v, static_k, static_v, E):
        bk4 = bias_k.reshape(1, H, 1, hd).expand(N, H, 1, hd)
        bv4 = bias_v.reshape(1, H, 1, hd).expand(N, H, 1, hd)
        k, v = cat([k, bk4], 2), cat([v, bv4], 2)  # (N, H, S + 1, hd)
        extra += 1
    if add_zero_attn:
        zeros = constant(np.zeros((N, H, 1, hd), dtype=k.dtype))
        k, v = cat([k, zeros], 2), cat([v, zeros], 2)  # (N, H, S + extra, hd)
        extra += 1

    # PyTorch trusts is_causal as a hint that attn_mask is the causal mask when it
    # takes its fused path (no padding mask, no weights returned): so does minigrad
    causal = is_causal and key_padding_mask is None and not need_weights and extra == 0
    kpm = _key_padding_mask(owner, key_padding_mask, batched, N, keys, extra)
    am = None
    if not causal:
        am = _attn_mask(owner, attn_mask, batched, N, H, L, S, keys, extra, is_causal)
    add, allow = _merge_masks(am, kpm, query.dtype)
    p = dropout_p if training else 0.0
    scale = 1.0 / math.sqrt(hd)
    w = None
    if need_weights:
        w = attention_weights(q, k, add, allow, p, scale)  # (N, H, L, S')
        o = w @ v  # (N, H, L, hd)
    else:
        mask = add if add is not None else (None if allow is None else constant(allow))
        o = scaled_dot_product_attention(
            q, k, v, attn_mask=mask, dropout_p=p, is_causal=causal, scale=scale
        )  # (N, H, L, hd), laid out in memory as q: (N, L, H, hd) | (L, N, H, hd)

    # (N, H, L, hd) -> (N, L, H, hd) | (L, N, H, hd) -> merge the heads -> out_proj
    o = o.permute(0, 2, 1, 3) if batch_axis == 0 else o.permute(2, 0, 1, 3)
    o = o.reshape(o.shape[:2] + (E,))  # (N, L, E) | (L, N, E)
    out = linear(o, out_proj_weight, out_proj_bias)
    if w is not None and average_attn_weights:
        w = w.mean(1)  # (N, L, S')
    if not batched:
        out = out.squeeze(0)  # (L, E)
        w = None if w is None else w.squeeze(0)
    return out, w


# -------------------------------------------------------------------- checking
def check_sequences(owner: str, name: str, t) -> None:
    """``t`` must be a Tensor of sequences of vectors: 3-D (a batch) or 2-D (one
    sequence). ``owner`` and ``name`` (the layer and its argument) start the message."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{owner}: {name} must be a Tensor, got {type(t).__name__}")
    if t.ndim not in (2, 3):
        raise AttentionArgumentError(
            f"{owner}: {name} must be 3-D (batched) or 2-D (unbatched), got shape "
            f"{shape_str(t.shape)}"
        )


def _check_inputs(owner, query, key, value, embed_dim, num_heads) -> bool:
    """Validate the inputs' dims, dtypes and the head split; returns whether batched."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        check_sequences(owner, name, t)
    for name, t in (("key", key), ("value", value)):
        if t.ndim != query.ndim:
            raise AttentionArgumentError(
                f"{owner}: {name} must have as many dims as query, got query "
                f"{shape_str(query.shape)} and {name} {shape_str(t.shape)}"
            )
    check_dtypes(owner, query, key, value)
    if query.shape[-1] != embed_dim:
        raise AttentionArgumentError(
            f"{owner}: query's last dim must be embed_dim={embed_dim}, got query of shape "
            f"{shape_str(query.shape)}"
        )
    if num_heads <= 0 or embed_dim % num_heads != 0:
        raise AttentionArgumentError(
            f"{owner}: embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})"
        )
    if key.shape[:-1] != value.shape[:-1]:
        raise AttentionArgumentError(
            f"{owner}: key and value must have the same batch size and sequence length, "
            f"got key {shape_str(key.shape)} and value {shape_str(value.shape)}"
        )
    return query.ndim == 3


def _check_batch(owner, query, key, batch_axis) -> None:
    if key.shape[batch_axis] != query.shape[batch_axis]:
        raise ShapeError(
            f"{owner}: query and key must have the same batch size N (dim {batch_axis}), "
            f"got query {shape_str(query.shape)} and key {shape_str(key.shape)}"
        )


def _check_weight(owner, name, w, shape, error) -> None:
    if w is None or not isinstance(w, Tensor):
        raise AttentionArgumentError(f"{owner}: {name} must be a Tensor, got {w!r}")
    if tuple(w.shape) != shape:
        raise error(f"{owner}: {name} must have shape {shape_str(shape)}, got {shape_str(w.shape)}")


def _projection_weights(owner, E, packed, separate, wq, wk, wv, key, value):
    """W_q, W_k, W_v: row blocks of ``packed`` [3E, E], or the three separate weights."""
    if not separate:
        if packed is None:
            raise AttentionArgumentError(
                f"{owner}: use_separate_proj_weight is False but in_proj_weight is None"
            )
        _check_weight(owner, "in_proj_weight", packed, (3 * E, E), ShapeError)
        for name, t in (("key", key), ("value", value)):
            if t.shape[-1] != E:
                raise ShapeError(
                    f"{owner}: {name}'s last dim must be embed_dim={E} (in_proj_weight is "
                    f"[{3 * E}, {E}]), got {name} of shape {shape_str(t.shape)}"
                )
        return packed[:E], packed[E : 2 * E], packed[2 * E :]
    for name, w, t in (("q", wq, None), ("k", wk, key), ("v", wv, value)):
        if w is None:
            raise AttentionArgumentError(
                f"{owner}: use_separate_proj_weight is True but {name}_proj_weight is None"
            )
        width = E if t is None else t.shape[-1]
        _check_weight(owner, f"{name}_proj_weight", w, (E, width), AttentionArgumentError)
    return wq, wk, wv


def _split_bias(owner, bias, E):
    """b_q, b_k, b_v: the three blocks of ``in_proj_bias`` [3E] (None, None, None without)."""
    if bias is None:
        return None, None, None
    _check_weight(owner, "in_proj_bias", bias, (3 * E,), ShapeError)
    return bias[:E], bias[E : 2 * E], bias[2 * E :]


def _check_out_proj(owner, weight, bias, E) -> None:
    _check_weight(owner, "out_proj_weight", weight, (E, E), ShapeError)
    if bias is not None:
        _check_weight(owner, "out_proj_bias", bias, (E,), ShapeError)


def _bias_kv(owner, bias_k, bias_v, static_k, static_v, E) -> bool:
    """Whether bias_k / bias_v are appended (checking they come together and fit)."""
    if bias_k is None and bias_v is None:
        return False
    if bias_k is None or bias_v is None:
        given, missing = ("bias_k", "bias_v") if bias_v is None else ("bias_v", "bias_k")
        raise AttentionArgumentError(f"{owner}: {given} is set but {missing} is None")
    if static_k is not None or static_v is not None:
        raise AttentionArgumentError(
            f"{owner}: bias_k / bias_v cannot be added to static_k / static_v"
        )
    for name, b in (("bias_k", bias_k), ("bias_v", bias_v)):
        if b.ndim > 3 or b.shape[-1:] != (E,) or b.numel() != E:
            raise ShapeError(
                f"{owner}: {name} must have shape [E], [1, E] or [1, 1, E] with E={E}, got "
                f"{shape_str(b.shape)}"
            )
    return True


def _static_heads(owner, name, t, N, H, hd):
    """``static_k`` / ``static_v`` [N * H, S', hd] -> (N, H, S', hd); None stays None."""
    if t is None:
        return None
    if not isinstance(t, Tensor) or t.ndim != 3:
        raise AttentionArgumentError(f"{owner}: {name} must be a 3-D Tensor [N * H, S, hd]")
    if t.shape[0] != N * H or t.shape[2] != hd:
        raise AttentionArgumentError(
            f"{owner}: {name} must have shape [N * num_heads, S, head_dim] = "
            f"[{N * H}, S, {hd}], got {shape_str(t.shape)}"
        )
    return t.reshape(N, H, t.shape[1], hd)


def _mask(owner, name, mask):
    """``mask`` as a bool ndarray or a float Tensor (PyTorch asserts one of the two)."""
    dtype = mask.dtype if isinstance(mask, Tensor) else np.asarray(mask).dtype
    if dtype != np.bool_ and dtype.kind != "f":
        raise AttentionMaskTypeError(
            f"{owner}: {name} must be a bool or floating-point tensor, got dtype {dtype}"
        )
    return as_mask(name, mask, owner)


def _key_padding_mask(owner, mask, batched, N, S, extra):
    """(N, S) -> bool 'blocked' array or float Tensor shaped (N, 1, 1, S + extra)."""
    if mask is None:
        return None
    m = _mask(owner, "key_padding_mask", mask)
    expected = (N, S) if batched else (S,)
    if tuple(m.shape) != expected:
        raise AttentionArgumentError(
            f"{owner}: key_padding_mask must have shape {shape_str(expected)} "
            f"({'[N, S]' if batched else '[S]'}), got {shape_str(m.shape)}"
        )
    return _pad_keys(m.reshape(N, 1, 1, S), extra)  # (N, 1, 1, S + extra)


def _attn_mask(owner, mask, batched, N, H, L, S, keys, extra, is_causal):
    """attn_mask -> bool 'blocked' array or float Tensor, (L, S') or (N, H, L, S').

    ``S`` is the key's length, which the mask must have; ``keys`` the number of keys
    attended (``static_k``'s), which must then be the same."""
    if mask is None:
        if not is_causal:
            return None
        return _pad_keys(~causal_allow(L, keys), extra)  # (L, S + extra)
    m = _mask(owner, "attn_mask", mask)
    if m.ndim == 2:
        if tuple(m.shape) != (L, S):
            raise ShapeError(
                f"{owner}: a 2-D attn_mask must have shape [L, S] = {shape_str((L, S))}, "
                f"got {shape_str(m.shape)}"
            )
    elif m.ndim == 3:
        expected = (N * H, L, S) if batched else (H, L, S)
        if tuple(m.shape) != expected:
            what = "[N * num_heads, L, S]" if batched else "[num_heads, L, S]"
            error = ShapeError if batched else AttentionArgumentError
            raise error(
                f"{owner}: a 3-D attn_mask must have shape {what} = "
                f"{shape_str(expected)}, got {shape_str(m.shape)}"
            )
        m = m.reshape(N, H, L, S)
    else:
        raise AttentionArgumentError(
            f"{owner}: attn_mask must be 2-D [L, S] = {shape_str((L, S))} or 3-D "
            f"[N * num_heads, L, S] = {shape_str((N * H, L, S))}, got shape "
            f"{shape_str(m.shape)}"
        )
    if keys != S:
        raise ShapeError(f"{owner}: attn_mask has the key's {S} positions, but static_k has {keys}")
    return _pad_keys(m, extra)


# ---------------------------------------------------------------------- helpers
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
    """Combine the two masks into the SDPA Function's ``(add, allow)`` pair.

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

"""Scaled dot-product attention: the one attention formula every layer here uses.

For queries ``Q`` [..., L, E], keys ``K`` [..., S, E] and values ``V`` [..., S, Ev]::

    scores = Q K^T * scale + M          # (..., L, S); M: the additive mask (0 or -inf)
    P      = softmax(scores, dim=-1)    # (..., L, S); row i: how much query i reads key j
    P'     = dropout(P)                 # only when dropout_p > 0
    out    = P' V                       # (..., L, Ev)

The whole of it is one autograd ``Function`` with a closed-form backward in five batched
matmuls, saving ``Q`` and ``Q * scale``, ``K``, ``V``, ``P`` and the dropout mask (``Q``
itself for the recorded backward below)::

    dV = P'^T dO                        # (..., S, Ev)
    dP = (dO V^T) * D                   # (..., L, S); D: the kept/(1 - p) dropout mask
    dS = P * (dP - rowsum(dP * P))      # softmax backward; also d(out)/d(float mask)
    dQ = dS K * scale                   # (..., L, E)
    dK = dS^T Q * scale                 # (..., S, E)

When the backward is itself recorded (``create_graph=True``, for second derivatives) the
same formulas run in Tensor operations instead, so that they can be differentiated again.

A row whose every key is masked (all ``-inf`` scores) has no softmax; here its weights
are all zero, so the row's output is zero and no gradient flows through it (PyTorch's
``scaled_dot_product_attention`` does the same).

Three Functions share these formulas: ``ScaledDotProductAttention`` (behind
``F.scaled_dot_product_attention``), ``PackedSelfAttention`` (the same with Q, K, V packed
in one tensor, for ``MultiheadAttention``'s self-attention) and ``AttentionWeights`` (the
weights alone, when ``MultiheadAttention`` is asked to return them).

The softmax is NumPy's: its vectorised ``exp`` beat a Numba loop over rows (Numba's
``exp`` is scalar without Intel's SVML), measured on the scores of
``MultiheadAttention(128, 4)`` over a [32, 64, 128] batch.
"""

from __future__ import annotations

import functools

import numpy as np

from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import _state
from minigrad.functions.broadcast import unbroadcast
from minigrad.nn.functional.dropout import dropout_mask
from minigrad.ops import stack
from minigrad.tensor import Tensor

__all__ = ["scaled_dot_product_attention"]


def _shape_str(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _const(arr: np.ndarray) -> Tensor:
    return Tensor._make(arr, False, None)


@functools.lru_cache(maxsize=32)
def causal_allow(L: int, S: int) -> np.ndarray:
    """The causal pattern as a bool [L, S] array, True where query i may read key j (j <= i).

    Aligned top-left like PyTorch's ``is_causal`` (query i sees keys 0..i). Read-only: it
    is cached and shared.
    """
    allow = np.tril(np.ones((L, S), dtype=bool))
    allow.setflags(write=False)
    return allow


# ------------------------------------------------------------------ softmax over rows
def _softmax_rows(scores: np.ndarray, masked: bool):
    """Softmax over the last axis, in place. Returns ``(P, dead)``.

    Stable: the row maximum is subtracted before ``exp``. Only a masked input can have a
    row of all ``-inf`` (its maximum is ``-inf``): ``dead`` marks those rows (..., L, 1),
    or is None when there are none. Their maximum is replaced by 0 so ``exp`` gives
    zeros, and their zero sum by 1 so the division leaves them zero.
    """
    m = scores.max(axis=-1, keepdims=True)  # (..., L, 1)
    dead = None
    if masked:
        dead = m == -np.inf
        if dead.any():
            m[dead] = 0
        else:
            dead = None
    np.subtract(scores, m, out=scores)
    np.exp(scores, out=scores)
    total = scores.sum(axis=-1, keepdims=True)  # (..., L, 1)
    if dead is not None:
        total[dead] = 1
    np.divide(scores, total, out=scores)
    return scores, dead


def _softmax_backward_rows(p: np.ndarray, dp: np.ndarray) -> np.ndarray:
    """dS = P * (dP - rowsum(dP * P)), written into ``dp``."""
    row = np.einsum("...j,...j->...", dp, p)[..., None]  # (..., L, 1), no temporary
    np.subtract(dp, row, out=dp)
    np.multiply(dp, p, out=dp)
    return dp


# ------------------------------------------------------------------- the core, on arrays
def _swap(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _weights_arrays(q, k, add, allow, scale, dropout_p, out_batch):
    """Forward up to the attention weights. Returns ``(qs, p, keep, dead)``, arrays.

    Args:
        q, k: arrays [..., L, E] and [..., S, E].
        add: the additive float mask (an array broadcastable to the scores) or None.
        allow: a bool array broadcastable to the scores, True where attending is
            allowed, or None.
        out_batch: the broadcast batch shape of everything (scores are out_batch + (L, S)).

    ``qs`` is Q * scale (the backward uses it for dK); ``keep`` is None without dropout,
    else the float mask kept / (1 - p); ``dead`` marks the rows (..., L, 1) whose every
    key is masked, or is None when there are none.
    """
    qs = q * np.asarray(scale, dtype=q.dtype)  # (..., L, E): cheaper to scale than the scores
    scores = np.matmul(qs, _swap(k))  # (..., L, S)
    shape = out_batch + scores.shape[-2:]
    if scores.shape != shape:
        scores = np.array(np.broadcast_to(scores, shape))
    if add is not None:
        scores += add
    if allow is not None:
        np.copyto(scores, -np.inf, where=~allow)
    p, dead = _softmax_rows(scores, add is not None or allow is not None)  # (..., L, S)
    keep = dropout_mask(p.shape, p.dtype, dropout_p) if dropout_p > 0 else None
    return qs, p, keep, dead


def _scores_backward_arrays(ds, qs, k, scale, need_q, need_k, out_q=None, out_k=None):
    """dQ = dS K * scale, dK = dS^T (Q * scale); written into ``out_*`` when given."""
    dq = dk = None
    if need_q:
        dq = np.matmul(ds, k, out=out_q)  # (..., L, E)
        dq *= scale
    if need_k:
        dk = np.matmul(_swap(ds), qs, out=out_k)  # (..., S, E)
    return dq, dk


def _backward_arrays(go, qs, k, v, p, keep, scale, needs, outs=(None, None, None)):
    """dQ, dK, dV and dS (the scores' gradient) from dO, all arrays; see the docstring."""
    dv = None
    if needs[2]:
        pd = p if keep is None else p * keep  # (..., L, S)
        dv = np.matmul(_swap(pd), go, out=outs[2])  # (..., S, Ev)
    dp = np.matmul(go, _swap(v))  # (..., L, S)
    if keep is not None:
        dp *= keep
    ds = _softmax_backward_rows(p, dp)  # (..., L, S), in place in dp
    dq, dk = _scores_backward_arrays(ds, qs, k, scale, needs[0], needs[1], outs[0], outs[1])
    return dq, dk, dv, ds


# --------------------------------------------- the same, in Tensor operations (create_graph)
def _weights_tensor(q, k, add, allow, scale, dead):
    """The attention weights P in Tensor operations, differentiable again."""
    scores = (q @ k.mT) * scale  # (..., L, S)
    if add is not None:
        scores = scores + add
    if allow is not None:
        scores = scores.masked_fill(_const(~allow), -np.inf)
    if dead is not None:  # rows with every key masked: softmax of zeros, then zeroed
        scores = scores.masked_fill(_const(dead), 0.0)
    p = scores.softmax(-1)
    if dead is not None:
        p = p.masked_fill(_const(dead), 0.0)
    return p


def _softmax_backward_tensor(p, dp):
    return p * (dp - (dp * p).sum(-1, keepdim=True))


def _backward_tensor(g, q, k, v, add, allow, keep, scale, dead):
    """dQ, dK, dV, dS as differentiable Tensor operations (unreduced batch dims)."""
    p = _weights_tensor(q, k, add, allow, scale, dead)  # (..., L, S)
    kt = None if keep is None else _const(keep)
    pd = p if kt is None else p * kt
    dv = pd.mT @ g  # (..., S, Ev)
    dp = g @ v.mT  # (..., L, S)
    if kt is not None:
        dp = dp * kt
    ds = _softmax_backward_tensor(p, dp)
    return (ds @ k) * scale, (ds.mT @ q) * scale, dv, ds


def _unbroadcast_array(arr, shape):
    if arr is None:
        return None
    t = arr if isinstance(arr, Tensor) else _const(arr)
    return unbroadcast(t, shape)


# ------------------------------------------------------------------------- Functions
class ScaledDotProductAttention(Function):
    """softmax(Q K^T * scale + M) V with dropout on the weights; see the module docstring.

    ``apply(q, k, v, add, allow, dropout_p, scale, out_batch)``: ``add`` is the float mask
    (a Tensor, it may require grad) or None, ``allow`` the bool mask array or None.
    """

    @staticmethod
    def forward(ctx, q, k, v, add, allow, dropout_p, scale, out_batch):
        add_data = None if add is None else add._data
        qs, p, keep, dead = _weights_arrays(
            q._data, k._data, add_data, allow, scale, dropout_p, out_batch
        )
        pd = p if keep is None else p * keep  # (..., L, S)
        out = np.matmul(pd, v._data)  # (..., L, Ev)
        ctx.save_for_backward(q, k, v, add, qs, p, keep)
        ctx.allow, ctx.scale, ctx.dead = allow, scale, dead
        return out

    @staticmethod
    def backward(ctx, g):
        q, k, v, add, qs, p, keep = ctx.saved_tensors
        needs = ctx.needs_input_grad
        if _state.enabled:  # create_graph: differentiable formulas in Tensor operations
            grads = _backward_tensor(g, q, k, v, add, ctx.allow, keep, ctx.scale, ctx.dead)
        else:
            grads = _backward_arrays(g._data, qs, k._data, v._data, p, keep, ctx.scale, needs)
        dq, dk, dv, ds = grads
        return (
            _unbroadcast_array(dq, q.shape) if needs[0] else None,
            _unbroadcast_array(dk, k.shape) if needs[1] else None,
            _unbroadcast_array(dv, v.shape) if needs[2] else None,
            _unbroadcast_array(ds, add.shape) if needs[3] else None,
            None,
            None,
            None,
            None,
        )


class PackedSelfAttention(Function):
    """Self-attention with Q, K, V packed in one tensor ``qkv`` [3, ..., L, E].

    The same formulas as ``ScaledDotProductAttention``, for ``MultiheadAttention``'s
    self-attention, where Q, K, V are three slices of one projection. Taking the packed
    tensor lets the backward write dQ, dK, dV straight into one gradient laid out like
    the projection's output (no zero-filled per-slice gradients to add up), and
    ``out_order`` lets the forward write its result in the memory order the caller
    wants next: the output (..., L, E) is a transposed view of a buffer whose axes are
    ``out_order`` (MultiheadAttention asks for (N, L, H, hd), so merging the heads is
    free).

    ``apply(qkv, add, allow, dropout_p, scale, out_order)``; the masks must broadcast to
    the batch dims of Q.
    """

    @staticmethod
    def forward(ctx, qkv, add, allow, dropout_p, scale, out_order):
        q, k, v = qkv._data[0], qkv._data[1], qkv._data[2]
        add_data = None if add is None else add._data
        qs, p, keep, dead = _weights_arrays(q, k, add_data, allow, scale, dropout_p, q.shape[:-2])
        pd = p if keep is None else p * keep  # (..., L, S)
        shape = q.shape[:-1] + v.shape[-1:]
        buf = np.empty(tuple(shape[i] for i in out_order), dtype=q.dtype)
        out = buf.transpose(tuple(np.argsort(out_order)))  # (..., L, E), a view
        np.matmul(pd, v, out=out)
        ctx.save_for_backward(qkv, add, qs, p, keep)
        ctx.allow, ctx.scale, ctx.dead = allow, scale, dead
        return out

    @staticmethod
    def backward(ctx, g):
        qkv, add, qs, p, keep = ctx.saved_tensors
        needs = ctx.needs_input_grad
        if _state.enabled:
            q, k, v = qkv[0], qkv[1], qkv[2]
            dq, dk, dv, ds = _backward_tensor(g, q, k, v, add, ctx.allow, keep, ctx.scale, ctx.dead)
            dqkv = stack([dq, dk, dv]) if needs[0] else None
        else:
            dqkv = None
            outs = (None, None, None)
            if needs[0]:
                dqkv = np.empty_like(qkv._data)  # keeps qkv's memory layout
                outs = (dqkv[0], dqkv[1], dqkv[2])
            k, v = qkv._data[1], qkv._data[2]
            need3 = (needs[0],) * 3
            *_, ds = _backward_arrays(g._data, qs, k, v, p, keep, ctx.scale, need3, outs)
        dmask = _unbroadcast_array(ds, add.shape) if needs[1] else None
        return dqkv, dmask, None, None, None, None


class AttentionWeights(Function):
    """P' = dropout(softmax(Q K^T * scale + M)): the weights alone, for ``need_weights``.

    ``MultiheadAttention`` uses it when the caller wants the weights back; the output is
    then ``P' @ V`` as an ordinary matmul. Backward: ``dP = dP' * D``, then as in
    ``ScaledDotProductAttention``.

    ``apply(q, k, add, allow, dropout_p, scale, out_batch)``.
    """

    @staticmethod
    def forward(ctx, q, k, add, allow, dropout_p, scale, out_batch):
        add_data = None if add is None else add._data
        qs, p, keep, dead = _weights_arrays(
            q._data, k._data, add_data, allow, scale, dropout_p, out_batch
        )
        ctx.save_for_backward(q, k, add, qs, p, keep)  # p may be the output itself
        ctx.allow, ctx.scale, ctx.dead = allow, scale, dead
        return p if keep is None else p * keep

    @staticmethod
    def backward(ctx, g):
        q, k, add, qs, p, keep = ctx.saved_tensors
        needs = ctx.needs_input_grad
        if _state.enabled:
            pt = _weights_tensor(q, k, add, ctx.allow, ctx.scale, ctx.dead)
            dp = g if keep is None else g * _const(keep)
            ds = _softmax_backward_tensor(pt, dp)
            dq, dk = (ds @ k) * ctx.scale, (ds.mT @ q) * ctx.scale
        else:
            p = p._data if isinstance(p, Tensor) else p  # a saved output comes back a Tensor
            dp = g._data * keep if keep is not None else g._data.copy()
            ds = _softmax_backward_rows(p, dp)
            dq, dk = _scores_backward_arrays(ds, qs, k._data, ctx.scale, needs[0], needs[1])
        return (
            _unbroadcast_array(dq, q.shape) if needs[0] else None,
            _unbroadcast_array(dk, k.shape) if needs[1] else None,
            _unbroadcast_array(ds, add.shape) if needs[2] else None,
            None,
            None,
            None,
            None,
        )


# --------------------------------------------------------------------------- checking
def check_float_mask(mask: Tensor, dtype) -> Tensor:
    """A float mask in the query's dtype (a cast that keeps its gradient)."""
    return mask if mask.dtype == dtype else mask.to(dtype)


def as_mask(name: str, mask, fn: str):
    """``mask`` as a bool ndarray or a float Tensor; any other dtype is an error."""
    if isinstance(mask, Tensor):
        arr = mask._data
    else:
        arr = np.asarray(mask)
        mask = None
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind != "f":
        raise TypeError(
            f"{fn}: {name} must be a bool or floating-point tensor, got dtype {arr.dtype}"
        )
    return mask if mask is not None else _const(arr)


def _batch_shape(fn: str, named_shapes) -> tuple:
    """Broadcast the batch dims (all but the last two) of several named shapes."""
    try:
        return np.broadcast_shapes(*(s[:-2] for _, s in named_shapes))
    except ValueError:
        detail = ", ".join(f"{n} {_shape_str(s)}" for n, s in named_shapes)
        raise ValueError(
            f"{fn}: the batch dimensions (all but the last two) do not broadcast: {detail}"
        ) from None


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
) -> Tensor:
    """Attention of ``query`` over ``key`` / ``value``: softmax(Q K^T * scale + M) V.

    Args:
        query: [..., L, E].
        key: [..., S, E].
        value: [..., S, Ev].
        attn_mask: broadcastable to [..., L, S]. A **bool** mask marks with True the
            positions that MAY be attended (PyTorch's convention for this function; the
            opposite of ``MultiheadAttention``'s); a **float** mask is added to the scores
            (and receives a gradient if it requires one).
        dropout_p: probability of zeroing each attention weight (the kept ones are scaled
            by 1 / (1 - p)). Applied whenever it is > 0: pass 0.0 in evaluation.
        is_causal: attend only to keys j <= i (a lower-triangular [L, S] mask, aligned
            top-left). Cannot be combined with ``attn_mask``.
        scale: the factor on the scores, default 1 / sqrt(E).

    Returns:
        [..., L, Ev], the batch dims broadcast. A query row whose every key is masked
        gets zeros (and no gradient).

    Example::

        >>> q = mg.randn(2, 4, 5, 8)            # (N, H, L, E)
        >>> k = v = mg.randn(2, 4, 7, 8)        # (N, H, S, E)
        >>> F.scaled_dot_product_attention(q, k, v).shape
        (2, 4, 5, 8)
    """
    fn = "scaled_dot_product_attention"
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}: {name} must be a Tensor, got {type(t).__name__}")
        if t.ndim < 2:
            raise ValueError(
                f"{fn}: {name} must have at least 2 dims [..., length, features], got shape "
                f"{_shape_str(t.shape)}"
            )
        if t.dtype.kind != "f":
            raise TypeError(f"{fn}: {name} must be floating point, got dtype {t.dtype}")
    if key.dtype != query.dtype or value.dtype != query.dtype:
        raise TypeError(
            f"{fn}: query, key and value must have the same dtype, got {query.dtype}, "
            f"{key.dtype} and {value.dtype}"
        )
    L, E = query.shape[-2:]
    S = key.shape[-2]
    if key.shape[-1] != E:
        raise ValueError(
            f"{fn}: key must have the query's feature size {E} in its last dim, got key "
            f"{_shape_str(key.shape)} and query {_shape_str(query.shape)}"
        )
    if value.shape[-2] != S:
        raise ValueError(
            f"{fn}: value must have as many positions as key ({S}) in dim -2, got value "
            f"{_shape_str(value.shape)} and key {_shape_str(key.shape)}"
        )
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"{fn}: dropout_p must be in [0, 1], got {dropout_p}")
    named = [("query", query.shape), ("key", key.shape), ("value", value.shape)]
    add = allow = None
    if is_causal:
        if attn_mask is not None:
            raise ValueError(f"{fn}: attn_mask cannot be given together with is_causal=True")
        allow = causal_allow(L, S)
    elif attn_mask is not None:
        mask = as_mask("attn_mask", attn_mask, fn)
        mshape = mask.shape
        if len(mshape) < 2:
            mshape = (1,) * (2 - len(mshape)) + tuple(mshape)
        try:
            np.broadcast_shapes(mshape[-2:], (L, S))
        except ValueError:
            raise ValueError(
                f"{fn}: attn_mask of shape {_shape_str(mask.shape)} does not broadcast to "
                f"the scores' shape [..., L, S] = [..., {L}, {S}]"
            ) from None
        named.append(("attn_mask", mshape))
        if isinstance(mask, np.ndarray):
            allow = mask
        else:
            add = check_float_mask(mask, query.dtype)
    out_batch = _batch_shape(fn, named)
    if scale is None:
        scale = 1.0 / float(np.sqrt(E))
    return ScaledDotProductAttention.apply(
        query, key, value, add, allow, float(dropout_p), float(scale), out_batch
    )

"""Scaled dot-product attention: the one attention formula every layer here uses.

For queries ``Q`` [..., L, E], keys ``K`` [..., S, E] and values ``V`` [..., S, Ev]::

    scores = Q K^T * scale + M          # (..., L, S); M: the additive mask (0 or -inf)
    P      = softmax(scores, dim=-1)    # (..., L, S); row i: how much query i reads key j
    P'     = dropout(P)                 # only when dropout_p > 0
    out    = P' V                       # (..., L, Ev)

It is one autograd ``Function``, ``ScaledDotProductAttention``, with a closed-form
backward in four batched matmuls and the softmax backward, saving ``Q``, ``K``, ``V``,
``P`` and (with dropout) the mask ``D``::

    dV = P'^T dO                        # (..., S, Ev)
    dP = (dO V^T) * D                   # (..., L, S); D: the kept/(1 - p) dropout mask
    dS = P * (dP - rowsum(dP * P))      # softmax backward; also d(out)/d(float mask)
    dQ = dS K * scale                   # (..., L, E)
    dK = dS^T Q * scale                 # (..., S, E)

(with ``P * D = P'``: ``dS = P' * (dO V^T) - P * rowsum(P' * (dO V^T))``). The products
are NumPy's batched matmuls (BLAS); the mask, softmax and dropout between them, and the
softmax backward, run as one fused pass per row in ``minigrad/kernels/attention.py``
(float32 / float64; other dtypes take the same formulas in NumPy, ``_softmax_rows``).
``scale`` is applied inside those passes, so neither Q nor the scores are copied to
scale them. ``is_causal`` tells the kernel to skip the keys past the diagonal.

The output, and dQ, dK, dV, keep the memory order of their tensors (as PyTorch's
``empty_like`` does): for the heads of ``MultiheadAttention``, views (N, H, L, hd) of
(N, L, H, hd) arrays, merging the heads after attention is then free.

When the backward is itself recorded (``create_graph=True``, for second derivatives) the
same formulas run in Tensor operations instead, so that they can be differentiated again;
``attention_weights`` builds the weights alone from those operations (for
``MultiheadAttention(need_weights=True)``).

A row whose every key is masked (all ``-inf`` scores) has no softmax; here its weights
are all zero, so the row's output is zero and no gradient flows through it (PyTorch's
``scaled_dot_product_attention`` does the same). With no keys at all (S = 0) every row
is such a row.
"""

from __future__ import annotations

import functools

import numpy as np

from minigrad.amp.autocast_mode import lower_precision
from minigrad.autograd.function import Function
from minigrad.functions.broadcast import unbroadcast
from minigrad.functions.constant import constant
from minigrad.functions.errors import DtypeError, DtypeMismatchError
from minigrad.nn.functional.dropout import dropout_mask
from minigrad.printing import shape_str
from minigrad.tensor import Tensor

__all__ = ["scaled_dot_product_attention"]

_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


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
def _swap(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _as_blocks(a: np.ndarray) -> np.ndarray:
    """A [..., L, S] array as [B1, B2, L, S] (a view of a C-contiguous array)."""
    lead = a.shape[:-2]
    if len(lead) == 2:
        return a
    if len(lead) < 2:
        return a.reshape((1,) * (2 - len(lead)) + a.shape)
    return a.reshape((-1, lead[-1]) + a.shape[-2:])


def _softmax_rows(scores, bias, keep, scale, causal):
    """The NumPy twin of the forward kernel (dtypes it has no signature for): P in
    place in ``scores``; returns P * keep (P itself without dropout)."""
    scores *= scores.dtype.type(scale)
    if bias is not None:
        scores += bias
    if causal:
        np.copyto(scores, -np.inf, where=~causal_allow(*scores.shape[-2:]))
    if scores.shape[-1] == 0:  # no keys: every row is a masked row
        return scores if keep is None else scores * keep
    m = scores.max(axis=-1, keepdims=True)
    dead = m == -np.inf
    m[dead] = 0
    np.subtract(scores, m, out=scores)
    np.exp(scores, out=scores)
    total = scores.sum(axis=-1, keepdims=True)
    total[dead] = 1
    np.divide(scores, total, out=scores)
    return scores if keep is None else scores * keep


def _softmax_backward_rows(p, keep, g, out_scale):
    """The NumPy twin of the backward kernel: dS * out_scale, written into ``g``."""
    pg = g * (p if keep is None else p * keep)
    row = pg.sum(axis=-1, keepdims=True)
    np.multiply(p, row, out=g)
    np.subtract(pg, g, out=g)
    g *= g.dtype.type(out_scale)
    return g


def _kernels():
    from minigrad.kernels import attention  # lazy: numba

    return attention


def _empty_like_layout(t: np.ndarray, shape: tuple | None = None) -> np.ndarray:
    """An uninitialised array shaped like ``t`` (or ``shape``, same ndim), with its axes
    laid out in memory in the order of ``t``'s strides (outermost first)."""
    shape = t.shape if shape is None else shape
    order = sorted(range(t.ndim), key=lambda i: -abs(t.strides[i]))
    buf = np.empty(tuple(shape[i] for i in order), dtype=t.dtype)
    return buf.transpose(tuple(np.argsort(order)))


# ------------------------------------------------------------------- the core, on arrays
def _weights_arrays(q, k, bias, causal, scale, dropout_p, out_batch):
    """Forward up to the attention weights: ``(p, pd, keep)``, arrays out_batch + (L, S).

    ``bias`` is the additive mask (an array broadcastable to the scores, ``-inf`` where
    a bool mask blocks) or None; ``causal`` masks the keys j > i. ``pd`` is the weights
    after dropout and ``keep`` the dropout mask (``p`` itself and None without dropout).
    """
    scores = np.matmul(q, _swap(k))  # (..., L, S), raw: the kernel scales
    shape = out_batch + scores.shape[-2:]
    if scores.shape != shape:
        scores = np.array(np.broadcast_to(scores, shape))
    keep = dropout_mask(shape, scores.dtype, dropout_p) if dropout_p > 0 else None
    if scores.dtype not in _KERNEL_DTYPES or scores.size == 0:
        b = None if bias is None else np.broadcast_to(bias, shape)
        pd = _softmax_rows(scores, b, keep, scale, causal)
        return scores, pd, keep
    x4 = _as_blocks(scores)
    empty = np.empty((0, 0, 0, 0), dtype=scores.dtype)
    if bias is None:
        b4 = empty
    else:
        b4 = np.broadcast_to(np.asarray(bias, dtype=scores.dtype), shape)
        b4 = _as_blocks(b4) if b4.ndim <= 4 else _as_blocks(np.ascontiguousarray(b4))
        b4 = b4.view()
        b4.flags.writeable = False  # the kernel's signature takes a read-only bias
    k4 = empty if keep is None else _as_blocks(keep)
    pd4 = empty if keep is None else np.empty_like(x4)
    _kernels().softmax_forward(x4, b4, k4, float(scale), bool(causal), pd4, 0.0)
    return scores, (scores if keep is None else pd4.reshape(shape)), keep


def _backward_arrays(go, q, k, v, p, keep, scale, causal, needs, need_ds):
    """dQ, dK, dV (each in its tensor's memory order) and dS (the scores' gradient, when
    ``need_ds``) from dO, all arrays; see the module docstring."""
    dq = dk = dv = None
    if needs[2]:
        pd = p if keep is None else p * keep  # (..., L, S)
        dv = _product_into(_swap(pd), go, v)  # (..., S, Ev), batch dims of the scores
    g = np.matmul(go, _swap(v))  # (..., L, S), dO V^T
    if g.shape != p.shape:
        g = np.array(np.broadcast_to(g, p.shape))
    out_scale = 1.0 if need_ds else scale  # dQ, dK take the scale from dS, or after
    if p.dtype in _KERNEL_DTYPES and p.size:
        g4 = _as_blocks(g)
        empty = np.empty((0, 0, 0, 0), dtype=p.dtype)
        k4 = empty if keep is None else _as_blocks(keep)
        _kernels().softmax_backward(_as_blocks(p), k4, g4, float(out_scale), bool(causal))
        ds = g
    else:
        ds = _softmax_backward_rows(p, keep, g, out_scale)
    if needs[0]:
        dq = _product_into(ds, k, q)  # (..., L, E)
    if needs[1]:
        dk = _product_into(_swap(ds), q, k)  # (..., S, E)
    if need_ds:
        if dq is not None:
            dq *= dq.dtype.type(scale)
        if dk is not None:
            dk *= dk.dtype.type(scale)
    return dq, dk, dv, (ds if need_ds else None)


def _product_into(a, b, like):
    """a @ b, written in ``like``'s memory order when it has ``like``'s shape."""
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    if shape != like.shape:
        return np.matmul(a, b)
    return np.matmul(a, b, out=_empty_like_layout(like))


# --------------------------------------------- the same, in Tensor operations (create_graph)
def _weights_tensor(q, k, add, allow, scale):
    """The attention weights P in Tensor operations, differentiable again."""
    scores = (q @ k.mT) * scale  # (..., L, S)
    if add is not None:
        scores = scores + add
    if allow is not None:
        scores = scores.masked_fill(constant(~allow), -np.inf)
    sd = scores._data
    if sd.shape[-1] == 0:  # no keys: no weights
        return scores
    dead = np.all(sd == -np.inf, axis=-1, keepdims=True)  # rows with every key masked
    if dead.any():  # softmax of zeros there, then zeroed: no NaN, no gradient
        scores = scores.masked_fill(constant(dead), 0.0)
        return scores.softmax(-1).masked_fill(constant(dead), 0.0)
    return scores.softmax(-1)


def _backward_tensor(g, q, k, v, add, allow, keep, scale):
    """dQ, dK, dV, dS as differentiable Tensor operations (unreduced batch dims)."""
    p = _weights_tensor(q, k, add, allow, scale)  # (..., L, S)
    kt = None if keep is None else constant(keep)
    pd = p if kt is None else p * kt
    dv = pd.mT @ g  # (..., S, Ev)
    dp = g @ v.mT  # (..., L, S)
    if kt is not None:
        dp = dp * kt
    ds = p * (dp - (dp * p).sum(-1, keepdim=True))
    return (ds @ k) * scale, (ds.mT @ q) * scale, dv, ds


def _bias_of(add, allow):
    """The additive mask the kernels take: the float mask plus -inf where ``allow`` is
    False (None when there is neither)."""
    bias = None if add is None else add._data
    if allow is not None:
        blocked = np.where(allow, 0.0, -np.inf).astype(
            bias.dtype if bias is not None else np.float64, copy=False
        )
        bias = blocked if bias is None else bias + blocked
    return bias


# ------------------------------------------------------------------------- the Function
class ScaledDotProductAttention(Function):
    """softmax(Q K^T * scale + M) V with dropout on the weights; see the module docstring.

    ``apply(q, k, v, add, allow, causal, dropout_p, scale, out_batch)``: ``add`` is the
    float mask (a Tensor, it may require grad) or None, ``allow`` the bool mask array
    (True = may attend) or None, ``causal`` whether the keys j > i are masked too.
    """

    @staticmethod
    def forward(ctx, q, k, v, add, allow, causal, dropout_p, scale, out_batch):
        bias = _bias_of(add, allow)
        if bias is not None:
            bias = bias.astype(q._data.dtype, copy=False)
        p, pd, keep = _weights_arrays(q._data, k._data, bias, causal, scale, dropout_p, out_batch)
        shape = out_batch + (q.shape[-2], v.shape[-1])
        qd = q._data
        same = qd.shape[:-1] == shape[:-1]  # the output keeps q's memory order
        out = np.matmul(pd, v._data, out=_empty_like_layout(qd, shape) if same else None)
        ctx.save_for_backward(q, k, v, add, p, keep)
        ctx.allow, ctx.causal, ctx.scale = allow, causal, scale
        return out

    @staticmethod
    def backward(ctx, g):
        """The differentiable backward in Tensor operations (used under create_graph)."""
        q, k, v, add, p, keep = ctx.saved_tensors
        allow = ctx.allow
        if ctx.causal:
            causal = causal_allow(q.shape[-2], k.shape[-2])
            allow = causal if allow is None else allow & causal
        dq, dk, dv, ds = _backward_tensor(g, q, k, v, add, allow, keep, ctx.scale)
        return _input_grads(ctx.needs_input_grad, dq, dk, dv, ds, q, k, v, add)

    @staticmethod
    def backward_array(ctx, g):
        """The same derivative on arrays, with the fused row kernels (the engine's path)."""
        q, k, v, add, p, keep = ctx.saved_arrays
        needs = ctx.needs_input_grad
        dq, dk, dv, ds = _backward_arrays(
            g, q, k, v, p, keep, ctx.scale, ctx.causal, needs, needs[3]
        )
        return _input_grads(needs, dq, dk, dv, ds, q, k, v, add)


def _input_grads(needs, dq, dk, dv, ds, q, k, v, add) -> tuple:
    """One gradient per argument of ``forward``, each reduced to its input's shape
    (arrays from ``backward_array``, Tensors from ``backward``)."""
    return (
        unbroadcast(dq, q.shape) if dq is not None and needs[0] else None,
        unbroadcast(dk, k.shape) if dk is not None and needs[1] else None,
        unbroadcast(dv, v.shape) if dv is not None and needs[2] else None,
        unbroadcast(ds, add.shape) if ds is not None and needs[3] else None,
        None,
        None,
        None,
        None,
        None,
    )


def attention_weights(q: Tensor, k: Tensor, add, allow, dropout_p: float, scale: float):
    """P' = dropout(softmax(Q K^T * scale + M)), the weights alone, in Tensor operations
    (autograd differentiates them): for ``MultiheadAttention(need_weights=True)``, which
    returns them. ``add``: float mask Tensor or None; ``allow``: bool array or None."""
    p = _weights_tensor(q, k, add, allow, scale)  # (..., L, S)
    if dropout_p > 0:
        p = p * constant(dropout_mask(p.shape, p.dtype, dropout_p))
    return p


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
    return mask if mask is not None else constant(arr)


def check_dtypes(fn: str, query: Tensor, key: Tensor, value: Tensor) -> None:
    """query, key and value of one floating dtype, or PyTorch's errors: ``DtypeError``
    for an integer or bool query (PyTorch has no kernel for it), ``DtypeMismatchError``
    (its RuntimeError) for dtypes that differ."""
    if query.dtype.kind != "f":
        raise DtypeError(f"{fn}: query must be floating point, got dtype {query.dtype}")
    if key.dtype != query.dtype or value.dtype != query.dtype:
        raise DtypeMismatchError(
            f"{fn}: query, key and value must have the same dtype, got {query.dtype}, "
            f"{key.dtype} and {value.dtype}"
        )


def _batch_shape(fn: str, named_shapes) -> tuple:
    """Broadcast the batch dims (all but the last two) of several named shapes."""
    try:
        return np.broadcast_shapes(*(s[:-2] for _, s in named_shapes))
    except ValueError:
        detail = ", ".join(f"{n} {shape_str(s)}" for n, s in named_shapes)
        raise ValueError(
            f"{fn}: the batch dimensions (all but the last two) do not broadcast: {detail}"
        ) from None


@lower_precision  # bfloat16 under mg.autocast (minigrad/amp/autocast_mode.py)
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
                f"{shape_str(t.shape)}"
            )
    check_dtypes(fn, query, key, value)
    L, E = query.shape[-2:]
    S = key.shape[-2]
    if key.shape[-1] != E:
        raise ValueError(
            f"{fn}: key must have the query's feature size {E} in its last dim, got key "
            f"{shape_str(key.shape)} and query {shape_str(query.shape)}"
        )
    if value.shape[-2] != S:
        raise ValueError(
            f"{fn}: value must have as many positions as key ({S}) in dim -2, got value "
            f"{shape_str(value.shape)} and key {shape_str(key.shape)}"
        )
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"{fn}: dropout_p must be in [0, 1], got {dropout_p}")
    named = [("query", query.shape), ("key", key.shape), ("value", value.shape)]
    add = allow = None
    if is_causal and attn_mask is not None:
        raise ValueError(f"{fn}: attn_mask cannot be given together with is_causal=True")
    if attn_mask is not None:
        mask = as_mask("attn_mask", attn_mask, fn)
        mshape = mask.shape
        if len(mshape) < 2:
            mshape = (1,) * (2 - len(mshape)) + tuple(mshape)
        try:
            np.broadcast_shapes(mshape[-2:], (L, S))
        except ValueError:
            raise ValueError(
                f"{fn}: attn_mask of shape {shape_str(mask.shape)} does not broadcast to "
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
        query, key, value, add, allow, bool(is_causal), float(dropout_p), float(scale), out_batch
    )

"""scatter_reduce with ``prod``, ``amax`` or ``amin``: the input with ``src`` combined into
it at the positions ``key`` picks (``key`` may pick a position several times).

    out[p] = reduce(x[p] (if include_self), src[j] for every j with key[j] = p)

Positions no ``src`` element reaches keep ``x[p]``. The backward, as PyTorch's:

- ``amax`` / ``amin``: the gradient of ``out[p]`` goes to the contributors equal to it,
  shared evenly among ties;
- ``prod``: each contributor gets ``g[p]`` times the product of the *other*
  contributors: ``out[p] / c`` for a non-zero ``c``; for a zero ``c`` the product of the
  non-zero others when it is the only zero, else 0.

``sum`` and ``mean`` are compositions of ``IndexAdd`` (``surface/selection.py``).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.constant import constant


def _identity(reduce: str, dtype: np.dtype):
    """The value that leaves any other unchanged: 1, or the dtype's lowest / highest."""
    if reduce == "prod":
        return dtype.type(1)
    if dtype.kind == "b":
        return np.False_ if reduce == "amax" else np.True_
    if dtype.kind == "f":
        return dtype.type(-np.inf if reduce == "amax" else np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.min if reduce == "amax" else info.max)


class ScatterReduce(Function):
    """out = x with ``src`` combined in at ``key`` by ``reduce`` (see the module)."""

    REDUCTIONS = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}

    @staticmethod
    def forward(ctx, x, src, key, reduce, include_self):
        hit = np.zeros(x._data.shape, bool)
        hit[key] = True
        out = x._data.copy()
        if not include_self:
            out[hit] = _identity(reduce, out.dtype)
        ScatterReduce.REDUCTIONS[reduce].at(out, key, src._data)
        ctx.key, ctx.reduce, ctx.include_self = key, reduce, include_self
        weights = _weights(x._data, src._data, out, hit, key, reduce, include_self)
        ctx.save_for_backward(x, src, out, *weights)
        return out

    @staticmethod
    def backward(ctx, g):
        x, src, out, self_weight, src_weight = ctx.saved_tensors
        self_weight, src_weight = constant(self_weight), constant(src_weight)
        gx = gsrc = None
        prod = ctx.reduce == "prod"
        if ctx.needs_input_grad[0]:
            if prod and ctx.include_self:
                # d out / d x = out / x where x is not 0 (differentiable again)
                nonzero = constant(x._data != 0)
                safe = x.masked_fill(constant(x._data == 0), 1.0)
                gx = g * (out / safe * nonzero + self_weight)
            else:
                gx = g * self_weight
        if ctx.needs_input_grad[1]:
            if prod:
                nonzero = constant(src._data != 0)
                safe = src.masked_fill(constant(src._data == 0), 1.0)
                gsrc = g[ctx.key] * (out[ctx.key] / safe * nonzero + src_weight)
            else:
                gsrc = g[ctx.key] * src_weight
        return gx, gsrc, None, None, None

    @staticmethod
    def backward_array(ctx, g):
        x, src, out, self_weight, src_weight = ctx.saved_arrays
        gx = gsrc = None
        prod = ctx.reduce == "prod"
        if ctx.needs_input_grad[0]:
            if prod and ctx.include_self:
                gx = g * np.where(x != 0, out / np.where(x != 0, x, 1), self_weight)
            else:
                gx = g * self_weight
        if ctx.needs_input_grad[1]:
            if prod:
                at = out[ctx.key]
                gsrc = g[ctx.key] * np.where(src != 0, at / np.where(src != 0, src, 1),
                                             src_weight)  # fmt: skip
            else:
                gsrc = g[ctx.key] * src_weight
        return gx, gsrc, None, None, None


def _weights(x, src, out, hit, key, reduce, include_self):
    """The factors of the backward that do not depend on ``g`` or on a differentiable
    quantity. amax / amin: each contributor's share, 1 / (number of ties) if it equals
    the result, else 0. prod: for a zero contributor, the product of the others if it is
    the only zero at its position, else 0 (the non-zero ones use ``out / c``); without
    include_self, x passes ``g`` where nothing was scattered and nothing elsewhere."""
    weight_dtype = out.dtype if out.dtype.kind == "f" else np.dtype(np.float64)
    self_in = ~hit | include_self  # x[p] is a contributor to out[p]
    if reduce in ("amax", "amin"):
        # PyTorch counts x[p] among the ties whenever it equals the result, even when
        # include_self=False leaves it out (and then gives it no gradient): so here
        self_tie = x == out
        src_tie = src == out[key]
        ties = self_tie.astype(weight_dtype)
        np.add.at(ties, key, src_tie)
        ties = np.where(ties == 0, 1, ties)
        return (self_tie & self_in) / ties, src_tie / ties[key]
    zeros = (self_in & (x == 0)).astype(np.int64)
    np.add.at(zeros, key, src == 0)
    others = np.where(self_in & (x != 0), x, 1).astype(weight_dtype)
    np.multiply.at(others, key, np.where(src != 0, src, 1).astype(weight_dtype))
    only = np.where(zeros == 1, others, 0)  # the product of the non-zero contributors
    if include_self:
        self_weight = np.where(x == 0, only, 0)
    else:
        self_weight = ~hit
    src_weight = np.where(src == 0, only[key], 0)
    return self_weight.astype(weight_dtype), src_weight.astype(weight_dtype)

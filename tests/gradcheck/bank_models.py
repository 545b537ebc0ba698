"""Small models for the gradcheck bank, built from hand-written Functions.

Four models, each a few hundred parameters, written here from their formulas (NumPy
forwards; backwards in Tensor operations, so that they are differentiable again):

- ``GPT``: nanoGPT's shape: token and position embeddings, pre-norm blocks of causal
  self-attention (a ``-inf`` mask, softmax) and a GELU MLP, a final LayerNorm, a head,
  cross-entropy;
- ``Llama``: an embedding, pre-norm blocks of RMSNorm and a SwiGLU feed-forward, a final
  RMSNorm, a head, cross-entropy;
- ``BatchNormMLP``: Linear, BatchNorm in training mode (batch statistics), tanh, Linear,
  cross-entropy;
- ``MaskedMeanClassifier``: an embedding, a mean over the valid (unpadded) tokens, a
  gather of tokens sampled with replacement (repeated positions), a head, cross-entropy.

Every Function reads a ``bug`` attribute: ``None`` is the correct backward, anything
else one planted mistake (``BUGS`` lists them). ``plant(model, path, bug)`` gives one
module's Function the bug (a subclass, so the node keeps its class name).
"""

from __future__ import annotations

import numpy as np

import minigrad as mg
import minigrad.nn as nn
from minigrad.autograd import Function
from minigrad.functions.constant import constant

K_GELU = float(np.sqrt(2.0 / np.pi))


def const(array, like) -> object:
    return constant(np.asarray(array, dtype=like.dtype))


def leading_sum(t, ndim: int):
    """Sum over every axis but the last ``ndim``."""
    axes = tuple(range(t.ndim - ndim))
    return t.sum(axes) if axes else t


# ---------------------------------------------------------------------------- Functions
class LinearFn(Function):
    """y = x W^T + b over the last axis."""

    bug = None

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        y = x.numpy() @ w.numpy().T
        return y if b is None else y + b.numpy()

    @classmethod
    def backward(cls, ctx, g):
        x, w = ctx.saved_tensors
        out, inp = w.shape
        g2, x2 = g.reshape(-1, out), x.reshape(-1, inp)
        if cls.bug == "first row only":  # the weight gradient of one example
            gw = g2[:1].T @ x2[:1]
        else:
            gw = g2.T @ x2
        return g @ w, gw, g2.sum(0) if ctx.needs_input_grad[2] else None


class LookupFn(Function):
    """out[..., :] = weight[idx[...], :]: an embedding. Backward adds the gradient rows
    into the table, repeated indices accumulating (a one-hot product)."""

    bug = None

    @staticmethod
    def forward(ctx, weight, idx):
        ctx.idx, ctx.rows = np.asarray(idx), weight.shape[0]
        ctx.dtype = weight.dtype
        return weight.numpy()[ctx.idx]

    @classmethod
    def backward(cls, ctx, g):
        flat = ctx.idx.reshape(-1)
        rows = g.reshape(-1, g.shape[-1])
        if cls.bug == "overwrite":  # repeated indices keep only the last row
            out = np.zeros((ctx.rows, g.shape[-1]), dtype=g.dtype)
            out[flat] = rows.numpy()
            return constant(out), None
        one_hot = const(np.eye(ctx.rows)[flat], g)  # (N, rows)
        return one_hot.T @ rows, None


class GatherTimeFn(Function):
    """out[b, p] = x[b, picks[b, p]]: tokens picked along time, with replacement."""

    bug = None

    @staticmethod
    def forward(ctx, x, picks):
        ctx.picks, ctx.steps = np.asarray(picks), x.shape[1]
        return np.take_along_axis(x.numpy(), ctx.picks[..., None], axis=1)

    @classmethod
    def backward(cls, ctx, g):
        if cls.bug == "overwrite":  # a position picked twice keeps one gradient
            out = np.zeros(g.shape[:1] + (ctx.steps,) + g.shape[2:], dtype=g.dtype)
            for b in range(g.shape[0]):
                out[b, ctx.picks[b]] = g.numpy()[b]
            return constant(out), None
        one_hot = const(np.eye(ctx.steps)[ctx.picks], g)  # (B, P, T)
        return one_hot.transpose(1, 2) @ g, None


class LayerNormFn(Function):
    """y = (x - mean) / sqrt(var + eps) * w + b over the last axis."""

    bug = None
    eps = 1e-5

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        a = x.numpy()
        xc = a - a.mean(-1, keepdims=True)
        xhat = xc / np.sqrt((xc * xc).mean(-1, keepdims=True) + LayerNormFn.eps)
        return xhat * w.numpy() + b.numpy()

    @classmethod
    def backward(cls, ctx, g):
        x, w = ctx.saved_tensors
        xc = x - x.mean(-1, keepdim=True)
        rstd = ((xc * xc).mean(-1, keepdim=True) + cls.eps).rsqrt()
        xhat = xc * rstd
        gx = g * w
        dx = gx - xhat * (gx * xhat).mean(-1, keepdim=True)
        if cls.bug != "missing mean term":
            dx = dx - gx.mean(-1, keepdim=True)
        return rstd * dx, leading_sum(g * xhat, 1), leading_sum(g, 1)


class RMSNormFn(Function):
    """y = x / sqrt(mean(x^2) + eps) * w over the last axis."""

    bug = None
    eps = 1e-6

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        a = x.numpy()
        return a / np.sqrt((a * a).mean(-1, keepdims=True) + RMSNormFn.eps) * w.numpy()

    @classmethod
    def backward(cls, ctx, g):
        x, w = ctx.saved_tensors
        rstd = ((x * x).mean(-1, keepdim=True) + cls.eps).rsqrt()
        if cls.bug == "rstd saved as a constant":  # right values, no derivative
            rstd = const(rstd.numpy(), x)
        xhat = x * rstd
        gx = g * w
        dx = (
            gx if cls.bug == "missing rstd term" else gx - xhat * (gx * xhat).mean(-1, keepdim=True)
        )
        gxhat = g * xhat
        if cls.bug == "weight from the first token only":
            gw = gxhat.reshape(-1, gxhat.shape[-1])[0]
        else:
            gw = leading_sum(gxhat, 1)
        return rstd * dx, gw


class BatchNormFn(Function):
    """Training-mode BatchNorm of (N, C): y = (x - mean_0) / sqrt(var_0 + eps) * w + b,
    the biased variance over the batch."""

    bug = None
    eps = 1e-5

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        a = x.numpy()
        xc = a - a.mean(0, keepdims=True)
        xhat = xc / np.sqrt((xc * xc).mean(0, keepdims=True) + BatchNormFn.eps)
        return xhat * w.numpy() + b.numpy()

    @classmethod
    def backward(cls, ctx, g):
        x, w = ctx.saved_tensors
        n = x.shape[0]
        xc = x - x.mean(0, keepdim=True)
        var = (xc * xc).sum(0, keepdim=True) / (n - 1 if cls.bug == "unbiased variance" else n)
        rstd = (var + cls.eps).rsqrt()
        xhat = xc * rstd
        gx = g * w
        dx = gx - xhat * (gx * xhat).mean(0, keepdim=True)
        if cls.bug != "missing mean term":
            dx = dx - gx.mean(0, keepdim=True)
        return rstd * dx, (g * xhat).sum(0), g.sum(0)


class MaskFillFn(Function):
    """x with -inf where ``mask`` is True (positions that may not be attended)."""

    bug = None

    @staticmethod
    def forward(ctx, x, mask):
        ctx.mask = np.asarray(mask, dtype=bool)
        return np.where(ctx.mask, -np.inf, x.numpy())

    @classmethod
    def backward(cls, ctx, g):
        mask = ctx.mask.swapaxes(-1, -2) if cls.bug == "transposed mask" else ctx.mask
        return g * const(~mask, g), None


class SoftmaxFn(Function):
    """p = softmax(x) over the last axis (-inf entries give 0)."""

    bug = None

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        a = x.numpy()
        e = np.exp(a - a.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    @classmethod
    def backward(cls, ctx, g):
        (x,) = ctx.saved_tensors
        p = x.softmax(-1)
        if cls.bug == "p saved as a constant":
            p = const(p.numpy(), g)
        if cls.bug == "missing term":
            return p * g
        return p * (g - (g * p).sum(-1, keepdim=True))


class GeluFn(Function):
    """GELU, tanh approximation: 0.5 x (1 + tanh(k (x + 0.044715 x^3)))."""

    bug = None

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        a = x.numpy()
        return 0.5 * a * (1.0 + np.tanh(K_GELU * (a + 0.044715 * a**3)))

    @classmethod
    def backward(cls, ctx, g):
        (x,) = ctx.saved_tensors
        t = (K_GELU * (x + 0.044715 * x * x * x)).tanh()
        inner = 1.0 if cls.bug == "inner derivative" else 1.0 + 3 * 0.044715 * x * x
        slope = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * K_GELU * inner
        if cls.bug == "slope saved as a constant":
            slope = const(slope.numpy(), g)
        return g * slope


class SwiGLUFn(Function):
    """silu(a) * b, silu(a) = a sigmoid(a)."""

    bug = None

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        s = 1.0 / (1.0 + np.exp(-a.numpy()))
        return a.numpy() * s * b.numpy()

    @classmethod
    def backward(cls, ctx, g):
        a, b = ctx.saved_tensors
        s = a.sigmoid()
        silu = a * s
        da = g * b * s * (1.0 + a * (1.0 - s))
        db = g * (a if cls.bug == "up branch uses the gate" else silu)
        return da, db


class TanhFn(Function):
    bug = None

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.tanh(x.numpy())

    @classmethod
    def backward(cls, ctx, g):
        (x,) = ctx.saved_tensors
        y = x.tanh()
        return -g * (1.0 - y * y) if cls.bug == "sign" else g * (1.0 - y * y)


class MaskedMeanFn(Function):
    """mean of x (B, T, C) over the valid positions of each row (``valid`` (B, T))."""

    bug = None

    @staticmethod
    def forward(ctx, x, valid):
        ctx.valid = np.asarray(valid, dtype=bool)
        ctx.count = ctx.valid.sum(1, keepdims=True)  # (B, 1)
        mean = (x.numpy() * ctx.valid[..., None]).sum(1) / ctx.count
        return mean.astype(x.numpy().dtype)  # the count is an int: keep x's float dtype

    @classmethod
    def backward(cls, ctx, g):
        keep = np.ones_like(ctx.valid) if cls.bug == "leaks to padding" else ctx.valid
        count = ctx.valid.shape[1] if cls.bug == "divides by the length" else ctx.count
        weight = keep[..., None] / np.broadcast_to(count, ctx.valid.shape)[..., None]
        return g[:, None, :] * const(weight, g), None


class CrossEntropyFn(Function):
    """mean over rows of logsumexp(z) - z[target]."""

    bug = None

    @staticmethod
    def forward(ctx, z, target):
        ctx.save_for_backward(z)
        ctx.target = np.asarray(target).reshape(-1)
        a = z.numpy()
        m = a.max(-1, keepdims=True)
        lse = (m + np.log(np.exp(a - m).sum(-1, keepdims=True)))[:, 0]
        return np.asarray((lse - a[np.arange(a.shape[0]), ctx.target]).mean())

    @classmethod
    def backward(cls, ctx, g):
        (z,) = ctx.saved_tensors
        n = 1 if cls.bug == "missing 1/N" else z.shape[0]
        one_hot = const(np.eye(z.shape[1])[ctx.target], z)
        return g * (z.softmax(-1) - one_hot) / n, None


# ---------------------------------------------------------------------------- modules
class Fn(nn.Module):
    """A module around a Function class (``fn``, one per module class; ``plant`` gives a
    single module another) and its parameters."""

    def call(self, *args):
        return self.fn.apply(*args)


class Linear(Fn):
    fn = LinearFn

    def __init__(self, n_in, n_out, bias=True):
        super().__init__()
        bound = 1.0 / np.sqrt(n_in)
        self.weight = nn.Parameter(mg.rand(n_out, n_in) * 2 * bound - bound)
        self.bias = nn.Parameter(mg.rand(n_out) * 2 * bound - bound) if bias else None

    def forward(self, x):
        return self.call(x, self.weight, self.bias)


class Lookup(Fn):
    fn = LookupFn

    def __init__(self, rows, dim):
        super().__init__()
        self.weight = nn.Parameter(mg.randn(rows, dim))

    def forward(self, idx):
        return self.call(self.weight, idx)


class AffineNorm(Fn):
    """A norm's Function (``fn``) with a random per-feature weight near 1 and bias
    near 0."""

    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.2 * mg.randn(dim))
        self.bias = nn.Parameter(0.2 * mg.randn(dim))

    def forward(self, x):
        return self.call(x, self.weight, self.bias)


class LayerNorm(AffineNorm):
    fn = LayerNormFn


class RMSNorm(Fn):
    fn = RMSNormFn

    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.2 * mg.randn(dim))

    def forward(self, x):
        return self.call(x, self.weight)


class BatchNorm(AffineNorm):
    fn = BatchNormFn


class Apply(Fn):
    """A parameterless Function as a module (so its nodes get a module path)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.call(*args)


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, steps):
        super().__init__()
        self.heads = heads
        self.c_attn, self.c_proj = Linear(dim, 3 * dim), Linear(dim, dim)
        self.mask = Apply(MaskFillFn)
        self.softmax = Apply(SoftmaxFn)
        self.future = ~np.tril(np.ones((steps, steps), dtype=bool))  # True: may not attend

    def forward(self, x):
        B, T, C = x.shape
        hs = C // self.heads
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.reshape(B, T, self.heads, hs).transpose(1, 2)  # (B, nh, T, hs)
        k = k.reshape(B, T, self.heads, hs).transpose(1, 2)
        v = v.reshape(B, T, self.heads, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / np.sqrt(hs))  # (B, nh, T, T)
        att = self.softmax(self.mask(att, self.future[:T, :T]))
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.c_fc, self.gelu, self.c_proj = Linear(dim, hidden), Apply(GeluFn), Linear(hidden, dim)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class GPTBlock(nn.Module):
    def __init__(self, dim, heads, steps, hidden):
        super().__init__()
        self.ln_1, self.ln_2 = LayerNorm(dim), LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, steps)
        self.mlp = MLP(dim, hidden)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """nanoGPT in miniature: vocab 8, 4 positions, width 4, 2 heads, one block."""

    def __init__(self, vocab=8, steps=4, dim=4, heads=2, hidden=8, layers=1):
        super().__init__()
        self.wte, self.wpe = Lookup(vocab, dim), Lookup(steps, dim)
        self.h = nn.ModuleList([GPTBlock(dim, heads, steps, hidden) for _ in range(layers)])
        self.ln_f = LayerNorm(dim)
        self.lm_head = Linear(dim, vocab, bias=False)
        self.loss = Apply(CrossEntropyFn)

    def hidden(self, idx):
        T = idx.shape[1]
        return self.wte(idx) + self.wpe(np.arange(T))  # (B, T, C)

    def logits(self, x):
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))  # (B, T, vocab)

    def head(self, x, targets):
        """(logits, loss) from the hidden states x."""
        logits = self.logits(x)
        return logits, self.loss(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    def forward(self, idx, targets):
        return self.head(self.hidden(idx), targets)[1]


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1, self.w3 = Linear(dim, hidden, bias=False), Linear(dim, hidden, bias=False)
        self.w2 = Linear(hidden, dim, bias=False)
        self.act = Apply(SwiGLUFn)

    def forward(self, x):
        return self.w2(self.act(self.w1(x), self.w3(x)))


class LlamaBlock(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.ffn_norm, self.ffn = RMSNorm(dim), SwiGLU(dim, hidden)

    def forward(self, x):
        return x + self.ffn(self.ffn_norm(x))


class Llama(nn.Module):
    """RMSNorm + SwiGLU blocks: vocab 8, width 4, hidden 8, two layers."""

    def __init__(self, vocab=8, dim=4, hidden=8, layers=2):
        super().__init__()
        self.tok = Lookup(vocab, dim)
        self.layers = nn.ModuleList([LlamaBlock(dim, hidden) for _ in range(layers)])
        self.norm = RMSNorm(dim)
        self.head = Linear(dim, vocab, bias=False)
        self.loss = Apply(CrossEntropyFn)

    def hidden(self, idx):
        return self.tok(idx)

    def head_loss(self, x, targets):
        """(logits, loss) from the hidden states x."""
        for layer in self.layers:
            x = layer(x)
        logits = self.head(self.norm(x))
        return logits, self.loss(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    def forward(self, idx, targets):
        return self.head_loss(self.hidden(idx), targets)[1]


class BatchNormMLP(nn.Module):
    """Linear 5 -> 6, BatchNorm (batch statistics), tanh, Linear 6 -> 3, cross-entropy."""

    def __init__(self, n_in=5, hidden=6, classes=3):
        super().__init__()
        self.fc1, self.bn, self.act = Linear(n_in, hidden), BatchNorm(hidden), Apply(TanhFn)
        self.fc2 = Linear(hidden, classes)
        self.loss = Apply(CrossEntropyFn)

    def head(self, x, targets):
        """(logits, loss)."""
        logits = self.fc2(self.act(self.bn(self.fc1(x))))
        return logits, self.loss(logits, targets)

    def forward(self, x, targets):
        return self.head(x, targets)[1]


class MaskedMeanClassifier(nn.Module):
    """Embed tokens, average the valid ones, add the mean of tokens sampled with
    replacement, classify."""

    def __init__(self, vocab=10, dim=4, classes=3):
        super().__init__()
        self.emb = Lookup(vocab, dim)
        self.pool, self.pick = Apply(MaskedMeanFn), Apply(GatherTimeFn)
        self.head = Linear(dim, classes)
        self.loss = Apply(CrossEntropyFn)

    def forward(self, tokens, valid, picks, targets):
        x = self.emb(tokens)  # (B, T, C)
        features = self.pool(x, valid) + self.pick(x, picks).mean(1)
        return self.loss(self.head(features), targets)


# ---------------------------------------------------------------------------- data
def gpt_data(rng, vocab=8, batch=2, steps=4):
    idx = rng.integers(0, vocab, size=(batch, steps))
    idx[1, 2] = idx[0, 1]  # a token that repeats
    return idx, rng.integers(0, vocab, size=(batch, steps))


def batchnorm_data(rng, n=8, n_in=5, classes=3):
    return mg.tensor(rng.standard_normal((n, n_in)).astype(np.float32)), rng.integers(0, classes, n)


def classifier_data(rng, vocab=10, batch=3, steps=5, picks=4, classes=3):
    tokens = rng.integers(0, vocab, size=(batch, steps))
    lengths = np.array([steps, 3, 2])
    valid = np.arange(steps)[None, :] < lengths[:, None]
    tokens[~valid] = 0  # padding
    chosen = np.stack([rng.integers(0, n, size=picks) for n in lengths])
    chosen[:, 1] = chosen[:, 0]  # a position picked twice
    return tokens, valid, chosen, rng.integers(0, classes, batch)


# ---------------------------------------------------------------------------- planting
def plant(model, path: str, bug: str):
    """Give the Function of module ``path`` the bug, in a subclass of the same name."""
    module = dict(model.named_modules())[path]
    module.fn = type(module.fn.__name__, (module.fn,), {"bug": bug})
    return model

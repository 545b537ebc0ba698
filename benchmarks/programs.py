"""The user's programs, written once against PyTorch's API, run on either library.

A user moves a program between PyTorch and minigrad by changing its imports; this module
does the same from the environment: ``BENCH_LIB=torch`` (or ``minigrad``, the default)
picks the library at import, and everything below is the same source for both::

    torch = importlib.import_module(LIB)    # "torch" or "minigrad"
    nn = torch.nn
    F = torch.nn.functional

The programs:

- ``EncoderLM``: a language model from ``nn.TransformerEncoderLayer`` (pre-norm,
  GELU, a causal mask, batch_first) inside ``nn.TransformerEncoder``, token and
  position embeddings, a final LayerNorm and a linear head;
- ``GPT``: a GPT as users write one (nanoGPT's layout): hand-written causal
  self-attention with a registered ``tril`` buffer, ``masked_fill(-inf)``, softmax,
  ``view`` / ``transpose``; tied embedding and head weights; ``configure_optimizers``
  with weight-decay groups; ``generate`` (greedy, cropping the context);
- ``train_step``: zero_grad, forward, cross_entropy, backward, (clip,) AdamW step.

Both libraries load the same weights (``shared_weights``: NumPy draws from one seed, in
``state_dict`` order) and the same batch (``batch``), so the first losses agree.
"""

from __future__ import annotations

import importlib
import math
import os

import numpy as np

LIB = os.environ.get("BENCH_LIB", "minigrad")
torch = importlib.import_module(LIB)
nn = torch.nn
F = torch.nn.functional

SEED = 0


# ------------------------------------------------------------------ (a) encoder-layer LM
class EncoderLM(nn.Module):
    """Embeddings -> TransformerEncoder (pre-norm, GELU, causal) -> LayerNorm -> head."""

    def __init__(self, vocab: int, d_model: int, heads: int, layers: int, seq: int):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, d_model)
        self.pos_emb = nn.Embedding(seq, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model,
            heads,
            dim_feedforward=4 * d_model,
            dropout=0.0,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.encoder = nn.TransformerEncoder(
            layer, layers, norm=nn.LayerNorm(d_model), enable_nested_tensor=False
        )
        self.head = nn.Linear(d_model, vocab)

    def forward(self, idx):
        t = idx.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(t)  # (T, T), -inf above
        h = self.tok_emb(idx) + self.pos_emb(torch.arange(t))  # (B, T, C)
        h = self.encoder(h, mask=mask, is_causal=True)
        return self.head(h)  # (B, T, vocab)


# ------------------------------------------------------------------ (b) nanoGPT-style GPT
class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd: int, n_head: int, block_size: int):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head = n_head
        tril = torch.tril(torch.ones(block_size, block_size))
        self.register_buffer("bias", tril.view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        hs = C // self.n_head
        q = q.view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, T, self.n_head, hs).transpose(1, 2)
        v = v.view(B, T, self.n_head, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))  # (B, nh, T, T)
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v  # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, n_embd: int):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, n_embd: int, n_head: int, block_size: int):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int, n_embd: int, n_head: int, n_layer: int, block_size: int):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList(Block(n_embd, n_head, block_size) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab, bias=False)
        self.wte.weight = self.lm_head.weight  # weight tying

    def forward(self, idx, targets=None):
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(t))  # (B, T, C)
        for block in self.h:
            x = block(x)
        x = self.ln_f(x)
        if targets is None:  # inference: the head on the last position only
            return self.lm_head(x[:, [-1], :]), None
        logits = self.lm_head(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    def configure_optimizers(self, weight_decay: float, lr: float):
        params = [p for p in self.parameters() if p.requires_grad]
        groups = [
            {"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
            {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens: int):
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -self.block_size :]
            logits, _ = self(idx_cond)
            idx_next = torch.argmax(logits[:, -1, :], dim=-1, keepdim=True)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


# ------------------------------------------------------------------ the same data for both
def shared_weights(model) -> dict:
    """Weights for ``model`` drawn with NumPy from one seed, in ``state_dict`` order (the
    keys are the same in both libraries): matrices ~ U(+-1/sqrt(fan_in)) as PyTorch's
    Linear init, embeddings N(0, 0.02) (nanoGPT's), norm weights 1, biases U(+-0.02);
    a tensor reached under two names (tied weights) gets one draw."""
    rng = np.random.default_rng(SEED)
    out = {}
    for name, value in model.state_dict().items():
        shape = tuple(value.shape)
        if name.endswith("lm_head.weight") and "wte.weight" in out:
            out[name] = out["wte.weight"]
            continue
        if "emb" in name or name.startswith(("wte", "wpe")):
            w = 0.02 * rng.standard_normal(shape)
        elif name.endswith("mask") or name.endswith(".bias") and len(shape) == 4:
            w = value.numpy()  # the tril buffer: a constant of the model
        elif len(shape) == 2:
            bound = 1 / np.sqrt(shape[1])
            w = rng.uniform(-bound, bound, shape)
        elif name.endswith("weight") and ("norm" in name or "ln" in name):
            w = np.ones(shape)
        else:
            w = rng.uniform(-0.02, 0.02, shape)
        out[name] = np.asarray(w, dtype=np.float32)
    return out


def load_shared_weights(model) -> None:
    model.load_state_dict({k: torch.tensor(v) for k, v in shared_weights(model).items()})


def batch(vocab: int, batch_size: int, seq: int):
    """Input tokens (B, T) and next-token targets (B, T) from one seed."""
    rng = np.random.default_rng(SEED + 1)
    data = rng.integers(0, vocab, (batch_size, seq + 1))
    return torch.tensor(data[:, :-1]), torch.tensor(data[:, 1:])


# ------------------------------------------------------------------ the programs
def encoder_lm_step(vocab: int, d_model: int, heads: int, layers: int, seq: int, batch_size: int):
    """One training step of ``EncoderLM`` (plain AdamW); returns a callable giving the loss."""
    torch.manual_seed(SEED)
    model = EncoderLM(vocab, d_model, heads, layers, seq)
    load_shared_weights(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = batch(vocab, batch_size, seq)

    def step() -> float:
        opt.zero_grad()
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, vocab), y.reshape(-1))
        loss.backward()
        opt.step()
        return loss.item()

    return step


def gpt_step(vocab: int, d_model: int, heads: int, layers: int, seq: int, batch_size: int):
    """One training step of ``GPT``: AdamW with weight-decay groups, gradient clipping."""
    torch.manual_seed(SEED)
    model = GPT(vocab, d_model, heads, layers, seq)
    load_shared_weights(model)
    opt = model.configure_optimizers(weight_decay=0.1, lr=1e-3)
    x, y = batch(vocab, batch_size, seq)

    def step() -> float:
        opt.zero_grad(set_to_none=True)
        _, loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()

    return step


def gpt_generate(
    vocab: int, d_model: int, heads: int, layers: int, seq: int, prompt: int, new: int
):
    """Greedy generation of ``new`` tokens after a ``prompt``-token prompt (batch 1)."""
    torch.manual_seed(SEED)
    model = GPT(vocab, d_model, heads, layers, seq)
    load_shared_weights(model)
    model.eval()
    idx, _ = batch(vocab, 1, prompt)

    def run() -> list:
        return model.generate(idx, new)[0].tolist()

    return run

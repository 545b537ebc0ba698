"""Snippets in the style of well-known small PyTorch programs (a lecture-sized GPT, a
names model with a Generator, the transformer language-model tutorial, a minGPT-style
trainer), each written once against a ``torch`` argument and run on both libraries: on
PyTorch to show the snippet is real PyTorch code, on minigrad to show it runs unchanged."""

import math
import os

import pytest

import minigrad as mg


def lecture_gpt(torch):
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(1337)
    text = "hello world, hello gpt. " * 20
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n = int(0.9 * len(data))
    train_data = data[:n]
    block_size, n_embd, device = 8, 16, "cuda" if torch.cuda.is_available() else "cpu"

    def get_batch():
        ix = torch.randint(len(train_data) - block_size, (4,))
        x = torch.stack([train_data[i : i + block_size] for i in ix])
        y = torch.stack([train_data[i + 1 : i + block_size + 1] for i in ix])
        return x.to(device), y.to(device)

    class Head(nn.Module):
        def __init__(self, head_size):
            super().__init__()
            self.key = nn.Linear(n_embd, head_size, bias=False)
            self.query = nn.Linear(n_embd, head_size, bias=False)
            self.value = nn.Linear(n_embd, head_size, bias=False)
            self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
            self.dropout = nn.Dropout(0.1)

        def forward(self, x):
            B, T, C = x.shape
            k, q = self.key(x), self.query(x)
            wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
            wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
            wei = self.dropout(F.softmax(wei, dim=-1))
            return wei @ self.value(x)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(len(chars), n_embd)
            self.pos = nn.Embedding(block_size, n_embd)
            self.heads = nn.ModuleList([Head(n_embd // 2) for _ in range(2)])
            self.ffwd = nn.Sequential(
                nn.Linear(n_embd, 4 * n_embd),
                nn.ReLU(),
                nn.Linear(4 * n_embd, n_embd),
                nn.Dropout(0.1),
            )
            self.ln = nn.LayerNorm(n_embd)
            self.head = nn.Linear(n_embd, len(chars))

        def forward(self, idx, targets=None):
            B, T = idx.shape
            x = self.tok(idx) + self.pos(torch.arange(T, device=device))
            x = x + torch.cat([h(x) for h in self.heads], dim=-1)
            x = x + self.ffwd(self.ln(x))
            logits = self.head(x)
            if targets is None:
                return logits, None
            B, T, C = logits.shape
            return logits, F.cross_entropy(logits.view(B * T, C), targets.view(B * T))

        def generate(self, idx, max_new_tokens):
            for _ in range(max_new_tokens):
                logits, _ = self(idx[:, -block_size:])
                probs = F.softmax(logits[:, -1, :], dim=-1)
                idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
            return idx

    model = Model().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    @torch.no_grad()
    def estimate_loss():
        model.eval()
        losses = torch.zeros(3)
        for k in range(3):
            losses[k] = model(*get_batch())[1].item()
        model.train()
        return losses.mean()

    for _ in range(3):
        _, loss = model(*get_batch())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    line = f"train loss {estimate_loss():.4f}, {sum(p.numel() for p in model.parameters()) / 1e6} M"
    context = torch.zeros((1, 1), dtype=torch.long, device=device)
    out = model.generate(context, max_new_tokens=10)[0].tolist()
    return line, out


def names_model(torch):
    F = torch.nn.functional
    g = torch.Generator().manual_seed(2147483647)
    xs = torch.tensor([0, 5, 13, 13, 1])
    ys = torch.tensor([5, 13, 13, 1, 0])
    W = torch.randn((27, 27), generator=g, requires_grad=True)
    for _ in range(3):
        xenc = F.one_hot(xs, num_classes=27).float()
        counts = (xenc @ W).exp()
        probs = counts / counts.sum(1, keepdim=True)
        loss = -probs[torch.arange(5), ys].log().mean() + 0.01 * (W**2).mean()
        W.grad = None
        loss.backward()
        W.data += -50 * W.grad
    ix, out = 0, []
    for _ in range(5):
        p = F.softmax(W[ix], dim=0)
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(ix)
    lrs = 10 ** torch.linspace(-3, 0, 5)
    return round(loss.item(), 4) > 0, len(out), lrs.shape


def tutorial_lm(torch, tmp_path):
    nn = torch.nn

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=50):
            super().__init__()
            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(max_len, 1, d_model)
            pe[:, 0, 0::2] = torch.sin(position * div_term)
            pe[:, 0, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe)

        def forward(self, x):
            return x + self.pe[: x.size(0)]

    class TransformerModel(nn.Module):
        def __init__(self, ntoken=20, d_model=16):
            super().__init__()
            self.pos_encoder = PositionalEncoding(d_model)
            layer = nn.TransformerEncoderLayer(d_model, 2, 32, 0.0)
            self.transformer_encoder = nn.TransformerEncoder(layer, 2)
            self.embedding = nn.Embedding(ntoken, d_model)
            self.d_model = d_model
            self.linear = nn.Linear(d_model, ntoken)
            initrange = 0.1
            self.embedding.weight.data.uniform_(-initrange, initrange)
            self.linear.bias.data.zero_()
            self.linear.weight.data.uniform_(-initrange, initrange)

        def forward(self, src, src_mask=None):
            src = self.pos_encoder(self.embedding(src) * math.sqrt(self.d_model))
            return self.linear(self.transformer_encoder(src, src_mask))

    def batchify(data, bsz):
        seq_len = data.size(0) // bsz
        return data[: seq_len * bsz].view(bsz, seq_len).t().contiguous()

    raw = [
        torch.tensor([1, 2, 3]),
        torch.tensor([], dtype=torch.long),
        torch.tensor(list(range(40))),
    ]
    data = torch.cat(tuple(filter(lambda t: t.numel() > 0, raw))) % 20
    source = batchify(data, 4)
    model = TransformerModel()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)
    total = 0.0
    for i in range(0, source.size(0) - 1, 4):
        seq_len = min(4, len(source) - 1 - i)
        x, target = source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].reshape(-1)
        mask = nn.Transformer.generate_square_subsequent_mask(seq_len)
        loss = criterion(model(x, mask).view(-1, 20), target)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total += loss.item()
    scheduler.step()
    path = os.path.join(tmp_path, "best_model_params.pt")
    torch.save(model.state_dict(), path)
    model.load_state_dict(torch.load(path))
    return scheduler.get_last_lr()[0], math.exp(total / 3) > 1


def mingpt_trainer(torch):
    nn = torch.nn
    from_data = torch.utils.data

    class Chars(from_data.Dataset):
        def __len__(self):
            return 50

        def __getitem__(self, idx):
            dix = [(idx + k) % 7 for k in range(6)]
            return torch.tensor(dix[:-1], dtype=torch.long), torch.tensor(dix[1:], dtype=torch.long)

    model = nn.Sequential(nn.Embedding(7, 8), nn.Linear(8, 7))
    decay, no_decay = set(), set()
    for mn, m in model.named_modules():
        for pn, _ in m.named_parameters():
            fpn = f"{mn}.{pn}" if mn else pn
            if pn.endswith("bias"):
                no_decay.add(fpn)
            elif pn.endswith("weight") and isinstance(m, (torch.nn.Linear,)):
                decay.add(fpn)
            elif pn.endswith("weight") and isinstance(m, (torch.nn.Embedding,)):
                no_decay.add(fpn)
    param_dict = {pn: p for pn, p in model.named_parameters()}
    assert len(decay & no_decay) == 0 and len(param_dict.keys() - (decay | no_decay)) == 0
    groups = [
        {"params": [param_dict[pn] for pn in sorted(decay)], "weight_decay": 0.1},
        {"params": [param_dict[pn] for pn in sorted(no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.95))
    ds = Chars()
    loader = from_data.DataLoader(
        ds,
        sampler=from_data.RandomSampler(ds, replacement=True, num_samples=int(1e10)),
        shuffle=False,
        pin_memory=True,
        batch_size=8,
        num_workers=0,
    )
    data_iter = iter(loader)
    for _ in range(3):
        batch = [t.to("cpu") for t in next(data_iter)]
        x, y = batch
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        model.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    _, idx_next = torch.topk(torch.softmax(logits[:, -1, :], dim=-1), k=1, dim=-1)
    return tuple(idx_next.shape), len(optimizer.param_groups)


def _libraries():
    libs = [pytest.param(mg, id="minigrad")]
    try:
        import torch
    except ImportError:
        torch = None
    libs.append(
        pytest.param(
            torch, id="torch", marks=pytest.mark.skipif(torch is None, reason="needs PyTorch")
        )
    )
    return libs


@pytest.mark.parametrize("lib", _libraries())
def test_lecture_gpt(lib):
    line, out = lecture_gpt(lib)
    assert line.startswith("train loss ") and len(out) == 11


@pytest.mark.parametrize("lib", _libraries())
def test_names_model(lib):
    assert names_model(lib) == (True, 5, (5,))


@pytest.mark.parametrize("lib", _libraries())
def test_transformer_tutorial(lib, tmp_path):
    lr, ok = tutorial_lm(lib, tmp_path)
    assert lr == pytest.approx(5.0 * 0.95) and ok


@pytest.mark.parametrize("lib", _libraries())
def test_mingpt_trainer(lib):
    assert mingpt_trainer(lib) == ((8, 1), 2)

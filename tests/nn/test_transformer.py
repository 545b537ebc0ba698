"""TransformerEncoderLayer, TransformerEncoder, TransformerBlock, the causal mask helper.

PyTorch is the reference (float64, eval mode unless said otherwise): outputs, input
gradients and every parameter gradient; then gradcheck, dropout in training mode, and a
tiny causal language model trained for two SGD steps in both libraries.
"""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

TOL = dict(rtol=1e-10, atol=1e-12)


def _load_from_torch(mine, ref):
    state = {k: v.detach().numpy() for k, v in ref.state_dict().items()}
    assert list(mine.state_dict()) == list(state)
    mine.load_state_dict(state)


def _compare_grads(mine, ref):
    ref_params = dict(ref.named_parameters())
    names = [n for n, _ in mine.named_parameters()]
    assert names == list(ref_params)
    for name, p in mine.named_parameters():
        np.testing.assert_allclose(
            p.grad.numpy(), ref_params[name].grad.numpy(), **TOL, err_msg=name
        )


def _run_both(torch, rng, mine, ref, shape, mg_kw=None, th_kw=None):
    """Forward and backward (random output gradient) in both; compare everything."""
    x = rng.standard_normal(shape)
    X = mg.tensor(x, requires_grad=True)
    TX = torch.tensor(x, requires_grad=True)
    out = mine(X, **(mg_kw or {}))
    ref_out = ref(TX, **(th_kw or {}))
    np.testing.assert_allclose(out.numpy(), ref_out.detach().numpy(), **TOL)
    g = rng.standard_normal(out.shape)
    out.backward(mg.tensor(g))
    ref_out.backward(torch.tensor(g))
    np.testing.assert_allclose(X.grad.numpy(), TX.grad.numpy(), **TOL)
    _compare_grads(mine, ref)
    return out


# ======================================================= TransformerEncoderLayer vs PyTorch
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_layer_parity(torch, rng, norm_first, activation, batch_first):
    kw = dict(
        d_model=8,
        nhead=2,
        dim_feedforward=12,
        activation=activation,
        norm_first=norm_first,
        batch_first=batch_first,
    )
    ref = torch.nn.TransformerEncoderLayer(**kw).double().eval()
    mine = nn.TransformerEncoderLayer(**kw, dtype=mg.float64).eval()
    _load_from_torch(mine, ref)
    N, L = 3, 5
    kpm = rng.random((N, L)) > 0.7
    kpm[:, 0] = False
    causal = np.triu(np.ones((L, L), bool), 1)
    shape = (N, L, 8) if batch_first else (L, N, 8)
    _run_both(
        torch,
        rng,
        mine,
        ref,
        shape,
        dict(src_mask=mg.tensor(causal), src_key_padding_mask=mg.tensor(kpm)),
        dict(src_mask=torch.tensor(causal), src_key_padding_mask=torch.tensor(kpm)),
    )


def test_encoder_layer_parity_no_bias_callable_activation_float_mask(torch, rng):
    kw = dict(d_model=8, nhead=4, dim_feedforward=6, bias=False, layer_norm_eps=1e-3)
    ref = torch.nn.TransformerEncoderLayer(
        **kw, activation=lambda x: torch.nn.functional.gelu(x, approximate="tanh")
    )
    ref = ref.double().eval()
    mine = nn.TransformerEncoderLayer(
        **kw, activation=lambda x: F.gelu(x, approximate="tanh"), dtype=mg.float64
    ).eval()
    _load_from_torch(mine, ref)
    assert not any(k.endswith("bias") for k in mine.state_dict())
    mask = rng.standard_normal((4, 4))
    _run_both(
        torch,
        rng,
        mine,
        ref,
        (4, 2, 8),
        dict(src_mask=mg.tensor(mask)),
        dict(src_mask=torch.tensor(mask)),
    )


def test_encoder_layer_unbatched_and_module_activation(torch, rng):
    ref = torch.nn.TransformerEncoderLayer(8, 2, 16, activation=torch.nn.GELU()).double().eval()
    mine = nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU(), dtype=mg.float64).eval()
    _load_from_torch(mine, ref)
    _run_both(torch, rng, mine, ref, (5, 8))


def test_encoder_layer_submodules_and_defaults():
    layer = nn.TransformerEncoderLayer(16, 4)
    names = [n for n, _ in layer.named_children()]
    assert names == [
        "self_attn",
        "linear1",
        "dropout",
        "linear2",
        "norm1",
        "norm2",
        "dropout1",
        "dropout2",
    ]
    assert layer.linear1.weight.shape == (2048, 16) and layer.dropout.p == 0.1
    assert layer.self_attn.dropout == 0.1 and not layer.norm_first
    assert layer.norm1.eps == 1e-5 and not layer.self_attn.batch_first


def test_encoder_layer_gradcheck(rng):
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, dtype=mg.float64)
    x = mg.tensor(rng.standard_normal((3, 2, 4)), requires_grad=True)
    mask = mg.tensor(np.triu(np.ones((3, 3), bool), 1))
    params = list(layer.parameters())
    assert mg.gradcheck(lambda x, *p: layer(x, src_mask=mask), [x, *params])
    pre = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, norm_first=True, dtype=mg.float64)
    assert mg.gradcheck(lambda x: pre(x, is_causal=True), [x])


def test_encoder_layer_dropout_training_vs_eval(rng):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.3, dtype=mg.float64)
    x = mg.tensor(rng.standard_normal((6, 4, 8)))
    mg.manual_seed(2)
    a = layer(x)
    mg.manual_seed(2)
    b = layer(x)
    c = layer(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())  # reproducible
    assert not np.allclose(a.numpy(), c.numpy())  # and random
    layer.eval()
    e1, e2 = layer(x), layer(x)
    np.testing.assert_array_equal(e1.numpy(), e2.numpy())  # nothing dropped in eval
    layer.dropout.p = layer.dropout1.p = layer.dropout2.p = 0.0
    layer.self_attn.dropout = 0.0
    layer.train()
    np.testing.assert_allclose(layer(x).numpy(), e1.numpy(), **TOL)


def test_encoder_layer_errors():
    with pytest.raises(ValueError, match=r"embed_dim \(10\) must be divisible by num_heads \(3\)"):
        nn.TransformerEncoderLayer(10, 3)
    with pytest.raises(ValueError, match=r"activation should be 'relu' or 'gelu'"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    with pytest.raises(ValueError, match=r"attn_mask must have shape \[L, S\] = \[5, 5\]"):
        layer(mg.randn(2, 5, 8), src_mask=mg.zeros(4, 4).bool())
    with pytest.raises(ValueError, match=r"key_padding_mask must have shape \[2, 5\]"):
        layer(mg.randn(2, 5, 8), src_key_padding_mask=mg.zeros(5, 2).bool())


# ============================================================ TransformerEncoder vs PyTorch
def test_generate_square_subsequent_mask(torch):
    m = nn.generate_square_subsequent_mask(4)
    expected = np.array(
        [[0, -np.inf, -np.inf, -np.inf], [0, 0, -np.inf, -np.inf], [0, 0, 0, -np.inf], [0, 0, 0, 0]]
    )
    np.testing.assert_array_equal(m.numpy(), expected)
    assert m.dtype == np.float32 and not m.requires_grad
    assert nn.generate_square_subsequent_mask(3, dtype=mg.float64).dtype == np.float64
    ref = torch.nn.Transformer.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(m.numpy(), ref.numpy())


@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_stack_with_final_norm_and_causal_mask(torch, rng, batch_first):
    kw = dict(d_model=8, nhead=2, dim_feedforward=16, norm_first=True, batch_first=batch_first)
    ref = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(**kw),
        num_layers=3,
        norm=torch.nn.LayerNorm(8),
        enable_nested_tensor=False,
    )
    ref = ref.double().eval()
    mine = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(**kw, dtype=mg.float64),
        num_layers=3,
        norm=nn.LayerNorm(8, dtype=mg.float64),
    ).eval()
    _load_from_torch(mine, ref)
    keys = list(mine.state_dict())
    assert keys[0] == "layers.0.self_attn.in_proj_weight" and keys[-1] == "norm.bias"
    assert "layers.2.linear2.weight" in keys
    N, L = 2, 6
    shape = (N, L, 8) if batch_first else (L, N, 8)
    mask = nn.generate_square_subsequent_mask(L, dtype=mg.float64)
    th_mask = torch.nn.Transformer.generate_square_subsequent_mask(L, dtype=torch.float64)
    kpm = np.zeros((N, L))  # a float padding mask, like the causal one (torch warns on mixing)
    kpm[1, -2:] = -np.inf
    out = _run_both(
        torch,
        rng,
        mine,
        ref,
        shape,
        dict(mask=mask, src_key_padding_mask=mg.tensor(kpm)),
        dict(mask=th_mask, src_key_padding_mask=torch.tensor(kpm)),
    )
    # causality: the first position's output does not depend on later positions
    x = rng.standard_normal(shape)
    y = mine(mg.tensor(x), mask=mask).numpy()
    later = (slice(None), slice(1, None)) if batch_first else (slice(1, None),)
    x[later] += 10.0
    y2 = mine(mg.tensor(x), mask=mask).numpy()
    first = (slice(None), 0) if batch_first else (0,)
    np.testing.assert_allclose(y2[first], y[first], **TOL)
    assert out.shape == shape


def test_encoder_is_causal_with_no_mask_equals_causal_mask(rng):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=mg.float64)
    enc = nn.TransformerEncoder(layer, 2)
    x = mg.tensor(rng.standard_normal((5, 2, 8)))
    a = enc(x, is_causal=True)
    b = enc(x, mask=nn.generate_square_subsequent_mask(5, dtype=mg.float64))
    c = enc(x, mask=mg.tensor(np.triu(np.ones((5, 5), bool), 1)))
    np.testing.assert_allclose(a.numpy(), b.numpy(), **TOL)
    np.testing.assert_allclose(a.numpy(), c.numpy(), **TOL)
    assert not np.allclose(enc(x).numpy(), a.numpy())


def test_encoder_layers_are_independent_deep_copies():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    enc = nn.TransformerEncoder(layer, 2)
    l0, l1 = enc.layers[0], enc.layers[1]
    assert l0 is not layer and l0 is not l1
    np.testing.assert_array_equal(l0.linear1.weight.numpy(), l1.linear1.weight.numpy())
    np.testing.assert_array_equal(l0.linear1.weight.numpy(), layer.linear1.weight.numpy())
    with mg.no_grad():
        l0.linear1.weight.fill_(0.0)
    assert np.abs(l1.linear1.weight.numpy()).sum() > 0
    assert np.abs(layer.linear1.weight.numpy()).sum() > 0
    assert len(list(enc.parameters())) == 2 * len(list(layer.parameters()))
    assert enc.norm is None and enc.num_layers == 2


# ====================================================================== TransformerBlock
def test_block_with_layer_norm_is_the_encoder_layer(rng):
    common = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.1, dtype=mg.float64)
    for norm_first in (False, True):
        block = nn.TransformerBlock(
            **common, norm="layer", norm_first=norm_first, activation="gelu"
        )
        layer = nn.TransformerEncoderLayer(
            **common, activation="gelu", batch_first=True, norm_first=norm_first
        )
        assert list(block.state_dict()) == list(layer.state_dict())
        layer.load_state_dict(block.state_dict())
        block.eval(), layer.eval()
        x = mg.tensor(rng.standard_normal((2, 5, 8)))
        np.testing.assert_allclose(
            block(x, is_causal=True).numpy(), layer(x, is_causal=True).numpy()
        )


def test_block_state_dict_keys_per_configuration():
    def keys(**kw):
        return {
            k: v.shape for k, v in nn.TransformerBlock(8, 2, 16, 0.0, **kw).state_dict().items()
        }

    attn = {
        "self_attn.in_proj_weight": (24, 8),
        "self_attn.in_proj_bias": (24,),
        "self_attn.out_proj.weight": (8, 8),
        "self_attn.out_proj.bias": (8,),
    }
    ff = {
        "linear1.weight": (16, 8),
        "linear1.bias": (16,),
        "linear2.weight": (8, 16),
        "linear2.bias": (8,),
    }
    ln = {"norm1.weight": (8,), "norm1.bias": (8,), "norm2.weight": (8,), "norm2.bias": (8,)}
    assert keys(norm="layer") == {**attn, **ff, **ln}
    assert keys(norm="rms") == {**attn, **ff, "norm1.weight": (8,), "norm2.weight": (8,)}
    assert keys(norm="none") == {**attn, **ff}
    swiglu = keys(norm="rms", activation="swiglu")
    assert swiglu["linear1.weight"] == (32, 8) and swiglu["linear2.weight"] == (8, 16)
    no_bias = keys(norm="layer", bias=False)
    assert not any(k.endswith("bias") for k in no_bias)


class _TorchBlock:
    """The same block written with torch modules, as a reference for rms / swiglu / none."""

    def __init__(self, torch, mine, norm, norm_first, activation):
        self.torch = torch
        self.mha = torch.nn.MultiheadAttention(8, 2, batch_first=True).double()
        self.linear1 = torch.nn.Linear(8, mine.linear1.out_features).double()
        self.linear2 = torch.nn.Linear(16, 8).double()
        if norm == "rms":
            self.norm1, self.norm2 = (torch.nn.RMSNorm(8, eps=1e-5).double() for _ in range(2))
        elif norm == "none":
            self.norm1 = self.norm2 = torch.nn.Identity()
        self.norm_first, self.activation = norm_first, activation
        state = mine.state_dict()
        with torch.no_grad():
            for name, mod in (
                ("self_attn", self.mha),
                ("linear1", self.linear1),
                ("linear2", self.linear2),
                ("norm1", self.norm1),
                ("norm2", self.norm2),
            ):
                for pname, p in mod.named_parameters():
                    p.copy_(torch.from_numpy(state[f"{name}.{pname}"].numpy()))

    def parameters(self):
        named = {}
        for name in ("self_attn", "linear1", "linear2", "norm1", "norm2"):
            mod = self.mha if name == "self_attn" else getattr(self, name)
            for pname, p in mod.named_parameters():
                named[f"{name}.{pname}"] = p
        return named

    def __call__(self, x):
        F_ = self.torch.nn.functional

        def sa(h):
            return self.mha(h, h, h, need_weights=False)[0]

        def ff(h):
            h = self.linear1(h)
            if self.activation == "swiglu":
                a, b = h.chunk(2, -1)
                h = F_.silu(a) * b
            else:
                h = F_.relu(h)
            return self.linear2(h)

        if self.norm_first:
            x = x + sa(self.norm1(x))
            return x + ff(self.norm2(x))
        x = self.norm1(x + sa(x))
        return self.norm2(x + ff(x))


@pytest.mark.parametrize(
    "norm,norm_first,activation",
    [
        ("rms", True, "swiglu"),
        ("rms", False, "relu"),
        ("none", True, "swiglu"),
        ("none", False, "relu"),
    ],
)
def test_block_parity_with_a_torch_composition(torch, rng, norm, norm_first, activation):
    mine = nn.TransformerBlock(
        8, 2, 16, 0.0, norm=norm, norm_first=norm_first, activation=activation, dtype=mg.float64
    )
    with mg.no_grad():  # non-trivial norm weights
        for name, p in mine.named_parameters():
            if name.startswith("norm"):
                p.copy_(mg.tensor(1.0 + 0.1 * rng.standard_normal(p.shape)))
    ref = _TorchBlock(torch, mine, norm, norm_first, activation)
    x = rng.standard_normal((2, 5, 8))
    X, TX = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, ref_out = mine(X), ref(TX)
    np.testing.assert_allclose(out.numpy(), ref_out.detach().numpy(), **TOL)
    g = rng.standard_normal(out.shape)
    out.backward(mg.tensor(g))
    ref_out.backward(torch.tensor(g))
    np.testing.assert_allclose(X.grad.numpy(), TX.grad.numpy(), **TOL)
    ref_params = ref.parameters()
    for name, p in mine.named_parameters():
        np.testing.assert_allclose(
            p.grad.numpy(), ref_params[name].grad.numpy(), **TOL, err_msg=name
        )


def test_block_gradcheck_rms_swiglu(rng):
    block = nn.TransformerBlock(4, 2, 3, 0.0, norm="rms", activation="swiglu", dtype=mg.float64)
    x = mg.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    params = list(block.parameters())
    assert mg.gradcheck(lambda x, *p: block(x, is_causal=True), [x, *params])


def test_block_stacks_in_transformer_encoder(rng):
    block = nn.TransformerBlock(8, 2, 16, 0.0, norm="rms", activation="swiglu")
    enc = nn.TransformerEncoder(block, 2, norm=nn.RMSNorm(8))
    x = mg.randn(2, 5, 8, requires_grad=True)
    out = enc(x, mask=nn.generate_square_subsequent_mask(5))
    assert out.shape == (2, 5, 8)
    out.sum().backward()
    assert x.grad.shape == x.shape
    assert "layers.1.norm2.weight" in enc.state_dict() and "norm.weight" in enc.state_dict()


def test_block_errors():
    with pytest.raises(ValueError, match=r"norm must be 'layer', 'rms' or 'none', got 'batch'"):
        nn.TransformerBlock(8, 2, 16, norm="batch")
    with pytest.raises(ValueError, match=r"activation must be 'relu', 'gelu' or 'swiglu'"):
        nn.TransformerBlock(8, 2, 16, activation="tanh")
    with pytest.raises(ValueError, match=r"embed_dim \(8\) must be divisible by num_heads \(3\)"):
        nn.TransformerBlock(8, 3, 16)
    with pytest.raises(ValueError, match=r"dim_feedforward must be a positive int"):
        nn.TransformerBlock(8, 2, 0)


# ============================================== a tiny causal LM: two SGD steps, both libraries
def test_tiny_causal_lm_two_sgd_momentum_steps_match_torch(torch, rng):
    import minigrad.optim as optim

    V, E, H, L, N = 11, 8, 2, 6, 3

    class MgLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(V, E, dtype=mg.float64)
            layer = nn.TransformerEncoderLayer(
                E, H, 16, dropout=0.0, norm_first=True, batch_first=True, dtype=mg.float64
            )
            self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(E, dtype=mg.float64))
            self.head = nn.Linear(E, V, dtype=mg.float64)

        def forward(self, idx):
            h = self.embed(idx)  # (N, L, E)
            h = self.encoder(h, mask=nn.generate_square_subsequent_mask(L, dtype=mg.float64))
            return self.head(h)  # (N, L, V)

    tnn = torch.nn

    class TorchLM(tnn.Module):
        def __init__(self):
            super().__init__()
            self.embed = tnn.Embedding(V, E)
            layer = tnn.TransformerEncoderLayer(
                E, H, 16, dropout=0.0, norm_first=True, batch_first=True
            )
            self.encoder = tnn.TransformerEncoder(
                layer, 2, norm=tnn.LayerNorm(E), enable_nested_tensor=False
            )
            self.head = tnn.Linear(E, V)

        def forward(self, idx):
            mask = tnn.Transformer.generate_square_subsequent_mask(L, dtype=torch.float64)
            return self.head(self.encoder(self.embed(idx), mask=mask))

    ref = TorchLM().double()
    mine = MgLM()
    _load_from_torch(mine, ref)
    opt = optim.SGD(mine.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    tokens = rng.integers(0, V, size=(N, L + 1))
    for _ in range(2):
        x, y = tokens[:, :-1], tokens[:, 1:]
        loss = F.cross_entropy(mine(mg.tensor(x)).reshape(-1, V), mg.tensor(y.reshape(-1)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        ref_logits = ref(torch.tensor(x))
        ref_loss = torch.nn.functional.cross_entropy(
            ref_logits.reshape(-1, V), torch.tensor(y.reshape(-1))
        )
        ref_opt.zero_grad()
        ref_loss.backward()
        ref_opt.step()
        np.testing.assert_allclose(loss.item(), ref_loss.item(), rtol=1e-12)
    ref_state = ref.state_dict()
    for name, value in mine.state_dict().items():
        np.testing.assert_allclose(
            value, ref_state[name].numpy(), rtol=1e-9, atol=1e-12, err_msg=name
        )

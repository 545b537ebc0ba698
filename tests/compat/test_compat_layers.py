"""nn.TransformerDecoderLayer / TransformerDecoder / Transformer, nn.Flatten / Unflatten,
F.pad: PyTorch's state_dict keys, values and gradients (parity) and gradcheck."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F


def _copy_to_torch(torch, ours, theirs):
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )


def _compare_grads(ours, theirs, atol):
    tp = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tp[name].grad.numpy(), atol=atol, err_msg=name)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_decoder_layer_matches_torch(torch, rng, norm_first, batch_first):
    kw = dict(dim_feedforward=24, dropout=0.0, norm_first=norm_first, batch_first=batch_first)
    ours = nn.TransformerDecoderLayer(16, 4, **kw)
    theirs = torch.nn.TransformerDecoderLayer(16, 4, **kw)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_to_torch(torch, ours, theirs)
    shape_t, shape_m = ((2, 5, 16), (2, 7, 16)) if batch_first else ((5, 2, 16), (7, 2, 16))
    tgt, mem = (
        rng.standard_normal(shape_t).astype(np.float32),
        rng.standard_normal(shape_m).astype(np.float32),
    )
    pad = np.zeros((2, 7), bool)
    pad[1, -2:] = True
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    out_m = ours(
        mg.tensor(tgt), mg.tensor(mem), tgt_mask=mask, memory_key_padding_mask=mg.tensor(pad)
    )
    out_t = theirs(
        torch.tensor(tgt),
        torch.tensor(mem),
        tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(5),
        memory_key_padding_mask=torch.tensor(pad),
    )
    np.testing.assert_allclose(out_m.numpy(), out_t.detach().numpy(), atol=2e-5)
    w = rng.standard_normal(out_m.shape).astype(np.float32)
    (out_m * mg.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    _compare_grads(ours, theirs, atol=1e-4)


def test_transformer_matches_torch(torch, rng):
    kw = dict(
        d_model=16,
        nhead=2,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=20,
        dropout=0.0,
        batch_first=True,
    )
    ours = nn.Transformer(**kw)
    theirs = torch.nn.Transformer(**kw)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for p in ours.parameters():  # Xavier-uniform for every matrix, as PyTorch
        if p.ndim > 1:
            bound = np.sqrt(6.0 / (p.shape[0] + p.shape[1]))
            assert np.abs(p.numpy()).max() <= bound
    _copy_to_torch(torch, ours, theirs)
    src = rng.standard_normal((2, 6, 16)).astype(np.float32)
    tgt = rng.standard_normal((2, 4, 16)).astype(np.float32)
    mask_m = nn.Transformer.generate_square_subsequent_mask(4)
    mask_t = torch.nn.Transformer.generate_square_subsequent_mask(4)
    out_m = ours(mg.tensor(src), mg.tensor(tgt), tgt_mask=mask_m)
    out_t = theirs(torch.tensor(src), torch.tensor(tgt), tgt_mask=mask_t)
    np.testing.assert_allclose(out_m.numpy(), out_t.detach().numpy(), atol=3e-5)
    out_m.sum().backward()
    out_t.sum().backward()
    _compare_grads(ours, theirs, atol=2e-4)
    np.testing.assert_array_equal(mask_m.numpy(), mask_t.numpy())


def test_decoder_stack_gradcheck_float64(rng):
    layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=6, dropout=0.0, dtype=mg.float64)
    dec = nn.TransformerDecoder(layer, num_layers=2, norm=nn.LayerNorm(4, dtype=mg.float64))
    assert [k for k in dec.state_dict() if k.startswith("layers.1.norm3")] == [
        "layers.1.norm3.weight",
        "layers.1.norm3.bias",
    ]
    tgt = mg.tensor(rng.standard_normal((3, 1, 4)), requires_grad=True)
    mem = mg.tensor(rng.standard_normal((2, 1, 4)), requires_grad=True)
    mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=mg.float64)
    assert mg.gradcheck(lambda t, m: dec(t, m, tgt_mask=mask), (tgt, mem))


def test_transformer_errors():
    model = nn.Transformer(8, 2, 1, 1, 8, dropout=0.0)
    with pytest.raises(RuntimeError, match=r"the batch number of src \(2\) and tgt \(3\)"):
        model(mg.zeros(5, 2, 8), mg.zeros(4, 3, 8))
    with pytest.raises(RuntimeError, match=r"feature number of src \(6\).*d_model \(8\)"):
        model(mg.zeros(5, 2, 6), mg.zeros(4, 2, 8))
    with pytest.raises(ValueError, match="activation should be 'relu' or 'gelu'"):
        nn.TransformerDecoderLayer(8, 2, activation="tanh")


def test_flatten_unflatten_match_torch(torch):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for ours, theirs in [
        (nn.Flatten(), torch.nn.Flatten()),
        (nn.Flatten(0, 1), torch.nn.Flatten(0, 1)),
        (nn.Unflatten(2, (2, 2)), torch.nn.Unflatten(2, (2, 2))),
        (nn.Unflatten(-1, (-1, 2)), torch.nn.Unflatten(-1, (-1, 2))),
    ]:
        np.testing.assert_array_equal(ours(mg.tensor(a)).numpy(), theirs(torch.tensor(a)).numpy())
        assert repr(ours) == repr(theirs)
    seq = nn.Sequential(nn.Flatten(), nn.Linear(12, 2))
    assert seq(mg.zeros(5, 3, 4)).shape == (5, 2)
    with pytest.raises(ValueError, match=r"Unflatten: unflattened_size \(5, 2\) does not multiply"):
        nn.Unflatten(1, (5, 2))(mg.zeros(2, 12))


PADS = [
    ((1, 2), "constant", 0.5),
    ((1, 0, 2, 1), "constant", None),
    ((-1, 1), "constant", None),
    ((0, 0, -1, 2), "constant", 3.0),
    ((2, 1), "reflect", None),
    ((1, 2, 1, 0), "reflect", None),
    ((2, 3), "replicate", None),
    ((1, 1, 2, 0), "replicate", None),
    ((1, 2), "circular", None),
    ((1, 1, 1, 2), "circular", None),
]


@pytest.mark.parametrize("pad,mode,value", PADS)
def test_pad_matches_torch_and_gradchecks(torch, rng, pad, mode, value):
    # PyTorch pads 1 dim of a 3-D input, or 2 of a 4-D one, in the non-constant modes
    a = rng.standard_normal((2, 3, 4) if len(pad) == 2 else (1, 2, 3, 4))
    kw = {} if value is None else {"value": value}
    x, t = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    out_m, out_t = F.pad(x, pad, mode=mode, **kw), torch.nn.functional.pad(t, pad, mode=mode, **kw)
    np.testing.assert_array_equal(out_m.numpy(), out_t.detach().numpy())
    w = rng.standard_normal(out_m.shape)
    (out_m * mg.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-12)
    assert mg.gradcheck(
        lambda x: F.pad(x, pad, mode=mode, **kw), (mg.tensor(a, requires_grad=True),)
    )


def test_pad_errors():
    x = mg.zeros(2, 3)
    with pytest.raises(ValueError, match="pad: pad must be an even-length sequence of ints"):
        F.pad(x, (1,))
    with pytest.raises(ValueError, match="pad: padding of length 6 covers 3 dims"):
        F.pad(x, (1, 1, 1, 1, 1, 1))
    with pytest.raises(ValueError, match=r"reflect padding \(3, 0\) must be smaller than the size"):
        F.pad(x, (3, 0), mode="reflect")
    with pytest.raises(ValueError, match="mode must be 'constant', 'reflect'"):
        F.pad(x, (1, 1), mode="mirror")

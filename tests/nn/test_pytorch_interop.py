"""A small language-model-like network, built in minigrad and in PyTorch: weights move
both ways with no renaming, and forward, loss, gradients and several AdamW steps with
gradient clipping and a warmup-cosine schedule agree."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim

V, D, H, T = 11, 8, 16, 5


def _build(lib_nn):
    class Net(lib_nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = lib_nn.Embedding(V, D, padding_idx=0)
            self.mlp = lib_nn.Sequential(
                lib_nn.Linear(D, H),
                lib_nn.GELU(),
                lib_nn.Dropout(0.1),
                lib_nn.Linear(H, D),
                lib_nn.SiLU(),
            )
            self.heads = lib_nn.ModuleDict({"lm": lib_nn.Linear(D, V, bias=False)})

        def forward(self, idx):
            h = self.tok(idx)  # (B, T, D)
            h = h + self.mlp(h)  # (B, T, D)
            return self.heads["lm"](h)  # (B, T, V)

    return Net()


def _copy(torch, src, dst, to_torch):
    state = src.state_dict()
    if to_torch:
        dst.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()})
    else:
        dst.load_state_dict(state)  # torch tensors are accepted as they are


@pytest.mark.parametrize("direction", ["torch_to_minigrad", "minigrad_to_torch"])
def test_weights_move_and_outputs_match(torch, rng, direction):
    tnet, mnet = _build(torch.nn), _build(nn)
    assert list(tnet.state_dict()) == list(mnet.state_dict())
    if direction == "torch_to_minigrad":
        _copy(torch, tnet, mnet, to_torch=False)
    else:
        _copy(torch, mnet, tnet, to_torch=True)
    tnet.eval()
    mnet.eval()
    idx = rng.integers(0, V, (3, T))
    with torch.no_grad():
        expected = tnet(torch.from_numpy(idx)).numpy()
    with mg.no_grad():
        got = mnet(mg.tensor(idx)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # and back again: the round trip is exact
    back = _build(torch.nn)
    _copy(torch, mnet, back, to_torch=True)
    for k, v in tnet.state_dict().items():
        np.testing.assert_array_equal(back.state_dict()[k].numpy(), v.numpy())


def test_training_steps_match_pytorch(torch, rng):
    torch.manual_seed(0)
    tnet = _build(torch.nn).double()
    mnet = _build(nn).double()
    _copy(torch, tnet, mnet, to_torch=False)
    tnet.eval()  # dropout off: both sides deterministic
    mnet.eval()

    def make(lib_optim, net):
        opt = lib_optim.AdamW(net.parameters(), lr=0.05, weight_decay=0.1)
        warm = lib_optim.lr_scheduler.LinearLR(opt, start_factor=0.2, total_iters=2)
        cos = lib_optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        return opt, lib_optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[2])

    topt, tsched = make(torch.optim, tnet)
    mopt, msched = make(optim, mnet)
    for _ in range(6):
        idx = rng.integers(0, V, (4, T))
        tgt = rng.integers(0, V, (4, T))
        tgt[0, :2] = -100
        tloss = torch.nn.functional.cross_entropy(
            tnet(torch.from_numpy(idx)).reshape(-1, V),
            torch.from_numpy(tgt.reshape(-1)),
            label_smoothing=0.1,
        )
        topt.zero_grad()
        tloss.backward()
        tnorm = torch.nn.utils.clip_grad_norm_(tnet.parameters(), 0.5)
        topt.step()
        tsched.step()

        mloss = F.cross_entropy(
            mnet(mg.tensor(idx)).reshape(-1, V), mg.tensor(tgt.reshape(-1)), label_smoothing=0.1
        )
        mopt.zero_grad()
        mloss.backward()
        mnorm = nn.utils.clip_grad_norm_(mnet.parameters(), 0.5)
        mopt.step()
        msched.step()

        np.testing.assert_allclose(mloss.item(), tloss.item(), rtol=1e-10)
        np.testing.assert_allclose(mnorm.item(), tnorm.item(), rtol=1e-10)
        assert msched.get_last_lr() == pytest.approx(tsched.get_last_lr(), rel=1e-14)
    for k, v in tnet.state_dict().items():
        np.testing.assert_allclose(
            mnet.state_dict()[k], v.numpy(), rtol=1e-9, atol=1e-12, err_msg=k
        )

"""optim.swa_utils against PyTorch's: AveragedModel (SWA by default, EMA through
avg_fn / multi_avg_fn, use_buffers), its state_dict keys, SWALR's rates, update_bn's
statistics; without PyTorch the averages by hand."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim
from minigrad.optim import swa_utils


def _model(lib):
    return lib.nn.Sequential(
        lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2)
    ).double()


def _copy_weights(src, dst):
    dst.load_state_dict({k: v.detach().numpy() for k, v in src.state_dict().items()})


def _avg_kwargs(lib, kind):
    su = lib.optim.swa_utils
    return {
        "swa": {},
        "ema_fn": dict(avg_fn=su.get_ema_avg_fn(0.9)),
        "ema_multi": dict(multi_avg_fn=su.get_ema_multi_avg_fn(0.8)),
        "swa_multi": dict(multi_avg_fn=su.get_swa_multi_avg_fn()),
    }[kind]


@pytest.mark.parametrize("kind", ["swa", "ema_fn", "ema_multi", "swa_multi"])
def test_averaged_model_matches_pytorch(torch, rng, kind):
    tm, mm = _model(torch), _model(mg)
    _copy_weights(tm, mm)
    tavg = torch.optim.swa_utils.AveragedModel(tm, **_avg_kwargs(torch, kind))
    mavg = swa_utils.AveragedModel(mm, **_avg_kwargs(mg, kind))
    for _ in range(4):
        x = rng.standard_normal((5, 3))
        tm(torch.tensor(x))  # moves the batch-norm statistics
        mm(mg.tensor(x))
        step = {k: rng.standard_normal(tuple(v.shape)) * 0.1 for k, v in tm.named_parameters()}
        with torch.no_grad():
            for k, p in tm.named_parameters():
                p.add_(torch.tensor(step[k]))
        for k, p in mm.named_parameters():
            p.data.add_(mg.tensor(step[k]))
        tavg.update_parameters(tm)
        mavg.update_parameters(mm)
    tsd, msd = tavg.state_dict(), mavg.state_dict()
    assert list(msd) == list(tsd)
    # PyTorch's multi-tensor SWA weights by 1 / (n + 1) computed from an int64 tensor, in
    # float32; minigrad divides in float64.
    tol = dict(rtol=1e-7, atol=1e-9) if kind == "swa_multi" else dict(rtol=1e-12, atol=1e-14)
    for k in tsd:
        np.testing.assert_allclose(msd[k].numpy(), tsd[k].numpy(), **tol, err_msg=k)
    x = rng.standard_normal((2, 3))
    tavg.eval()
    mavg.eval()
    np.testing.assert_allclose(
        mavg(mg.tensor(x)).numpy(), tavg(torch.tensor(x)).detach().numpy(), **tol
    )


@pytest.mark.parametrize(
    "kw",
    [
        dict(swa_lr=0.05),
        dict(swa_lr=[0.05, 0.01], anneal_epochs=3, anneal_strategy="linear"),
        dict(swa_lr=0.02, anneal_epochs=0),
    ],
)
def test_swalr_matches_pytorch(torch, kw):
    seqs = []
    for lib in (torch, mg):
        ps = [lib.zeros(1, requires_grad=True) for _ in range(2)]
        opt = lib.optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.3}], lr=0.1)
        sched = lib.optim.swa_utils.SWALR(opt, **kw)
        seq = [[g["lr"] for g in opt.param_groups]]
        for _ in range(12):
            opt.step()
            sched.step()
            seq.append([g["lr"] for g in opt.param_groups])
        seqs.append(seq)
    np.testing.assert_allclose(seqs[1], seqs[0], rtol=1e-12)


def test_update_bn_matches_pytorch(torch, rng):
    tm, mm = _model(torch), _model(mg)
    _copy_weights(tm, mm)
    batches = [rng.standard_normal((6, 3)) for _ in range(3)]
    tm.eval()
    mm.eval()
    torch.optim.swa_utils.update_bn([(torch.tensor(b), 0) for b in batches], tm)
    swa_utils.update_bn([(mg.tensor(b), 0) for b in batches], mm)
    assert not mm.training and mm[1].momentum == 0.1
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(mm.state_dict()[k].numpy(), v.numpy(), rtol=1e-10, err_msg=k)


def test_swa_average_by_hand():
    w = nn.Linear(2, 1, bias=False)
    avg = swa_utils.AveragedModel(w)
    values = [1.0, 2.0, 6.0]
    for v in values:
        w.weight.data.fill_(v)
        avg.update_parameters(w)
    np.testing.assert_allclose(avg.module.weight.numpy(), np.mean(values))
    assert int(avg.n_averaged.item()) == 3 and avg.module.weight is not w.weight


def test_use_buffers_averages_float_buffers_and_copies_counts():
    bn = nn.BatchNorm1d(2).double()
    avg = swa_utils.AveragedModel(
        bn, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.5), use_buffers=True
    )
    for v in (2.0, 4.0):
        bn.running_mean.fill_(v)
        bn.num_batches_tracked.fill_(int(v))
        avg.update_parameters(bn)
    np.testing.assert_allclose(avg.module.running_mean.numpy(), 3.0)
    assert int(avg.module.num_batches_tracked.item()) == 4


def test_errors():
    with pytest.raises(ValueError):
        swa_utils.AveragedModel(
            nn.Linear(1, 1),
            avg_fn=swa_utils.get_swa_avg_fn(),
            multi_avg_fn=swa_utils.get_swa_multi_avg_fn(),
        )
    opt = optim.SGD([mg.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError):
        swa_utils.SWALR(opt, 0.01, anneal_strategy="step")
    with pytest.raises(ValueError):
        swa_utils.SWALR(opt, 0.01, anneal_epochs=-1)

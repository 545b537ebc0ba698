"""ParameterList / ParameterDict, Bilinear, InstanceNorm1d/2d/3d, BatchNorm3d, the padding
layers and the channel / alpha dropouts: against PyTorch's layers (same weights: outputs,
gradients, running statistics, state_dict keys) and, always, gradcheck and the
statistics each one promises; the dtype of every layer's state under a float64 default."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck


def _load_same(torch_layer, mg_layer):
    mg_layer.load_state_dict({k: v.detach().numpy() for k, v in torch_layer.state_dict().items()})


def _forward_both(torch, tl, ml, arrays, steps=1):
    for _ in range(steps):
        tin = [torch.tensor(a, requires_grad=True) for a in arrays]
        min_ = [mg.tensor(a, requires_grad=True) for a in arrays]
        ty, my = tl(*tin), ml(*min_)
        np.testing.assert_allclose(my.numpy(), ty.detach().numpy(), rtol=1e-9, atol=1e-11)
        (ty * ty).sum().backward()
        (my * my).sum().backward()
        for t, m in zip(tin, min_):
            np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)
    for (k, tv), (k2, mv) in zip(tl.state_dict().items(), ml.state_dict().items()):
        assert k == k2
        np.testing.assert_allclose(mv.numpy(), tv.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "name,args,shapes",
    [
        ("Bilinear", (3, 4, 5), [(2, 3), (2, 4)]),
        ("InstanceNorm1d", (3,), [(2, 3, 6)]),
        (
            "InstanceNorm1d",
            dict(num_features=3, affine=True, track_running_stats=True),
            [(2, 3, 6)],
        ),
        ("InstanceNorm2d", dict(num_features=2, affine=True), [(2, 2, 3, 4)]),
        ("InstanceNorm3d", dict(num_features=2, track_running_stats=True), [(2, 2, 2, 3, 2)]),
        ("BatchNorm3d", (2,), [(3, 2, 2, 3, 2)]),
    ],
)
def test_layers_match_pytorch(torch, rng, name, args, shapes):
    make = (
        (lambda lib: getattr(lib.nn, name)(**args))
        if isinstance(args, dict)
        else (lambda lib: getattr(lib.nn, name)(*args))
    )
    tl, ml = make(torch).double(), make(mg).double()
    _load_same(tl, ml)
    arrays = [rng.standard_normal(s) for s in shapes]
    _forward_both(torch, tl, ml, arrays, steps=2)
    tl.eval()
    ml.eval()
    _forward_both(torch, tl, ml, arrays)


PADS = [
    (f"{k}Pad{n}d", n) for k in ("Zero", "Reflection", "Replication", "Circular") for n in (1, 2, 3)
]


@pytest.mark.parametrize("name,n", PADS + [("ConstantPad1d", 1), ("ConstantPad3d", 3)], ids=str)
def test_padding_layers_match_pytorch(torch, rng, name, n):
    padding = (1, 2, 2, 1, 0, 1)[: 2 * n]
    args = (padding, 1.5) if name.startswith("Constant") else (padding,)
    x = rng.standard_normal((2, 3, 4, 4, 4)[: n + 2])
    _forward_both(torch, getattr(torch.nn, name)(*args), getattr(nn, name)(*args), [x])
    assert repr(getattr(nn, name)(*args)).startswith(name)


def test_parameter_containers_register_like_pytorch(torch):
    def build(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.plist = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2)), lib.zeros(3)])
                self.plist.append(lib.nn.Parameter(lib.ones(1)))
                self.pdict = lib.nn.ParameterDict({"b": lib.nn.Parameter(lib.ones(2))})
                self.pdict["a"] = lib.nn.Parameter(lib.zeros(1))

        return M()

    t, m = build(torch), build(mg)
    assert list(m.state_dict()) == list(t.state_dict())
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert all(isinstance(p, nn.Parameter) for p in m.plist)


def test_parameter_containers_behave_as_list_and_dict():
    plist = nn.ParameterList([mg.ones(2), mg.ones(3)])
    plist[0] = mg.zeros(4)
    assert len(plist) == 2 and plist[0].shape == (4,) and plist[-1].shape == (3,)
    pdict = nn.ParameterDict([("w", mg.ones(2))])
    pdict.update({"v": mg.zeros(1)})
    assert list(pdict) == ["w", "v"] and "v" in pdict and pdict.get("x") is None
    assert pdict.pop("w").shape == (2,) and list(pdict.keys()) == ["v"]
    with pytest.raises(KeyError):
        pdict["a.b"] = mg.ones(1)
    with pytest.raises(TypeError):
        plist.extend(mg.ones(2))


def test_bilinear_and_instance_norm_gradcheck(rng):
    x1, x2 = (mg.tensor(rng.standard_normal(s), requires_grad=True) for s in [(2, 3), (2, 4)])
    w = mg.tensor(rng.standard_normal((5, 3, 4)), requires_grad=True)
    b = mg.tensor(rng.standard_normal(5), requires_grad=True)
    assert gradcheck(F.bilinear, (x1, x2, w, b))
    x = mg.tensor(rng.standard_normal((2, 3, 5)), requires_grad=True)
    g = mg.tensor(rng.standard_normal(3), requires_grad=True)
    assert gradcheck(lambda x, g: F.instance_norm(x, weight=g), (x, g))


@pytest.mark.parametrize(
    "layer,shape",
    [
        (nn.Dropout1d, (50, 40, 6)),
        (nn.Dropout2d, (40, 50, 2, 3)),
        (nn.Dropout3d, (40, 50, 2, 1, 3)),
    ],
)
def test_channel_dropout_zeroes_whole_channels(layer, shape):
    y = layer(p=0.3)(mg.ones(*shape)).numpy().reshape(shape[0], shape[1], -1)
    per_channel = y.min(-1)
    assert (y.max(-1) == per_channel).all()  # a channel is all kept or all dropped
    np.testing.assert_allclose(per_channel[per_channel != 0], 1 / 0.7, rtol=1e-6)
    assert 0.25 < (per_channel == 0).mean() < 0.35
    assert layer(p=0.3).eval()(mg.ones(*shape)).numpy().min() == 1


def test_alpha_dropout_keeps_mean_and_variance():
    x = mg.randn(200_000, dtype=mg.float64)
    y = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    z = nn.FeatureAlphaDropout(0.2)(mg.randn(400, 500, 2, dtype=mg.float64)).numpy()
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.02
    assert np.array_equal(nn.AlphaDropout(0.5).eval()(x).numpy(), x.numpy())


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: F.dropout1d(mg.ones(2, 3, 4, 5)), RuntimeError),
        (lambda: nn.Dropout2d(p=1.5), ValueError),
        (lambda: F.bilinear(mg.ones(2, 3), mg.ones(2, 4), mg.ones(5, 4, 3)), RuntimeError),
        (lambda: nn.InstanceNorm1d(3)(mg.ones(2, 3, 4, 5)), ValueError),
        (lambda: nn.BatchNorm3d(2)(mg.ones(2, 2, 3)), ValueError),
        (lambda: nn.ZeroPad2d((1, 2, 3)), ValueError),
    ],
)
def test_bad_input_raises_pytorchs_exception_class(call, error):
    with pytest.raises(error):
        call()


def test_parameters_to_vector_and_back(torch):
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1)).double()
    mm = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1)).double()
    _load_same(tm, mm)
    tv = torch.nn.utils.parameters_to_vector(tm.parameters())
    mv = nn.utils.parameters_to_vector(mm.parameters())
    np.testing.assert_array_equal(mv.numpy(), tv.detach().numpy())
    nn.utils.vector_to_parameters(mg.arange(11, dtype=mg.float64), mm.parameters())
    torch.nn.utils.vector_to_parameters(torch.arange(11, dtype=torch.float64), tm.parameters())
    for k, v in tm.state_dict().items():
        np.testing.assert_array_equal(mm.state_dict()[k].numpy(), v.numpy())


def test_parameters_to_vector_is_differentiable():
    layer = nn.Linear(2, 2)
    (nn.utils.parameters_to_vector(layer.parameters()) ** 2).sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), 2 * layer.weight.numpy())


def test_consume_prefix_and_ntuples():
    from collections import OrderedDict

    from minigrad.nn.modules.utils import _pair, _triple, consume_prefix_in_state_dict_if_present

    sd = OrderedDict([("module.w", 1), ("b", 2), ("module.c.d", 3)])
    consume_prefix_in_state_dict_if_present(sd, "module.")
    assert list(sd.items()) == [("w", 1), ("b", 2), ("c.d", 3)]
    assert _pair(3) == (3, 3) and _triple((1, 2, 3)) == (1, 2, 3)
    assert nn.utils.skip_init(nn.Linear, 2, 3).weight.shape == (3, 2)
    assert mg.version.cuda is None


BAGS = [
    ("2d_mean", dict(mode="mean"), [[1, 2, 4], [4, 3, 2]], None, {}),
    ("2d_max", dict(mode="max"), [[1, 2, 4], [0, 3, 2]], None, {}),
    ("offsets_sum", dict(mode="sum"), [1, 2, 4, 5, 4, 3, 2, 9], [0, 2, 2, 5], {}),
    (
        "offsets_mean_last",
        dict(mode="mean", include_last_offset=True),
        [1, 2, 4, 5, 4, 3],
        [0, 2, 2, 6],
        {},
    ),
    ("offsets_max", dict(mode="max"), [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 7], {}),
    ("padding_mean", dict(mode="mean", padding_idx=2), [[1, 2, 4], [2, 2, 2], [0, 2, 3]], None, {}),
    ("weights_sum", dict(mode="sum"), [1, 2, 4, 5, 4], [0, 3], {"per_sample_weights": True}),
]


@pytest.mark.parametrize("name,kw,index,offsets,extra", BAGS, ids=[b[0] for b in BAGS])
def test_embedding_bag_matches_pytorch(torch, rng, name, kw, index, offsets, extra):
    tl, ml = torch.nn.EmbeddingBag(10, 3, **kw).double(), nn.EmbeddingBag(10, 3, **kw).double()
    _load_same(tl, ml)
    args_t = [torch.tensor(index)] + ([torch.tensor(offsets)] if offsets is not None else [])
    args_m = [mg.tensor(index)] + ([mg.tensor(offsets)] if offsets is not None else [])
    kwargs_t, kwargs_m = {}, {}
    if extra.get("per_sample_weights"):
        w = rng.uniform(0.5, 2.0, len(index))
        kwargs_t["per_sample_weights"], kwargs_m["per_sample_weights"] = (
            torch.tensor(w),
            mg.tensor(w),
        )
    ty, my = tl(*args_t, **kwargs_t), ml(*args_m, **kwargs_m)
    np.testing.assert_allclose(my.numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = rng.standard_normal(tuple(ty.shape))
    ty.backward(torch.tensor(g))
    my.backward(mg.tensor(g))
    np.testing.assert_allclose(
        ml.weight.grad.numpy(), tl.weight.grad.numpy(), rtol=1e-12, atol=1e-14
    )


def test_embedding_bag_errors_and_gradcheck(rng):
    w = mg.tensor(rng.standard_normal((6, 2)), requires_grad=True)
    assert gradcheck(lambda w: F.embedding_bag(mg.tensor([[1, 2], [3, 1]]), w, mode="mean"), (w,))
    with pytest.raises(ValueError):
        F.embedding_bag(mg.tensor([[1, 2]]), w, offsets=mg.tensor([0]))
    with pytest.raises(NotImplementedError):
        F.embedding_bag(mg.tensor([[1, 2]]), w, mode="max", per_sample_weights=mg.ones(2))
    with pytest.raises(IndexError):
        F.embedding_bag(mg.tensor([[1, 7]]), w)


@pytest.mark.parametrize(
    "kw",
    [
        dict(bias=True),
        dict(weight=[0.5, 1.0, 2.0, 1.0, 1.5], reduction="sum"),
        dict(ignore_index=2, label_smoothing=0.1),
        dict(reduction="none"),
    ],
)
def test_linear_cross_entropy_matches_pytorch(torch, rng, kw):
    def build(lib):
        k = dict(kw)
        if "weight" in k:
            k["weight"] = lib.tensor(np.array(k["weight"]))
        return lib.nn.LinearCrossEntropyLoss(4, 5, **k).double()

    tl, ml = build(torch), build(mg)
    assert list(ml.state_dict()) == list(tl.state_dict())
    _load_same(tl, ml)
    x, y = rng.standard_normal((6, 4)), np.array([0, 2, 4, 1, 2, 3])
    tin, min_ = torch.tensor(x, requires_grad=True), mg.tensor(x, requires_grad=True)
    ty, my = tl(tin, torch.tensor(y)), ml(min_, mg.tensor(y))
    np.testing.assert_allclose(my.numpy(), ty.detach().numpy(), rtol=1e-12)
    ty.sum().backward()
    my.sum().backward()
    np.testing.assert_allclose(min_.grad.numpy(), tin.grad.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(
        ml.linear.weight.grad.numpy(), tl.linear.weight.grad.numpy(), rtol=1e-10, atol=1e-14
    )


def test_linear_cross_entropy_k_dimensional_matches_pytorch(torch, rng):
    """out_features (d_1, ..., d_K): a Linear(in, C * d_1 * ... * d_K) head read as a
    (C, d_1, ..., d_K, in) weight, with a target (N, d_1, ..., d_K)."""
    tl = torch.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True).double()
    ml = nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True).double()
    assert {k: tuple(v.shape) for k, v in ml.state_dict().items()} == {
        k: tuple(v.shape) for k, v in tl.state_dict().items()
    }
    _load_same(tl, ml)
    x, y = rng.standard_normal((5, 4)), rng.integers(0, 3, (5, 2))
    tin, min_ = torch.tensor(x, requires_grad=True), mg.tensor(x, requires_grad=True)
    ty, my = tl(tin, torch.tensor(y)), ml(min_, mg.tensor(y))
    np.testing.assert_allclose(my.numpy(), ty.detach().numpy(), rtol=1e-12)
    ty.backward()
    my.backward()
    np.testing.assert_allclose(min_.grad.numpy(), tin.grad.numpy(), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize(
    "kw", [dict(cutoffs=[4, 10]), dict(cutoffs=[3], head_bias=True, div_value=2.0)]
)
def test_adaptive_log_softmax_matches_pytorch(torch, rng, kw):
    tl = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, **kw).double()
    ml = nn.AdaptiveLogSoftmaxWithLoss(8, 20, **kw).double()
    assert list(ml.state_dict()) == list(tl.state_dict())
    _load_same(tl, ml)
    x, y = rng.standard_normal((7, 8)), np.array([0, 3, 5, 12, 19, 2, 9])
    tin, min_ = torch.tensor(x, requires_grad=True), mg.tensor(x, requires_grad=True)
    tout, mout = tl(tin, torch.tensor(y)), ml(min_, mg.tensor(y))
    np.testing.assert_allclose(mout.output.numpy(), tout.output.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(mout.loss.numpy(), tout.loss.detach().numpy(), rtol=1e-12)
    tout.loss.backward()
    mout.loss.backward()
    np.testing.assert_allclose(min_.grad.numpy(), tin.grad.numpy(), rtol=1e-10, atol=1e-14)
    for (k, tp), (_, mp) in zip(tl.named_parameters(), ml.named_parameters()):
        np.testing.assert_allclose(
            mp.grad.numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-14, err_msg=k
        )
    np.testing.assert_allclose(
        ml.log_prob(mg.tensor(x)).numpy(), tl.log_prob(torch.tensor(x)).detach().numpy(), rtol=1e-12
    )
    assert ml.predict(mg.tensor(x)).numpy().tolist() == tl.predict(torch.tensor(x)).tolist()


def test_adaptive_log_softmax_errors():
    with pytest.raises(ValueError):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3])
    with pytest.raises(RuntimeError):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(mg.ones(2, 8), mg.tensor([1, 10]))


def test_factory_kwargs_like_pytorch(torch):
    for kwargs in ({}, {"device": "cpu"}, {"dtype": "d", "factory_kwargs": {"device": "cpu"}}):
        assert nn.factory_kwargs(kwargs) == torch.nn.factory_kwargs(kwargs)
    assert nn.factory_kwargs(None) == {}
    for bad in ({"bias": True}, {"dtype": 1, "factory_kwargs": {"dtype": 2}}):
        with pytest.raises(TypeError):
            nn.factory_kwargs(bad)


LAYERS_WITH_STATE = [
    lambda nn: nn.Linear(3, 2),
    lambda nn: nn.Bilinear(3, 2, 4),
    lambda nn: nn.PReLU(3),
    lambda nn: nn.Embedding(5, 3, padding_idx=0),
    lambda nn: nn.EmbeddingBag(5, 3),
    lambda nn: nn.MultiheadAttention(4, 2, add_bias_kv=True),
    lambda nn: nn.MultiheadAttention(4, 2, kdim=3, vdim=5),
    lambda nn: nn.LayerNorm(4),
    lambda nn: nn.RMSNorm(4),
    lambda nn: nn.GroupNorm(2, 4),
    lambda nn: nn.BatchNorm1d(4),
    lambda nn: nn.InstanceNorm1d(4, affine=True, track_running_stats=True),
    lambda nn: nn.TransformerEncoderLayer(4, 2, 8),
    lambda nn: nn.TransformerDecoderLayer(4, 2, 8),
]


@pytest.mark.parametrize("make", LAYERS_WITH_STATE)
def test_parameters_and_buffers_follow_the_default_dtype_as_pytorchs(torch, make):
    def dtypes(layer):
        return {k: str(v.dtype).replace("torch.", "") for k, v in layer.state_dict().items()}

    try:
        mg.set_default_dtype(mg.float64)
        torch.set_default_dtype(torch.float64)
        assert dtypes(make(nn)) == dtypes(make(torch.nn))
    finally:
        mg.set_default_dtype(mg.float32)
        torch.set_default_dtype(torch.float32)

"""The activation, loss and distance layers of nn/activation_composite.py and
nn/loss_composite.py: each against the same PyTorch layer built with the same options
(output, input gradients, state_dict keys, repr's options), and without PyTorch: a
module equals its functional form, PReLU learns, RReLU is random only in training."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck

W = [0.5, 1.0, 2.0]  # class weights for three classes

# (layer name, constructor args as a function of the library, maker of float inputs,
#  maker of non-differentiated extra inputs (targets) as a function of the library)
ACT = [
    ("ELU", lambda lib: (0.5,)),
    ("SELU", lambda lib: ()),
    ("CELU", lambda lib: (1.5,)),
    ("Hardtanh", lambda lib: (-0.5, 0.7)),
    ("ReLU6", lambda lib: ()),
    ("Hardsigmoid", lambda lib: ()),
    ("Hardswish", lambda lib: ()),
    ("Mish", lambda lib: ()),
    ("Softplus", lambda lib: (2.0, 3.0)),
    ("Softsign", lambda lib: ()),
    ("Softshrink", lambda lib: (0.3,)),
    ("Hardshrink", lambda lib: (0.3,)),
    ("Tanhshrink", lambda lib: ()),
    ("LogSigmoid", lambda lib: ()),
    ("Threshold", lambda lib: (0.1, -1.0)),
    ("GLU", lambda lib: (1,)),
    ("Softmin", lambda lib: (1,)),
    ("Softmax2d", lambda lib: ()),
    ("PReLU", lambda lib: (4,)),
]


def _ints(lib, values):
    return lib.tensor(values)


def _floats(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.float64))


LOSS = [
    ("L1Loss", lambda lib: (), 2, None),
    ("SmoothL1Loss", lambda lib: dict(beta=0.5), 2, None),
    ("HuberLoss", lambda lib: dict(delta=0.5, reduction="sum"), 2, None),
    ("BCEWithLogitsLoss", lambda lib: dict(pos_weight=_floats(lib, [1, 2, 3, 4])), 2, None),
    ("KLDivLoss", lambda lib: dict(reduction="batchmean", log_target=True), 2, None),
    ("PoissonNLLLoss", lambda lib: dict(full=False), 2, None),
    (
        "GaussianNLLLoss",
        lambda lib: dict(full=True),
        2,
        lambda lib: (_floats(lib, np.full((3, 4), 0.7)),),
    ),
    (
        "MarginRankingLoss",
        lambda lib: dict(margin=0.1),
        2,
        lambda lib: (_floats(lib, [[1, -1, 1, 1]] * 3),),
    ),
    (
        "CosineEmbeddingLoss",
        lambda lib: dict(margin=0.2),
        2,
        lambda lib: (_floats(lib, [1, -1, -1]),),
    ),
    ("SoftMarginLoss", lambda lib: (), 1, lambda lib: (_floats(lib, np.ones((3, 4))),)),
    ("HingeEmbeddingLoss", lambda lib: (), 1, lambda lib: (_floats(lib, -np.ones((3, 4))),)),
    (
        "MultiMarginLoss",
        lambda lib: dict(weight=_floats(lib, W + [1.0])),
        1,
        lambda lib: (_ints(lib, [0, 3, 1]),),
    ),
    (
        "MultiLabelMarginLoss",
        lambda lib: (),
        1,
        lambda lib: (_ints(lib, [[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 0, 0]]),),
    ),
    (
        "MultiLabelSoftMarginLoss",
        lambda lib: dict(weight=_floats(lib, W + [1.0])),
        1,
        lambda lib: (_floats(lib, [[1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 1, 0]]),),
    ),
    ("TripletMarginLoss", lambda lib: dict(margin=2.0, swap=True), 3, None),
    ("CosineSimilarity", lambda lib: dict(dim=0), 2, None),
    ("PairwiseDistance", lambda lib: dict(p=1.0, keepdim=True), 2, None),
]


def _build(lib, name, args):
    made = args(lib)
    return getattr(lib.nn, name)(**made) if isinstance(made, dict) else getattr(lib.nn, name)(*made)


def _compare(torch, tlayer, mlayer, arrays, extra_t=(), extra_m=()):
    tin = [torch.tensor(a, requires_grad=True) for a in arrays]
    min_ = [mg.tensor(a, requires_grad=True) for a in arrays]
    ty, my = tlayer(*tin, *extra_t), mlayer(*min_, *extra_m)
    np.testing.assert_allclose(my.numpy(), ty.detach().numpy(), rtol=1e-7, atol=1e-12)
    ty.sum().backward()
    my.sum().backward()
    for t, m in zip(tin, min_):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-12)
    assert list(mlayer.state_dict()) == list(tlayer.state_dict())


@pytest.mark.parametrize("name,args", ACT, ids=[c[0] for c in ACT])
def test_activation_layers_match_pytorch(torch, rng, name, args):
    x = rng.standard_normal((2, 4, 3, 2)) * 2
    tlayer, mlayer = _build(torch, name, args).double(), _build(mg, name, args).double()
    if name == "PReLU":
        mlayer.weight.data.copy_(mg.tensor(tlayer.weight.detach().numpy()))
    _compare(torch, tlayer, mlayer, [x])


@pytest.mark.parametrize("name,args,n,extra", LOSS, ids=[c[0] for c in LOSS])
def test_loss_layers_match_pytorch(torch, rng, name, args, n, extra):
    arrays = [rng.standard_normal((3, 4)) for _ in range(n)]
    if name == "PoissonNLLLoss":
        arrays[1] = np.abs(arrays[1])
    tlayer, mlayer = _build(torch, name, args), _build(mg, name, args)
    extra_t, extra_m = (extra(torch), extra(mg)) if extra else ((), ())
    _compare(torch, tlayer, mlayer, arrays, extra_t, extra_m)


def test_bce_loss_with_weight_matches_pytorch(torch, rng):
    p, y = rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0, 1, (3, 4))
    w = np.array([1.0, 2.0, 0.5, 1.5])
    _compare(
        torch,
        torch.nn.BCELoss(torch.tensor(w)),
        nn.BCELoss(mg.tensor(w)),
        [p],
        (torch.tensor(y),),
        (mg.tensor(y),),
    )


def test_layers_are_their_functions(rng):
    x = mg.tensor(rng.standard_normal((3, 4)))
    y = mg.tensor(rng.standard_normal((3, 4)))
    assert np.array_equal(nn.ELU(0.3)(x).numpy(), F.elu(x, 0.3).numpy())
    assert np.array_equal(nn.Softplus(2, 5)(x).numpy(), F.softplus(x, 2, 5).numpy())
    assert np.array_equal(
        nn.SmoothL1Loss(reduction="none", beta=0.2)(x, y).numpy(),
        F.smooth_l1_loss(x, y, reduction="none", beta=0.2).numpy(),
    )
    assert repr(nn.Hardtanh(-2.0, 2.0)) == "Hardtanh(min_val=-2.0, max_val=2.0, inplace=False)"


def test_prelu_learns_its_slopes(rng):
    layer = nn.PReLU(3).double()
    x = mg.tensor(-np.abs(rng.standard_normal((5, 3))) - 0.1)
    assert gradcheck(lambda w: F.prelu(x, w), (layer.weight,))
    layer(x).sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), x.numpy().sum(0))
    assert list(layer.state_dict()) == ["weight"]


def test_rrelu_is_random_only_when_training():
    layer = nn.RReLU(0.1, 0.3)
    x = -mg.ones(1000)
    slopes = -layer(x).numpy()
    assert 0.1 <= slopes.min() < slopes.max() <= 0.3 and len(set(slopes.tolist())) > 100
    assert np.allclose(-layer.eval()(x).numpy(), 0.2)


@pytest.mark.parametrize(
    "make, error",
    [
        (lambda: nn.L1Loss(reduction="avg"), ValueError),
        (lambda: nn.MSELoss(size_average=True), TypeError),
        (lambda: nn.Hardtanh(2.0, -2.0), ValueError),
        (lambda: nn.MultiMarginLoss(p=3), ValueError),
        (lambda: nn.Softmax2d()(mg.zeros(2, 2)), ValueError),
        (lambda: nn.MarginRankingLoss()(mg.zeros(3), mg.zeros(3), mg.zeros(1, 3)), RuntimeError),
    ],
)
def test_bad_options_raise_pytorchs_exception_class(make, error):
    with pytest.raises(error):
        make()


ALIASES = (
    "celu selu prelu rrelu threshold hardshrink relu_ pdist cosine_similarity "
    "pairwise_distance bilinear dropout alpha_dropout layer_norm group_norm rms_norm"
).split()


def test_torch_level_names_are_the_functional_ones():
    for name in ALIASES:
        assert getattr(mg, name) is getattr(F, name), name


def test_torch_level_names_match_pytorch(torch, rng):
    x = rng.standard_normal((3, 4))
    w = np.array([0.1, 0.2, 0.3, 0.4])
    cases = [
        ("celu", (x, 0.7)),
        ("selu", (x,)),
        ("threshold", (x, 0.1, -1.0)),
        ("hardshrink", (x, 0.3)),
        ("pdist", (x,)),
        ("rrelu", (x, 0.1, 0.3, False)),
        ("prelu", (x, w)),
        ("layer_norm", (x, (4,))),
        ("dropout", (x, 0.5, False)),
    ]
    for name, args in cases:
        t = getattr(torch, name)(
            *[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        )
        m = getattr(mg, name)(*[mg.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-12, err_msg=name)


def test_torch_level_forms_with_int_reductions_match_pytorch(torch, rng):
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    sign = np.array([1.0, -1.0, 1.0, -1.0])
    w, idx = rng.standard_normal((6, 3)), np.array([[1, 5], [0, 2]])
    lp = np.log(np.full((5, 2, 4), 0.25))
    cases = [
        ("binary_cross_entropy_with_logits", (a, np.abs(np.tanh(b)), None, None, 2)),
        ("kl_div", (a, np.abs(b), 0)),
        ("cosine_embedding_loss", (a, b, sign, 0.1, 1)),
        ("margin_ranking_loss", (a[:, 0], b[:, 0], sign, 0.2, 0)),
        ("hinge_embedding_loss", (a, np.sign(b), 1.0, 2)),
        ("poisson_nll_loss", (a, np.abs(b), True, False, 1e-8, 1)),
        ("triplet_margin_loss", (a, b, -a, 1.0, 2.0, 1e-6, False, 0)),
        (
            "ctc_loss",
            (lp, np.array([[1, 2], [3, 3]]), np.array([5, 4]), np.array([2, 2]), 0, 1, False),
        ),
        ("embedding", (w, idx)),
        ("batch_norm", (a, None, None, None, None, True, 0.1, 1e-5, False)),
        ("instance_norm", (a.reshape(2, 2, 3), None, None, None, None, True, 0.1, 1e-5, False)),
    ]

    def conv(lib, x):
        return lib.tensor(x) if isinstance(x, np.ndarray) else x

    for name, args in cases:
        t = getattr(torch, name)(*[conv(torch, x) for x in args])
        m = getattr(mg, name)(*[conv(mg, x) for x in args])
        np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
    assert (mg.feature_dropout(mg.ones(3, 4, 5), 0.5, False).numpy() == 1).all()
    with pytest.raises(ValueError):
        mg.kl_div(mg.zeros(2), mg.zeros(2), 3)

"""The composite activations, losses and distances (nn/functional/activation_composite.py,
loss_composite.py, distance.py), from one table: values and gradients of every input
against PyTorch (float32 and float64) when it is installed, and gradcheck in float64
always. Each entry: a name, a function of (F, *tensors) that reads the same for both
libraries, and a maker of its float inputs (targets that are constants are built inside)."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck


def away(x, points=(0.0,), gap=0.05):
    """Move values within ``gap`` of a kink a little further off (finite differences and
    float32 comparisons near a kink measure the kink, not the code)."""
    for p in points:
        near = np.abs(x - p) < gap
        x[near] = p + 2 * gap
    return x


def normal(*shape, scale=2.0, kinks=(0.0,)):
    return lambda rng: [away(rng.standard_normal(shape) * scale, kinks)]


def probs(*shape):
    return lambda rng: [rng.uniform(0.05, 0.95, shape)]


def two(*shape):
    return lambda rng: [rng.standard_normal(shape), rng.standard_normal(shape)]


def three(*shape):
    return lambda rng: [rng.standard_normal(shape) for _ in range(3)]


def _signs(lib, n):
    return lib.tensor([1.0, -1.0, 1.0, -1.0, -1.0][:n])


def _const(F_, like, values):
    """A constant tensor of ``like``'s dtype, in the library of ``F_``."""
    return _lib(F_).tensor(values, dtype=like.dtype)


def _lib(F_):
    return mg if F_ is F else __import__("torch")


A = [
    ("elu", lambda F_, x: F_.elu(x, alpha=0.7), normal(4, 5)),
    ("selu", lambda F_, x: F_.selu(x), normal(4, 5)),
    ("celu", lambda F_, x: F_.celu(x, alpha=1.5), normal(4, 5)),
    ("hardtanh", lambda F_, x: F_.hardtanh(x, -1.5, 2.0), normal(4, 5, kinks=(-1.5, 2.0))),
    ("relu6", lambda F_, x: F_.relu6(x * 3), normal(4, 5, kinks=(0.0, 2.0))),
    ("hardsigmoid", lambda F_, x: F_.hardsigmoid(x * 2), normal(4, 5, kinks=(-1.5, 1.5))),
    ("hardswish", lambda F_, x: F_.hardswish(x * 2), normal(4, 5, kinks=(-1.5, 1.5))),
    ("mish", lambda F_, x: F_.mish(x), normal(4, 5)),
    ("softplus", lambda F_, x: F_.softplus(x), normal(4, 5)),
    (
        "softplus_beta",
        lambda F_, x: F_.softplus(x, beta=2, threshold=3),
        normal(4, 5, kinks=(1.5,)),
    ),
    ("softsign", lambda F_, x: F_.softsign(x), normal(4, 5)),
    ("softshrink", lambda F_, x: F_.softshrink(x, 0.5), normal(4, 5, kinks=(-0.5, 0.5))),
    ("hardshrink", lambda F_, x: F_.hardshrink(x, 0.5), normal(4, 5, kinks=(-0.5, 0.5))),
    ("tanhshrink", lambda F_, x: F_.tanhshrink(x), normal(4, 5)),
    ("logsigmoid", lambda F_, x: F_.logsigmoid(x * 10), normal(4, 5)),
    ("threshold", lambda F_, x: F_.threshold(x, 0.3, -2.0), normal(4, 5, kinks=(0.3,))),
    ("glu", lambda F_, x: F_.glu(x, dim=1), normal(3, 6)),
    ("softmin", lambda F_, x: F_.softmin(x, dim=0), normal(3, 6)),
    (
        "prelu",
        lambda F_, x, w: F_.prelu(x, w),
        lambda rng: [away(rng.standard_normal((2, 3, 4))), rng.uniform(0.1, 0.5, 3)],
    ),
    ("rrelu_eval", lambda F_, x: F_.rrelu(x, 0.1, 0.3, training=False), normal(4, 5)),
]

L = [
    ("l1_loss", lambda F_, x, y: F_.l1_loss(x, y), two(4, 5)),
    ("smooth_l1", lambda F_, x, y: F_.smooth_l1_loss(x, y, beta=0.8), two(4, 5)),
    ("smooth_l1_sum", lambda F_, x, y: F_.smooth_l1_loss(x, y, reduction="sum"), two(6)),
    ("huber", lambda F_, x, y: F_.huber_loss(x, y, delta=0.7, reduction="none"), two(4, 5)),
    (
        "bce",
        lambda F_, x, y: F_.binary_cross_entropy(x, y),
        lambda rng: [rng.uniform(0.05, 0.95, (4, 5)), rng.uniform(0, 1, (4, 5))],
    ),
    (
        "bce_weight",
        lambda F_, x, y: F_.binary_cross_entropy(
            x, y, weight=_const(F_, x, [0.5, 1.0, 2.0, 1.5, 0.7]), reduction="sum"
        ),
        lambda rng: [rng.uniform(0.05, 0.95, (4, 5)), rng.uniform(0, 1, (4, 5))],
    ),
    ("bce_logits", lambda F_, x, y: F_.binary_cross_entropy_with_logits(x * 5, y), two(4, 5)),
    (
        "bce_logits_pos_weight",
        lambda F_, x, y: F_.binary_cross_entropy_with_logits(
            x * 5, y, pos_weight=_const(F_, x, [0.5, 1.0, 2.0, 1.5, 3.0])
        ),
        lambda rng: [rng.standard_normal((4, 5)), rng.uniform(0, 1, (4, 5))],
    ),
    (
        "kl_div",
        lambda F_, x, y: F_.kl_div(F_.log_softmax(x, 1), F_.softmax(y, 1), reduction="batchmean"),
        two(4, 5),
    ),
    (
        "kl_div_log_target",
        lambda F_, x, y: F_.kl_div(
            F_.log_softmax(x, 1), F_.log_softmax(y, 1), reduction="sum", log_target=True
        ),
        two(4, 5),
    ),
    ("poisson_nll", lambda F_, x, y: F_.poisson_nll_loss(x, y.abs() * 3, full=True), two(4, 5)),
    (
        "poisson_nll_rate",
        lambda F_, x, y: F_.poisson_nll_loss(x.abs() + 0.1, y.abs(), log_input=False),
        two(4, 5),
    ),
    (
        "gaussian_nll",
        lambda F_, x, y, v: F_.gaussian_nll_loss(x, y, v.abs() + 0.1, full=True),
        three(4, 5),
    ),
    (
        "gaussian_nll_per_sample",
        lambda F_, x, y, v: F_.gaussian_nll_loss(x, y, v[:, :1].abs() + 0.1),
        three(4, 5),
    ),
    (
        "margin_ranking",
        lambda F_, a, b: F_.margin_ranking_loss(a, b, _signs(_lib(F_), 5), margin=0.2),
        two(5),
    ),
    (
        "hinge_embedding",
        lambda F_, x: F_.hinge_embedding_loss(x, _signs(_lib(F_), 5), margin=1.5),
        normal(5, kinks=(1.5,)),
    ),
    ("soft_margin", lambda F_, x: F_.soft_margin_loss(x, _signs(_lib(F_), 5)), normal(5)),
    (
        "cosine_embedding",
        lambda F_, a, b: F_.cosine_embedding_loss(a, b, _signs(_lib(F_), 5), margin=-0.5),
        two(5, 4),
    ),
    (
        "multi_margin",
        lambda F_, x: F_.multi_margin_loss(x, _lib(F_).tensor([0, 2, 1, 3])),
        normal(4, 5),
    ),
    (
        "multi_margin_p2_weight",
        lambda F_, x: F_.multi_margin_loss(
            x,
            _lib(F_).tensor([0, 2, 1, 3]),
            p=2,
            margin=0.5,
            weight=_const(F_, x, [0.5, 1.0, 2.0, 1.5, 3.0]),
            reduction="none",
        ),
        normal(4, 5),
    ),
    (
        "multilabel_margin",
        lambda F_, x: F_.multilabel_margin_loss(
            x,
            _lib(F_).tensor(
                [[3, 0, -1, 1, 1], [1, 2, 4, -1, 0], [0, 1, 2, 3, 4], [-1, 0, 0, 0, 0]]
            ),
        ),
        normal(4, 5),
    ),
    (
        "multilabel_soft_margin",
        lambda F_, x, y: F_.multilabel_soft_margin_loss(
            x, (y > 0).double() if F_ is not F else (y > 0).to(x.dtype)
        ),
        two(4, 5),
    ),
    ("triplet", lambda F_, a, p, n: F_.triplet_margin_loss(a, p, n, margin=2.0), three(5, 4)),
    (
        "triplet_p1_swap",
        lambda F_, a, p, n: F_.triplet_margin_loss(a, p, n, p=1, swap=True, margin=3.0),
        three(5, 4),
    ),
    (
        "triplet_distance",
        lambda F_, a, p, n: F_.triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda u, v: 1 - F_.cosine_similarity(u, v), margin=0.5
        ),
        three(5, 4),
    ),
    ("cosine_similarity", lambda F_, a, b: F_.cosine_similarity(a, b, dim=1), two(3, 4, 2)),
    (
        "pairwise_distance",
        lambda F_, a, b: F_.pairwise_distance(a, b, p=3, keepdim=True),
        two(5, 4),
    ),
    ("pdist", lambda F_, x: F_.pdist(x), normal(5, 3)),
    ("pdist_p1", lambda F_, x: F_.pdist(x, p=1.5), normal(4, 3)),
    ("normalize", lambda F_, x: F_.normalize(x, dim=0), normal(4, 3)),
]

CASES = A + L


def _tolerance(dtype):
    # float64: PyTorch's own kernels round some constants (hardsigmoid's 1/6) in float32
    return dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("name,fn,make", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_pytorch(torch, rng, name, fn, make, dtype):
    arrays = [a.astype(dtype) for a in make(rng)]
    tin = [torch.tensor(a, requires_grad=True) for a in arrays]
    min_ = [mg.tensor(a, requires_grad=True) for a in arrays]
    ty = fn(torch.nn.functional, *tin)
    my = fn(F, *min_)
    assert my.shape == tuple(ty.shape) and my.dtype == dtype
    np.testing.assert_allclose(my.numpy(), ty.detach().numpy(), **_tolerance(dtype))
    g = rng.standard_normal(ty.shape).astype(dtype)
    ty.backward(torch.tensor(g))
    my.backward(mg.tensor(g))
    for i, (t, m) in enumerate(zip(tin, min_)):
        expected = np.zeros_like(arrays[i]) if t.grad is None else t.grad.numpy()
        got = np.zeros_like(arrays[i]) if m.grad is None else m.grad.numpy()
        np.testing.assert_allclose(got, expected, **_tolerance(dtype), err_msg=f"input {i}")


@pytest.mark.parametrize("name,fn,make", CASES, ids=[c[0] for c in CASES])
def test_gradcheck(rng, name, fn, make):
    inputs = tuple(mg.tensor(a, requires_grad=True) for a in make(rng))
    assert gradcheck(lambda *ts: fn(F, *ts), inputs)


def test_inplace_forms_write_into_their_input_without_grad():
    x = mg.tensor([-1.0, 0.5, 2.0])
    assert F.elu_(x) is x and x.numpy()[0] == pytest.approx(np.expm1(-1.0))
    y = mg.tensor([-1.0, 0.5], requires_grad=True)
    out = F.hardtanh(y, -0.5, 0.5, inplace=True)  # recorded: a new tensor, the input kept
    assert out is not y and y.numpy().tolist() == [-1.0, 0.5]


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: F.glu(mg.zeros(2, 3)), RuntimeError),
        (lambda: F.binary_cross_entropy(mg.tensor([1.5]), mg.tensor([1.0])), RuntimeError),
        (lambda: F.binary_cross_entropy(mg.tensor([0.5]), mg.tensor([1.0, 0.0])), ValueError),
        (lambda: F.l1_loss(mg.zeros(3), mg.zeros(3), reduction="avg"), ValueError),
        (lambda: F.huber_loss(mg.zeros(3), mg.zeros(3), delta=0), RuntimeError),
        (lambda: F.gaussian_nll_loss(mg.zeros(3, 2), mg.zeros(3, 2), mg.ones(4)), ValueError),
        (lambda: F.gaussian_nll_loss(mg.zeros(2), mg.zeros(2), -mg.ones(2)), ValueError),
        (lambda: F.pdist(mg.zeros(3)), RuntimeError),
        (lambda: F.prelu(mg.zeros(2, 3), mg.ones(4)), RuntimeError),
        (lambda: F.elu(mg.tensor([1, 2])), TypeError),
    ],
)
def test_bad_input_raises_pytorchs_exception_class(call, error):
    with pytest.raises(error):
        call()

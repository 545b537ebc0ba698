"""Losses: cross_entropy (index and probability targets, K-dim, ignore_index, label
smoothing, class weights, reductions), nll_loss, mse_loss and their modules, against
PyTorch; gradcheck / gradgradcheck; stability; errors; and every loss's reduction options."""

import inspect

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import grad, gradcheck, gradgradcheck

CE_OPTIONS = [
    {},
    {"reduction": "sum"},
    {"reduction": "none"},
    {"label_smoothing": 0.2},
    {"label_smoothing": 0.1, "reduction": "none"},
    {"weight": True},
    {"weight": True, "label_smoothing": 0.3},
    {"weight": True, "reduction": "sum", "label_smoothing": 0.05},
    {"ignore_index": 1},
]
SHAPES = [((6, 5), (6,)), ((3, 4, 2, 3), (3, 2, 3)), ((5,), ())]


def _targets(rng, shape, num_classes, ignore_index=-100):
    t = rng.integers(0, num_classes, shape)
    if t.ndim:
        t.reshape(-1)[0] = ignore_index  # one ignored sample (a class id when ignore_index=1)
    return t


def _run_both(torch, fn_name, x, t, kw, g=None):
    kw_t = dict(kw)
    kw_m = dict(kw)
    if kw.get("weight") is True:
        w = np.linspace(0.5, 2.0, x.shape[1 if x.ndim > 1 else 0]).astype(x.dtype)
        kw_t["weight"], kw_m["weight"] = torch.from_numpy(w), mg.tensor(w)
    tx = torch.tensor(x, requires_grad=True)
    ty = getattr(torch.nn.functional, fn_name)(tx, torch.from_numpy(np.asarray(t)), **kw_t)
    mx = mg.tensor(x, requires_grad=True)
    my = getattr(F, fn_name)(mx, mg.tensor(t), **kw_m)
    if g is None:
        g = np.random.default_rng(3).standard_normal(ty.shape).astype(x.dtype)
    ty.backward(torch.from_numpy(np.asarray(g)))
    my.backward(mg.tensor(g))
    return (my.numpy(), ty.detach().numpy()), (mx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("kw", CE_OPTIONS, ids=str)
@pytest.mark.parametrize("shapes", SHAPES, ids=["2d", "kdim", "unbatched"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cross_entropy_matches_pytorch(torch, rng, kw, shapes, dtype):
    x_shape, t_shape = shapes
    x = (rng.standard_normal(x_shape) * 3).astype(dtype)
    num_classes = x_shape[1] if len(x_shape) > 1 else x_shape[0]
    t = _targets(rng, t_shape, num_classes, kw.get("ignore_index", -100))
    (y, ty), (gx, tgx) = _run_both(torch, "cross_entropy", x, t, kw)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    assert y.shape == ty.shape and y.dtype == dtype
    np.testing.assert_allclose(y, ty, **tol)
    np.testing.assert_allclose(gx, tgx, **tol)


@pytest.mark.parametrize(
    "kw", [{}, {"label_smoothing": 0.25}, {"weight": True, "reduction": "none"}], ids=str
)
def test_cross_entropy_probability_targets_match_pytorch(torch, rng, kw):
    x = rng.standard_normal((4, 3, 2))
    p = rng.random((4, 3, 2))
    p /= p.sum(1, keepdims=True)
    (y, ty), (gx, tgx) = _run_both(torch, "cross_entropy", x, p, kw)
    np.testing.assert_allclose(y, ty, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gx, tgx, rtol=1e-12, atol=1e-14)
    # gradient with respect to the target distribution too
    tx, tp = torch.tensor(x), torch.tensor(p, requires_grad=True)
    kw_t = {
        k: (torch.linspace(0.5, 2.0, 3, dtype=torch.float64) if k == "weight" else v)
        for k, v in kw.items()
    }
    torch.nn.functional.cross_entropy(tx, tp, **kw_t).sum().backward()
    mp = mg.tensor(p, requires_grad=True)
    kw_m = {k: (mg.tensor(np.linspace(0.5, 2.0, 3)) if k == "weight" else v) for k, v in kw.items()}
    F.cross_entropy(mg.tensor(x), mp, **kw_m).sum().backward()
    np.testing.assert_allclose(mp.grad.numpy(), tp.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_cross_entropy_all_ignored_mean_is_nan_like_pytorch(torch):
    x = np.zeros((2, 3))
    t = np.array([-100, -100])
    (y, ty), (gx, tgx) = _run_both(torch, "cross_entropy", x, t, {}, g=np.array(1.0))
    assert np.isnan(y) and np.isnan(ty)
    np.testing.assert_array_equal(gx, tgx)  # zeros: no sample contributed


def test_cross_entropy_is_stable_for_huge_logits(torch):
    x = np.array([[1000.0, 0.0, -1000.0], [-1e4, 1e4, 0.0]], dtype=np.float32)
    t = np.array([2, 0])
    (y, ty), (gx, tgx) = _run_both(torch, "cross_entropy", x, t, {}, g=np.array(1.0, np.float32))
    assert np.isfinite(y) and np.isfinite(gx).all()
    np.testing.assert_allclose(y, ty, rtol=1e-6)
    np.testing.assert_allclose(gx, tgx, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "kw",
    [{}, {"reduction": "none"}, {"label_smoothing": 0.2, "weight": True}, {"reduction": "sum"}],
    ids=str,
)
def test_cross_entropy_gradcheck_and_gradgradcheck(rng, kw):
    x = mg.tensor(rng.standard_normal((3, 4, 2)), requires_grad=True)
    t = mg.tensor(np.array([[0, 3], [-100, 1], [2, 2]]))
    if kw.get("weight") is True:
        kw = dict(kw, weight=mg.tensor(np.array([0.5, 1.0, 2.0, 1.5])))
    assert gradcheck(lambda x: F.cross_entropy(x, t, **kw), (x,))
    assert gradgradcheck(lambda x: F.cross_entropy(x, t, **kw), (x,))


def test_cross_entropy_probability_target_gradcheck(rng):
    x = mg.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    p = mg.tensor(rng.random((3, 4)), requires_grad=True)
    assert gradcheck(lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1), (x, p))
    assert gradgradcheck(lambda x, p: F.cross_entropy(x, p), (x, p))


def test_cross_entropy_second_derivative_matches_pytorch(torch, rng):
    x = rng.standard_normal((4, 5))
    t = np.array([1, 0, 4, 4])
    tx = torch.tensor(x, requires_grad=True)
    (tg,) = torch.autograd.grad(
        torch.nn.functional.cross_entropy(tx, torch.tensor(t), label_smoothing=0.1),
        tx,
        create_graph=True,
    )
    (tgg,) = torch.autograd.grad((tg**2).sum(), tx)
    mx = mg.tensor(x, requires_grad=True)
    (g1,) = grad(F.cross_entropy(mx, mg.tensor(t), label_smoothing=0.1), mx, create_graph=True)
    (g2,) = grad((g1**2).sum(), mx)
    np.testing.assert_allclose(g2.numpy(), tgg.numpy(), rtol=1e-10, atol=1e-14)


def test_cross_entropy_errors():
    x = mg.randn(4, 3)
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.cross_entropy(x, mg.tensor([0, 1, 3, 0]))
    with pytest.raises(IndexError, match="Target -1"):
        F.cross_entropy(x, mg.tensor([0, 1, -1, 0]))
    with pytest.raises(ValueError, match=r"expected target of shape \[4\].*got \[4, 1\]"):
        F.cross_entropy(x, mg.tensor([[0], [1], [2], [0]]))
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(x, mg.tensor([0, 1, 2, 0]), reduction="avg")
    with pytest.raises(ValueError, match="label_smoothing"):
        F.cross_entropy(x, mg.tensor([0, 1, 2, 0]), label_smoothing=1.5)
    with pytest.raises(ValueError, match="defined either for all 3 classes"):
        F.cross_entropy(x, mg.tensor([0, 1, 2, 0]), weight=mg.ones(4))
    with pytest.raises(ValueError, match="probability targets"):
        F.cross_entropy(x, mg.ones(4, 2))
    with pytest.raises(TypeError, match="floating-point logits"):
        F.cross_entropy(mg.tensor([[1, 2]]), mg.tensor([0]))


@pytest.mark.parametrize(
    "kw",
    [{}, {"reduction": "none"}, {"weight": True}, {"ignore_index": 0, "reduction": "sum"}],
    ids=str,
)
@pytest.mark.parametrize("shapes", SHAPES, ids=["2d", "kdim", "unbatched"])
def test_nll_loss_matches_pytorch(torch, rng, kw, shapes):
    x_shape, t_shape = shapes
    x = rng.standard_normal(x_shape)
    num_classes = x_shape[1] if len(x_shape) > 1 else x_shape[0]
    t = _targets(rng, t_shape, num_classes, kw.get("ignore_index", -100))
    (y, ty), (gx, tgx) = _run_both(torch, "nll_loss", x, t, kw)
    np.testing.assert_allclose(y, ty, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gx, tgx, rtol=1e-12, atol=1e-14)


def test_nll_of_log_softmax_equals_cross_entropy(rng):
    x = mg.tensor(rng.standard_normal((5, 4)))
    t = mg.tensor([0, 3, 3, 1, 2])
    a = F.nll_loss(F.log_softmax(x, 1), t)
    b = F.cross_entropy(x, t)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    xt = mg.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda x: F.nll_loss(x, mg.tensor([1, 0, 3]), reduction="sum"), (xt,))
    assert gradgradcheck(lambda x: F.nll_loss(x * x, mg.tensor([1, 0, 3])), (xt,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_matches_pytorch(torch, rng, reduction):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    tl = torch.nn.functional.mse_loss(ta, tb, reduction=reduction)
    tl.sum().backward()
    ma, mb = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    ml = F.mse_loss(ma, mb, reduction=reduction)
    ml.sum().backward()
    np.testing.assert_allclose(ml.numpy(), tl.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ma.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(mb.grad.numpy(), tb.grad.numpy(), rtol=1e-12)
    assert gradcheck(lambda a, b: F.mse_loss(a, b, reduction=reduction), (ma, mb))


def test_mse_warns_on_broadcast_and_rejects_incompatible():
    with pytest.warns(UserWarning, match="differs from input size"):
        F.mse_loss(mg.ones(3, 1), mg.ones(3))
    with pytest.raises(ValueError, match="incompatible"):
        F.mse_loss(mg.ones(3), mg.ones(4))


def test_loss_modules_match_functions_and_register_weight(torch, rng):
    x = mg.tensor(rng.standard_normal((4, 3)), dtype=mg.float32)  # the weight's dtype
    t = mg.tensor([0, 2, 1, 2])
    w = mg.tensor([1.0, 2.0, 0.5])
    ce = nn.CrossEntropyLoss(weight=w, label_smoothing=0.1, ignore_index=2)
    np.testing.assert_array_equal(
        ce(x, t).numpy(),
        F.cross_entropy(x, t, weight=w, label_smoothing=0.1, ignore_index=2).numpy(),
    )
    assert list(ce.state_dict()) == list(
        torch.nn.CrossEntropyLoss(weight=torch.ones(3)).state_dict()
    )
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    np.testing.assert_array_equal(
        nn.NLLLoss(reduction="sum")(x, t).numpy(), F.nll_loss(x, t, reduction="sum").numpy()
    )
    np.testing.assert_array_equal(
        nn.MSELoss(reduction="sum")(x, x * 2).numpy(),
        F.mse_loss(x, x * 2, reduction="sum").numpy(),
    )
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="max")
    assert repr(nn.CrossEntropyLoss()) == repr(torch.nn.CrossEntropyLoss())


# ------------------------------------------------------------------ every loss's reduction options
def _loss_functions():
    """Every ``F.*`` function with a ``reduction`` argument, with its number of required
    positional arguments and whether it takes PyTorch's legacy ``size_average``."""
    found = []
    for name in sorted(dir(F)):
        fn = getattr(F, name)
        if inspect.isclass(fn) or not callable(fn):
            continue
        params = inspect.signature(fn).parameters.values()
        if "reduction" in [p.name for p in params]:
            required = [p for p in params if p.default is p.empty and p.kind is not p.KEYWORD_ONLY]
            legacy = "size_average" in [p.name for p in params]
            found.append(pytest.param(fn, len(required), legacy, id=name))
    return found


def _loss_modules():
    """Every loss layer: the subclasses of ``_Loss`` that ``nn`` exports."""
    from minigrad.nn.modules.loss import _Loss

    classes = [getattr(nn, name) for name in sorted(dir(nn))]
    return [c for c in classes if isinstance(c, type) and issubclass(c, _Loss)]


LOSS_FUNCTIONS = _loss_functions()
LOSS_MODULES = _loss_modules()


def test_the_loss_enumerations_find_every_loss():
    assert len(LOSS_FUNCTIONS) >= 22 and len(LOSS_MODULES) >= 22
    assert nn.CrossEntropyLoss in LOSS_MODULES and nn.MSELoss in LOSS_MODULES


@pytest.mark.parametrize("fn, n_inputs, legacy", LOSS_FUNCTIONS)
def test_every_loss_function_checks_its_reduction_before_reading_its_inputs(fn, n_inputs, legacy):
    inputs = [None] * n_inputs  # never read: the options are checked first
    with pytest.raises(ValueError, match=f"{fn.__name__}: reduction must be one of .*'avg'"):
        fn(*inputs, reduction="avg")
    if legacy:
        for old in ({"size_average": True}, {"reduce": False}):
            with pytest.raises(TypeError, match=f"{fn.__name__}: size_average and reduce"):
                fn(*inputs, **old)


@pytest.mark.parametrize("cls", LOSS_MODULES, ids=lambda c: c.__name__)
def test_every_loss_module_checks_its_reduction_when_built(cls):
    with pytest.raises(ValueError, match=f"{cls.__name__}: reduction must be one of"):
        cls(reduction="avg")
    if "size_average" in inspect.signature(cls).parameters:
        with pytest.raises(TypeError, match=f"{cls.__name__}: size_average and reduce"):
            cls(size_average=False)


def test_batchmean_is_kl_divs_alone():
    assert nn.KLDivLoss(reduction="batchmean").reduction == "batchmean"
    with pytest.raises(ValueError, match="got 'batchmean'"):
        nn.L1Loss(reduction="batchmean")
    with pytest.raises(ValueError, match="got 'batchmean'"):
        F.l1_loss(mg.zeros(2), mg.zeros(2), reduction="batchmean")

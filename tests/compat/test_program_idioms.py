"""Idioms of the public programs brought in docs/programs.md, written here as small
functions of our own and run on both libraries from the same numbers: values and
gradients must agree. Each test names the kind of program it stands for."""

import inspect

import numpy as np
import pytest

import minigrad as mg


def _both(torch, fn, *arrays):
    """Run ``fn(lib, *leaves)`` on each library with leaves made from ``arrays``; return
    (ours, theirs) as (output array, [leaf gradients])."""
    results = []
    for lib in (mg, torch):
        leaves = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        out = fn(lib, *leaves)
        if out.requires_grad:
            out.sum().backward() if out.ndim else out.backward()
        grads = [None if t.grad is None else t.grad.numpy() for t in leaves]
        results.append((out.detach().numpy(), grads))
    return results


def _assert_same(ours, theirs, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(ours[0], theirs[0], rtol=rtol, atol=atol)
    for g_ours, g_theirs in zip(ours[1], theirs[1]):
        assert (g_ours is None) == (g_theirs is None)
        if g_ours is not None:
            np.testing.assert_allclose(g_ours, g_theirs, rtol=rtol, atol=atol)


def test_overlay_label_with_a_range_assignment(torch):
    """Forward-forward: zero the first columns of a clone in place, then write the row
    maximum at (row, label) through a range index."""

    def overlay(lib, x, y):
        x_ = x.clone()
        x_[:, :3] *= 0.0
        x_[range(x.shape[0]), y] = x.max()
        return (x_ * x_).sum(1)

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((6, 5)), rng.integers(0, 5, 6)
    _assert_same(*_both(torch, overlay, x, y))


def test_goodness_sums_a_python_list_of_tensors(torch):
    """Forward-forward: ``sum(goodness)`` over per-layer tensors, then ``argmax``."""

    def goodness(lib, x):
        parts = [(x * k).pow(2).mean(1) for k in (1.0, 0.5, 2.0)]
        return sum(parts).unsqueeze(1)

    x = np.random.default_rng(1).standard_normal((4, 3))
    _assert_same(*_both(torch, goodness, x))


def test_label_smoothing_builds_its_target_in_place(torch):
    """The annotated transformer's LabelSmoothing: fill_, scatter_ on dim 1, a column set
    to zero, index_fill_ over the rows whose target is padding, KLDivLoss(sum)."""

    def smoothed_loss(lib, logits, target):
        x = lib.nn.functional.log_softmax(logits, dim=-1)
        true_dist = x.data.clone()
        true_dist.fill_(0.1 / 3)
        true_dist.scatter_(1, target.data.unsqueeze(1), 0.9)
        true_dist[:, 0] = 0
        mask = lib.nonzero(target.data == 0)
        if mask.dim() > 0:
            true_dist.index_fill_(0, mask.squeeze(), 0.0)
        return lib.nn.KLDivLoss(reduction="sum")(x, true_dist.clone().detach())

    rng = np.random.default_rng(2)
    logits, target = rng.standard_normal((6, 5)), np.array([1, 0, 3, 4, 0, 2])
    _assert_same(*_both(torch, smoothed_loss, logits, target))


def test_greedy_decoding_grows_a_sequence_with_filled_tensors(torch):
    """Greedy decoding: ``torch.zeros(1, 1).type_as(src).fill_(next_word)`` with a 0-d
    tensor, ``torch.max(prob, dim=1)``, ``cat`` along the sequence."""
    for lib in (mg, torch):
        src = lib.LongTensor([[1, 2, 3]])
        ys = lib.zeros(1, 1).fill_(0).type_as(src.data)
        prob = lib.tensor([[0.1, 0.7, 0.2]])
        _, next_word = lib.max(prob, dim=1)
        ys = lib.cat([ys, lib.zeros(1, 1).type_as(src.data).fill_(next_word.data[0])], dim=1)
        assert ys.tolist() == [[0, 1]] and ys.dtype == lib.int64
        mask = lib.triu(lib.ones((1, 3, 3)), diagonal=1).type(lib.uint8) == 0
        assert mask.dtype == lib.bool and mask.sum().item() == 6


def test_optimizer_stand_in_without_the_base_initializer():
    """The annotated transformer's DummyOptimizer subclasses Optimizer, never calls its
    ``__init__`` and sets ``param_groups`` itself; schedulers read that."""

    class DummyOptimizer(mg.optim.Optimizer):
        def __init__(self):
            self.param_groups = [{"lr": 0}]

        def step(self):
            return None

        def zero_grad(self, set_to_none=False):
            return None

    opt = DummyOptimizer()
    opt.step()
    opt.zero_grad()
    assert opt.param_groups[0]["lr"] == 0
    assert "fused" not in inspect.signature(DummyOptimizer).parameters


def test_a_linear_subclass_passes_device_and_dtype_positionally():
    """Forward-forward's ``Layer(nn.Linear)`` calls ``super().__init__(in, out, bias,
    device, dtype)`` and overrides ``Module.train`` with a method of its own."""

    class Layer(mg.nn.Linear):
        def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
            super().__init__(in_features, out_features, bias, device, dtype)

        def train(self, x):
            return self(x).pow(2).mean()

    layer = Layer(3, 2, True, None, mg.float64)
    assert layer.weight.dtype == mg.float64
    assert layer.train(mg.ones(4, 3, dtype=mg.float64)).item() >= 0


def test_word_model_batchify_and_float_causal_mask(torch):
    """word_language_model: ``narrow``/``view``/``t().contiguous()`` columns, a causal
    mask as ``log(tril(ones))`` (0 and -inf) added to the scores."""

    def scores(lib, x):
        data = lib.arange(24).narrow(0, 0, 20).view(4, -1).t().contiguous()
        mask = lib.log(lib.tril(lib.ones(5, 5)))
        s = x @ x.mT + mask
        return lib.softmax(s, dim=-1) * data.float().sum()

    x = np.random.default_rng(3).standard_normal((5, 4))
    _assert_same(*_both(torch, scores, x))


def test_vae_loss_reparameterized(torch):
    """The VAE's loss: binary cross-entropy summed, plus the KL term, through
    ``mu + eps * exp(0.5 * logvar)`` with a fixed eps."""

    def vae_loss(lib, h, mu, logvar, eps, x):
        z = mu + eps * lib.exp(0.5 * logvar)
        recon = lib.sigmoid(h @ z.T)
        bce = lib.nn.functional.binary_cross_entropy(recon, x, reduction="sum")
        kld = -0.5 * lib.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return bce + kld

    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal(s) for s in ((6, 2), (3, 2), (3, 2), (3, 2))]
    x = rng.random((6, 3))
    _assert_same(*_both(torch, vae_loss, *arrays, x))


@pytest.mark.parametrize("import_line", [
    "import minigrad.onnx",
    "import minigrad.multiprocessing as mp",
    "from minigrad.utils.data.distributed import DistributedSampler",
    "from minigrad.nn.parallel import DistributedDataParallel as DDP",
    "import minigrad.distributed as dist",
])  # fmt: skip
def test_the_import_blocks_of_the_programs_run(import_line):
    """word_language_model and the annotated transformer import these at the top."""
    exec(import_line, {})


@pytest.mark.parametrize(
    "product",
    [
        lambda lib, a, b: a @ b,
        lambda lib, a, b: lib.matmul(a[0], b[0]),
        lambda lib, a, b: lib.bmm(a, b),
        lambda lib, a, b: lib.nn.functional.linear(a[0], b[0]),
        lambda lib, a, b: lib.nn.functional.scaled_dot_product_attention(a, b, b),
    ],
)
def test_products_of_two_dtypes_raise_as_pytorch(torch, product):
    """makemore part 1 run with float64 weights: ``one_hot(x).float() @ W`` mixes float32
    and float64, which PyTorch refuses with RuntimeError (minigrad used to promote)."""
    for lib in (mg, torch):
        a, b = lib.ones(1, 2, 2), lib.ones(1, 2, 2, dtype=lib.float64)
        with pytest.raises(RuntimeError, match="dtype|scalar type"):
            product(lib, a, b)

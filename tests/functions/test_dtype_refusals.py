"""Dtypes PyTorch has no kernel for are refused, with PyTorch's exception class.

PyTorch computes many operations on floating tensors only (``softmax``, ``std``,
``lerp``, the norms), and some on no bool tensor (``abs``, ``argmax``, ``matmul``,
``median``). A program that minigrad ran on such a tensor would stop when it moved to
PyTorch, so minigrad refuses them too: with ``NotImplementedError`` where PyTorch
raises it and ``RuntimeError`` where PyTorch raises that (minigrad's ``DtypeError`` is
both, and a ``TypeError``). The cases below are PyTorch 2.13's behaviour, written out
by hand; ``tests/opdb/test_op_db.py`` checks the whole class against PyTorch itself
(every OpInfo's samples in the dtypes it does not support) when PyTorch is installed.

Each refusal has a neighbour that must keep working (the same operation on the dtype
PyTorch does take, or the form of it PyTorch accepts), so a refusal that is too wide
fails here too.
"""

import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.functions.errors import DtypeError

B = mg.tensor([True, False, True])
I = mg.tensor([3, 1, 2])
M = mg.tensor([[True, False], [False, True]])
IMAGES = mg.ones(1, 2, 2, 2, dtype=mg.int64)
NI, RE = NotImplementedError, RuntimeError

# (what, call, PyTorch's class)
REFUSED = [
    ("abs(bool)", lambda: B.abs(), NI),
    ("floor(bool)", lambda: B.floor(), NI),
    ("round(bool)", lambda: B.round(), NI),
    ("frac(int64)", lambda: I.frac(), NI),
    ("hypot(int64, int64)", lambda: mg.hypot(I, I), NI),
    ("logaddexp(bool, bool)", lambda: mg.logaddexp(B, B), NI),
    ("gcd(bool, bool)", lambda: mg.gcd(B, B), NI),
    ("bool << bool", lambda: B << B, NI),
    ("bool % bool", lambda: B % B, NI),
    ("+bool", lambda: +B, RE),
    ("relu(bool)", lambda: B.relu(), RE),
    ("bool ** bool", lambda: B**B, NI),
    ("True ** bool", lambda: True**B, NI),
    ("bool @ bool", lambda: M @ M, NI),
    ("einsum(bool)", lambda: mg.einsum("ij,jk->ik", M, M), NI),
    ("trace(bool)", lambda: M.trace(), NI),
    ("linear(bool)", lambda: F.linear(M, M), NI),
    ("softmax(int64)", lambda: I.softmax(0), NI),
    ("log_softmax(bool)", lambda: B.log_softmax(0), NI),
    ("std(int64)", lambda: I.std(), RE),
    ("var(bool)", lambda: B.var(), RE),
    ("nanmean(int64)", lambda: mg.nanmean(I), RE),
    ("argmax(bool)", lambda: B.argmax(), RE),
    ("topk(bool)", lambda: B.topk(1), RE),
    ("median(bool)", lambda: B.median(), NI),
    ("kthvalue(bool)", lambda: B.kthvalue(1), NI),
    ("clamp(bool, number)", lambda: B.clamp(min=False), NI),
    ("clamp(bool, tensor, tensor)", lambda: B.clamp(B, B), NI),
    ("cumsum(bool, dtype=bool)", lambda: B.cumsum(0, dtype=mg.bool), NI),
    ("lerp(int64)", lambda: mg.lerp(I, I, 0.5), NI),
    ("addcdiv(int64)", lambda: mg.addcdiv(I, I, I), RE),
    ("addcmul(bool)", lambda: mg.addcmul(B, B, B), NI),
    ("isin(bool)", lambda: mg.isin(B, B), RE),
    ("searchsorted(bool)", lambda: mg.searchsorted(B, B), NI),
    ("cov(bool)", lambda: mg.cov(M), RE),
    ("logcumsumexp(int64)", lambda: mg.logcumsumexp(I, 0), NI),
    ("trapezoid(bool)", lambda: mg.trapezoid(B), RE),
    ("arange(dtype=bool)", lambda: mg.arange(3, dtype=mg.bool), NI),
    ("linspace(dtype=bool)", lambda: mg.linspace(0, 1, 3, dtype=mg.bool), NI),
    ("randn(dtype=int64)", lambda: mg.randn(3, dtype=mg.int64), NI),
    ("rand(dtype=int64)", lambda: mg.rand(3, dtype=mg.int64), NI),
    ("randint(0, 3, dtype=bool)", lambda: mg.randint(0, 3, (2,), dtype=mg.bool), RE),
    ("randint(0, 300, dtype=uint8)", lambda: mg.randint(0, 300, (2,), dtype=mg.uint8), RE),
    ("tril_indices(dtype=float32)", lambda: mg.tril_indices(3, 3, dtype=mg.float32), NI),
    ("hardtanh(bool)", lambda: F.hardtanh(B), RE),
    ("threshold(bool)", lambda: F.threshold(B, 0.5, 0.0), NI),
    ("normalize(int64)", lambda: F.normalize(I.reshape(1, 3)), RE),
    ("cosine_similarity(int64)", lambda: F.cosine_similarity(I, I, dim=0), RE),
    ("pdist(int64)", lambda: F.pdist(I.reshape(3, 1)), RE),
    ("huber_loss(int64)", lambda: F.huber_loss(I, I), NI),
    ("nll_loss(int64 input)", lambda: F.nll_loss(I.reshape(1, 3), mg.tensor([0])), NI),
    ("pad(bool, reflect)", lambda: F.pad(M.reshape(1, 2, 2), (1, 1), mode="reflect"), NI),
    ("dropout2d(int64, training)", lambda: F.dropout2d(IMAGES), RE),
    ("dropout(int64, training)", lambda: F.dropout(I), RE),
    ("alpha_dropout(bool, training)", lambda: F.alpha_dropout(B, training=True), RE),
    ("mse_loss(int64, int64)", lambda: F.mse_loss(I, I, reduction="sum"), NI),
    ("cumprod(bool, dtype=bool)", lambda: B.cumprod(0, dtype=mg.bool), NI),
    ("vector_norm(int64)", lambda: mg.linalg.vector_norm(I), RE),
    ("layer_norm(int64)", lambda: F.layer_norm(I, (3,)), NI),
    ("bincount(float32)", lambda: mg.bincount(mg.tensor([1.0, 2.0])), NI),
    ("bincount(negative)", lambda: mg.bincount(mg.tensor([1, -2])), RE),
    ("allclose(int64, float32)", lambda: mg.allclose(I, I.float()), RE),
]

# (what, call): the neighbours PyTorch computes
ACCEPTED = [
    ("sign(bool)", lambda: B.sign()),
    ("abs(int64)", lambda: I.abs()),
    ("-int64", lambda: -I),
    ("hypot(int64, float32)", lambda: mg.hypot(I, I.float())),
    ("bool ** True", lambda: B**True),
    ("bool ** 2", lambda: B**2),
    ("2 ** bool", lambda: 2**B),
    ("int64 @ int64", lambda: I @ I),
    ("softmax(int64, dtype=float32)", lambda: I.softmax(0, dtype=mg.float32)),
    ("sum(bool)", lambda: B.sum()),
    ("cumsum(bool)", lambda: B.cumsum(0)),
    ("max(bool)", lambda: B.max()),
    ("sort(bool)", lambda: B.sort()),
    ("clamp(bool, min=tensor)", lambda: B.clamp(min=B)),
    ("clamp(int64, number)", lambda: I.clamp(min=2)),
    ("cov(int64)", lambda: mg.cov(I.reshape(1, 3))),
    ("pad(bool, constant)", lambda: F.pad(M, (1, 1))),
    ("randint(0, 2, dtype=bool)", lambda: mg.randint(0, 2, (2,), dtype=mg.bool)),
    ("bincount(int64)", lambda: mg.bincount(I)),
    ("allclose(int64, int64)", lambda: mg.allclose(I, I)),
    ("cosine_embedding_loss(int64)", lambda: F.cosine_embedding_loss(
        mg.tensor([[1, 2]]), mg.tensor([[2, 3]]), mg.tensor([1]))),
    ("dropout(int64, eval)", lambda: F.dropout(I, training=False)),
    ("mse_loss(int64, float32)", lambda: F.mse_loss(I, I.float())),
    ("cumprod(bool)", lambda: B.cumprod(0)),
    ("dropout2d(int64, eval)", lambda: F.dropout2d(IMAGES, training=False)),
    ("operator.index(bool)", lambda: [10, 20][mg.tensor(True)]),
]  # fmt: skip


@pytest.mark.parametrize("what, call, cls", REFUSED, ids=[r[0] for r in REFUSED])
def test_pytorch_refuses_it_and_so_does_minigrad(what, call, cls):
    with pytest.raises(cls):
        call()


@pytest.mark.parametrize("what, call", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_its_neighbour_still_computes(what, call):
    call()


def test_bool_powers_stay_bool():
    assert (B**True).dtype == mg.bool and (B**True).tolist() == [True, False, True]
    assert (B**False).tolist() == [True, True, True]


def test_a_number_to_negative_integer_powers_is_pytorchs_integer_answer():
    e = mg.tensor([-1, -2, 0, 3])
    assert (2**e).tolist() == [0, 0, 1, 8]  # 2 ** -1 truncates to 0
    assert (1**e).tolist() == [1, 1, 1, 1]
    assert ((-1) ** e).tolist() == [-1, 1, 1, -1]


def test_bincount_with_weights_keeps_float32_weights_float32():
    out = mg.bincount(mg.tensor([0, 2, 2]), mg.tensor([0.5, 1.0, 2.0]))
    assert out.dtype == mg.float32 and out.tolist() == [0.5, 0.0, 3.0]
    weights64 = mg.tensor([1.0, 2.0], dtype=mg.float64)
    assert mg.bincount(mg.tensor([0, 2]), weights64).dtype == mg.float64
    assert mg.bincount(mg.tensor([1]), minlength=3).tolist() == [0, 1, 0]


def test_the_refusal_names_the_dtype_as_pytorch_does():
    with pytest.raises(NotImplementedError, match="\"abs\" not implemented for 'Bool'"):
        B.abs()
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        I.std()
    for cls in (TypeError, NotImplementedError, RuntimeError):
        assert issubclass(DtypeError, cls)


def test_uint8_sums_are_int64_and_its_all_any_are_uint8():
    u = mg.tensor([[3, 250], [7, 0]], dtype=mg.uint8)
    assert u.sum().dtype == mg.int64 and u.sum().item() == 260  # no wrap past 255
    assert u.sum(0).tolist() == [10, 250] and mg.nansum(u).dtype == mg.int64
    assert u.trace().dtype == mg.int64 and u.trace().item() == 3
    assert u.all().dtype == mg.uint8 and u.all().item() == 0
    assert u.any(1).dtype == mg.uint8 and u.any(1).tolist() == [1, 1]
    assert I.all().dtype == mg.bool  # other dtypes give bool


def test_clamping_bools_with_an_int_bound_computes_in_int64():
    out = B.clip(0)
    assert out.dtype == mg.int64 and out.tolist() == [1, 0, 1]


def test_mvlgamma_refuses_bool_and_takes_integers():
    with pytest.raises(RuntimeError, match="may not be a boolean"):
        mg.mvlgamma(B, 1)
    assert mg.mvlgamma(I, 1).dtype == mg.float32


def test_tile_takes_its_counts_as_a_sequence_or_one_by_one():
    t = mg.ones(2, 3)
    assert t.tile(0).shape == (2, 0) and t.tile(2, 1).shape == (4, 3)
    assert mg.tile(t, (2,)).shape == (2, 6) and mg.tile(t, dims=(1, 2)).shape == (2, 6)

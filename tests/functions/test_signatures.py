"""PyTorch's legacy positional call forms (minigrad/functions/signatures.py).

Each form is checked against a value worked out by hand, and against PyTorch when it is
installed; a form PyTorch rejects raises TypeError here too.
"""

import warnings

import numpy as np
import pytest

import minigrad as mg

X = [[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 6.0]]
# row 0: mean 2.5, sum of squared deviations 5; row 1: mean 3, squares 12
BIASED = np.array([5 / 4, 12 / 4])
UNBIASED = np.array([5 / 3, 12 / 3])


def test_a_bool_after_dim_is_unbiased_and_keepdim_comes_third():
    x = mg.tensor(X)
    np.testing.assert_allclose(x.var(1, False).numpy(), BIASED, rtol=1e-6)
    np.testing.assert_allclose(x.var(1, True).numpy(), UNBIASED, rtol=1e-6)
    assert x.var(1, False, True).shape == (2, 1)
    np.testing.assert_allclose(x.std(1, False).numpy(), np.sqrt(BIASED), rtol=1e-6)
    var, mean = mg.var_mean(x, 1, False, True)
    assert var.shape == mean.shape == (2, 1)
    np.testing.assert_allclose(var.numpy().ravel(), BIASED, rtol=1e-6)
    std, _ = mg.std_mean(x, 1, False)
    np.testing.assert_allclose(std.numpy(), np.sqrt(BIASED), rtol=1e-6)


def test_a_lone_bool_is_unbiased():
    x = mg.tensor(X[0])
    assert x.var(False).item() == pytest.approx(5 / 4)
    assert x.std(True).item() == pytest.approx(np.sqrt(5 / 3))


def test_correction_none_is_bessels_and_keyword_forms_still_work():
    x = mg.tensor(X)
    assert x.var(dim=None, correction=None).item() == pytest.approx(np.var(X, ddof=1))
    assert x.var(1, keepdim=True, correction=0).shape == (2, 1)
    np.testing.assert_allclose(x.var(dim=1, unbiased=False).numpy(), BIASED, rtol=1e-6)


def test_forms_pytorch_rejects_raise_type_error():
    x = mg.tensor(X)
    with pytest.raises(TypeError):
        x.var(0, 1)  # an int where unbiased goes
    with pytest.raises(TypeError):
        x.var(0, unbiased=True, correction=0)


def test_leading_numbers_of_add_sub_addcmul_addcdiv():
    x, y = mg.full((2,), 1.0), mg.full((2,), 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert x.add(2, y).tolist() == [7.0, 7.0]
        assert mg.sub(x, 2, y).tolist() == [-5.0, -5.0]
        assert mg.addcmul(x, 0.5, y, y).tolist() == [5.5, 5.5]
        assert x.addcdiv(0.5, y, y).tolist() == [1.5, 1.5]
        assert x.clone().add_(2, y).tolist() == [7.0, 7.0]


def test_leading_beta_and_alpha_of_the_addmm_family():
    x, y = mg.ones(2, 2), mg.full((2, 2), 3.0)  # y @ y = 18 everywhere
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert mg.addmm(2, x, 3, y, y).tolist() == [[56.0, 56.0]] * 2  # 2 * 1 + 3 * 18
        assert mg.addmm(2, x, y, y).tolist() == [[20.0, 20.0]] * 2
        assert x.addmm(2, y, y).tolist() == [[20.0, 20.0]] * 2
        assert x.addmm(2, 3, y, y).tolist() == [[56.0, 56.0]] * 2
        assert x.clone().addmm_(2, y, y).tolist() == [[20.0, 20.0]] * 2
    with pytest.raises(TypeError):
        mg.addmm(x, y, y, y)


def test_integer_products_take_beta_and_alpha_as_integers_and_beta_zero_ignores_nan():
    m = mg.tensor([[1, 2], [3, 4]])
    v = mg.tensor([1, 1])
    out = mg.addmv(v, m, v, beta=0.2, alpha=1.6)  # int(0.2) = 0, int(1.6) = 1
    assert out.dtype == mg.int64 and out.tolist() == [3, 7]
    nan = mg.tensor([[float("nan")]])
    assert mg.addr(nan, mg.tensor([0.0]), mg.tensor([0.0]), beta=0.0).tolist() == [[0.0]]


def test_softmax_takes_its_dtype_by_position():
    x = mg.tensor([1.0, 2.0])
    assert x.softmax(0, mg.float64).dtype == mg.float64
    assert x.log_softmax(0, mg.float64).dtype == mg.float64


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x, y: x.var(1, False),
        lambda lib, x, y: x.var(1, True, True),
        lambda lib, x, y: x.std(False),
        lambda lib, x, y: lib.var_mean(x, 1, False, True)[0],
        lambda lib, x, y: x.add(2, y),
        lambda lib, x, y: lib.addcmul(x, 0.5, y, y),
        lambda lib, x, y: lib.addmm(2, x[:, :2], 3, y, y.mT),
        lambda lib, x, y: x[:, :2].addmm(2, y, y.mT),
    ],
)
def test_legacy_forms_match_pytorch(torch, call):
    a = np.array(X)
    b = np.arange(8.0).reshape(2, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = call(mg, mg.tensor(a), mg.tensor(b))
        want = call(torch, torch.tensor(a), torch.tensor(b))
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


# A Python number where PyTorch's signature takes a tensor: PyTorch's argument parser
# raises TypeError (PyTorch 2.13: ``x.inner(0)``, ``torch.kron(x, 2)``, ...).
NUMBER_FOR_TENSOR = [
    ("inner", lambda x: x.inner(0)),
    ("kron", lambda x: mg.kron(x, 2)),
    ("take", lambda x: x.take(0)),
    ("take_along_dim", lambda x: x.take_along_dim(1)),
    ("dist", lambda x: x.dist(0)),
    ("equal", lambda x: x.equal(1)),
    ("allclose", lambda x: x.allclose(1.0)),
    ("is_same_size", lambda x: x.is_same_size(1)),
    ("prelu", lambda x: mg.nn.functional.prelu(x, 0.25)),
]


@pytest.mark.parametrize("name, call", NUMBER_FOR_TENSOR, ids=[n for n, _ in NUMBER_FOR_TENSOR])
def test_a_number_where_pytorch_takes_a_tensor_is_a_type_error(name, call):
    x = mg.tensor([[1.5, -2.0], [0.5, 3.0]])
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument .* must be Tensor"):
        call(x)

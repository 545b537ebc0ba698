"""Binary arithmetic, scalar forms, matmul and casts (minigrad/functions/arithmetic.py).

Each operation is checked three ways: gradcheck in float64 over broadcasting shape pairs
(with every input, and with only one input, requiring grad), parity with PyTorch
(values and gradients), and the error it raises on shapes that do not fit.
"""

import numpy as np
import pytest

import minigrad as mg

BROADCAST_PAIRS = [
    ((3, 4), (4,)),
    ((2, 1, 4), (3, 1)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((5,), (5,)),
]
WHICH = ["both", "first", "second"]

# name -> (minigrad/torch function, low/high of the first operand's values)
BINARY = {
    "add": (lambda a, b: a + b, None),
    "sub": (lambda a, b: a - b, None),
    "mul": (lambda a, b: a * b, None),
    "div": (lambda a, b: a / b, None),
    "pow": (lambda a, b: a**b, (0.5, 2.0)),  # positive base: a^b is smooth in both
}


def _operands(rng, name, shapes, which="both"):
    (sa, sb) = shapes
    low_high = BINARY[name][1]
    a = rng.uniform(*low_high, sa) if low_high else rng.standard_normal(sa)
    b = rng.standard_normal(sb)
    if name == "div":  # keep the divisor away from 0
        b = np.sign(b) * (np.abs(b) + 0.5)
    return (
        mg.tensor(a, requires_grad=which in ("both", "first")),
        mg.tensor(b, requires_grad=which in ("both", "second")),
    )


@pytest.mark.parametrize("which", WHICH)
@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_gradcheck(name, shapes, which, rng, check_grads):
    a, b = _operands(rng, name, shapes, which)
    check_grads(BINARY[name][0], a, b)


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_matches_torch(name, shapes, rng, parity):
    a, b = _operands(rng, name, shapes)
    fn = BINARY[name][0]
    parity(fn, fn, a.numpy(), b.numpy())


@pytest.mark.parametrize("name", BINARY)
def test_binary_shape_mismatch_names_both_shapes(name):
    a, b = mg.ones(2, 3), mg.ones(4, 3)
    with pytest.raises(ValueError, match=r"\[2, 3\].*\[4, 3\]"):
        BINARY[name][0](a, b)


def test_pow_at_zero_base_matches_torch(parity):
    # d(a^b)/db = a^b log a has the limit 0 at a = 0 (b > 0); d/da at 0 is 0 for b > 1.
    # At a = b = 0 both gradients are 0 (b a^(b-1) would be 0 * inf).
    a = np.array([0.0, 0.0, 2.0, 0.5, 0.0])
    b = np.array([2.0, 3.0, 0.0, -1.0, 0.0])
    parity(lambda x, y: x**y, lambda x, y: x**y, a, b)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # 0 ** -1 = inf
def test_zero_to_the_power_of_a_tensor_matches_torch(parity):
    parity(lambda x: 0.0**x, lambda x: 0.0**x, np.array([0.5, 1.0, 0.0, -1.0]))


@pytest.mark.filterwarnings("ignore:invalid value encountered in log:RuntimeWarning")
def test_pow_negative_base_with_integer_exponent_matches_torch(parity):
    a = np.array([-2.0, -1.5, 3.0])
    b = np.array([3.0, 2.0, 2.0])
    # the exponent's gradient is NaN at negative bases (log of a negative), in both
    parity(lambda x, y: x**y, lambda x, y: x**y, a, b)


# ------------------------------------------------------------------------ scalar forms
SCALAR = {
    "x+2": lambda x: x + 2,
    "2+x": lambda x: 2 + x,
    "x-1.5": lambda x: x - 1.5,
    "1.5-x": lambda x: 1.5 - x,
    "x*3": lambda x: x * 3,
    "-2.5*x": lambda x: -2.5 * x,
    "x/4": lambda x: x / 4,
    "3/x": lambda x: 3 / x,
    "x**2": lambda x: x**2,
    "x**3": lambda x: x**3,
    "x**0.5": lambda x: x**0.5,
    "x**-1": lambda x: x**-1,
    "x**-1.5": lambda x: x**-1.5,
    "x**0": lambda x: x**0,
    "x**1": lambda x: x**1,
    "2**x": lambda x: 2**x,
    "0.5**x": lambda x: 0.5**x,
    "-x": lambda x: -x,
    "+x": lambda x: +x,
}


@pytest.mark.parametrize("name", [n for n in SCALAR if n != "x**0"])
def test_scalar_op_gradcheck(name, leaf, check_grads):
    x = leaf((2, 3), low=0.5, high=2.0)  # positive: x**0.5 and x**-1.5 are smooth
    check_grads(SCALAR[name], x)


def test_pow_zero_has_a_zero_gradient(leaf):
    x = leaf((3,))
    (x**0).sum().backward()  # gradcheck would be vacuous here: both Jacobians are 0
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(3))


@pytest.mark.parametrize("name", SCALAR)
def test_scalar_op_matches_torch(name, rng, parity):
    x = rng.uniform(0.5, 2.0, (2, 3))
    parity(SCALAR[name], SCALAR[name], x)


def test_scalar_pow_of_negative_base(rng, parity):
    x = -rng.uniform(0.5, 2.0, (4,))
    for fn in (lambda t: t**2, lambda t: t**3, lambda t: t**-2):
        parity(fn, fn, x)


def test_pow_with_tensor_scalar_combinations(parity):
    base = np.array([0.5, 1.5, 2.0])
    exponent = np.array(1.7)  # 0-d tensor exponent
    parity(lambda a, b: a**b, lambda a, b: a**b, base, exponent)
    parity(lambda a, b: b**a, lambda a, b: b**a, base, exponent)


def test_methods_match_operators(leaf):
    a, b = leaf((2, 3)), leaf((3,))
    for method, op in [("add", "__add__"), ("sub", "__sub__"), ("mul", "__mul__")]:
        np.testing.assert_array_equal(getattr(a, method)(b).numpy(), getattr(a, op)(b).numpy())
    np.testing.assert_array_equal(a.div(b).numpy(), (a / b).numpy())
    np.testing.assert_array_equal(a.abs().pow(b).numpy(), (a.abs() ** b).numpy())
    np.testing.assert_array_equal(mg.matmul(a, b).numpy(), a.numpy() @ b.numpy())


def test_operators_with_numpy_arrays_return_tensors(leaf):
    x = leaf((3,))
    arr = np.array([1.0, 2.0, 3.0])
    for y in (arr * x, x * arr, arr + x, arr - x, arr / (x.abs() + 1)):
        assert isinstance(y, mg.Tensor) and y.requires_grad


# ------------------------------------------------------------------------------ matmul
MATMUL_SHAPES = [
    ((3,), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3,)),
    ((2, 3), (3, 4)),
    ((2, 2, 3), (3, 4)),
    ((3,), (2, 3, 4)),
    ((2, 3, 4), (4,)),
    ((2, 1, 2, 3), (3, 3, 2)),
]


@pytest.mark.parametrize("which", WHICH)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_gradcheck(shapes, which, rng, check_grads):
    a = mg.tensor(rng.standard_normal(shapes[0]), requires_grad=which != "second")
    b = mg.tensor(rng.standard_normal(shapes[1]), requires_grad=which != "first")
    check_grads(lambda x, y: x @ y, a, b)


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_matches_torch(shapes, rng, parity):
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    parity(lambda x, y: x @ y, lambda x, y: x @ y, a, b)
    parity(mg.matmul, lambda x, y: x.matmul(y), a, b)


@pytest.mark.parametrize(
    "sa, sb",
    [((2, 3), (4, 5)), ((3,), (4,)), ((3,), (4, 5)), ((2, 3), (4,)), ((2, 2, 3), (3, 3, 5))],
)
def test_matmul_shape_error_names_both_shapes(sa, sb):
    sa_str = "[" + ", ".join(map(str, sa)) + "]"
    sb_str = "[" + ", ".join(map(str, sb)) + "]"
    with pytest.raises(ValueError) as info:
        mg.ones(*sa) @ mg.ones(*sb)
    assert sa_str in str(info.value) and sb_str in str(info.value)


def test_matmul_of_0d_raises():
    with pytest.raises(ValueError, match="at least 1 dimension"):
        mg.matmul(mg.tensor(2.0), mg.ones(3))


def test_matmul_keeps_float32_and_int64():
    a32 = mg.ones(2, 3, requires_grad=True)
    y = a32 @ mg.ones(3, 2)
    assert y.dtype == mg.float32
    y.sum().backward()
    assert a32.grad.dtype == mg.float32
    assert (mg.tensor([[1, 2]]) @ mg.tensor([[3], [4]])).dtype == mg.int64
    assert (mg.tensor([[1, 2]]) @ mg.tensor([[3], [4]])).item() == 11


# ------------------------------------------------------------------------- casts, clone
def test_cast_gradient_flows_back_in_the_input_dtype(leaf):
    x = leaf((3,))
    y = x.float()
    assert y.dtype == mg.float32 and y.requires_grad
    (y * 2).sum().backward()
    assert x.grad.dtype == mg.float64
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_to_same_dtype_returns_self_and_a_round_trip_is_differentiable(leaf):
    x = leaf((3,))
    assert x.to(mg.float64) is x and x.double() is x and x.to("cpu") is x
    x32 = mg.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = x32.double() * x32.double()
    assert y.dtype == mg.float64
    y.sum().backward()
    assert x32.grad.dtype == mg.float32
    np.testing.assert_array_equal(x32.grad.numpy(), np.float32([2.0, -4.0, 1.0]))


def test_clone_copies_and_passes_gradient(leaf, check_grads):
    x = leaf((2, 2))
    y = x.clone()
    assert y.numpy() is not x.numpy() and not np.shares_memory(y.numpy(), x.numpy())
    check_grads(lambda t: t.clone() * 3, x)


def test_int_tensor_arithmetic_stays_integer():
    a = mg.tensor([1, 2, 3])
    assert (a + 1).dtype == mg.int64 and (a + 1).tolist() == [2, 3, 4]
    assert (a * a).tolist() == [1, 4, 9]
    assert (a**2).dtype == mg.int64
    assert (a - a).tolist() == [0, 0, 0]

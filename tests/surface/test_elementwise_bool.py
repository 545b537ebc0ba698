"""Every unary entry of the elementwise table on a bool tensor: it computes, or raises
one of minigrad's errors (RuntimeError or DtypeError, as PyTorch's RuntimeError and
NotImplementedError); NumPy's own exceptions never escape (``np.negative``,
``np.positive`` and ``np.square`` have no bool loop)."""

import pytest

import minigrad as mg
from minigrad.functions.elementwise import UNARY
from minigrad.functions.errors import DtypeError

NAMES = [op.name for op in UNARY if hasattr(mg, op.name)]


@pytest.mark.parametrize("name", NAMES)
def test_bool_input_computes_or_raises_a_minigrad_error(name):
    b = mg.tensor([True, False])
    try:
        getattr(mg, name)(b)
    except (RuntimeError, DtypeError):
        pass


@pytest.mark.parametrize("call", [lambda b: b.neg(), lambda b: mg.positive(b), lambda b: -b])
def test_neg_and_positive_refuse_bool_as_pytorch(call):
    with pytest.raises(RuntimeError, match="on a bool tensor is not supported"):
        call(mg.tensor([True, False]))


@pytest.mark.parametrize("name", ["floor_divide", "fmod", "remainder"])
def test_binary_ops_without_a_bool_kernel_say_so(name):
    # PyTorch: NotImplementedError '"fmod_cpu" not implemented for 'Bool''
    b = mg.tensor([True, False])
    with pytest.raises(NotImplementedError, match="Bool"):
        getattr(mg, name)(b, b)

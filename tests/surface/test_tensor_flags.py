"""What a minigrad tensor answers about kinds of tensors it never is
(minigrad/surface/tensor_flags.py) and about layouts and memory formats
(minigrad/layouts.py), compared with PyTorch's CPU tensors: the flags are enumerated
from ``torch.Tensor`` itself, so a flag PyTorch adds fails here until it is answered."""

import inspect

import numpy as np
import pytest

import minigrad as mg
from minigrad.surface.tensor_flags import FALSE_FLAGS

DTYPES = ["float32", "float64", "int64", "bool"]


def _torch_flag_properties(torch) -> list[str]:
    """``torch.Tensor``'s ``is_*`` properties (getset descriptors of the C class)."""
    return sorted(
        name
        for name in dir(torch.Tensor)
        if name.startswith("is_")
        and type(inspect.getattr_static(torch.Tensor, name)).__name__ == "getset_descriptor"
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_flag_property_gives_pytorchs_answer(torch, dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    theirs, ours = torch.from_numpy(a), mg.tensor(a)
    names = _torch_flag_properties(torch)
    assert set(FALSE_FLAGS) <= set(names) and len(names) >= 15
    for name in names:
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.layout is mg.strided and str(theirs.layout) == "torch.strided"


def test_flag_questions_asked_as_methods(torch):
    theirs, ours = torch.ones(2, 3), mg.ones(2, 3)
    for name in ("is_conj", "is_neg", "is_shared", "is_distributed", "is_pinned", "is_inference"):
        assert getattr(ours, name)() is getattr(theirs, name)(), name
    assert ours.dense_dim() == theirs.dense_dim() == 2
    assert ours.sparse_dim() == theirs.sparse_dim() == 0
    with pytest.raises(RuntimeError, match="sparse coordinate"):
        ours.is_coalesced()
    assert mg.is_conj(ours) is False and mg.is_distributed(ours) is False


def test_a_real_tensor_is_its_own_conjugate_and_real_part():
    x = mg.randn(3, requires_grad=True)
    for name in ("conj", "resolve_conj", "resolve_neg", "conj_physical", "to_dense"):
        assert getattr(x, name)() is x, name
    assert x.real is x and mg.conj(x) is x and mg.real(x) is x
    with pytest.raises(RuntimeError, match="non-complex"):
        x.imag  # noqa: B018
    assert x.to_dense(mg.float64).dtype == mg.float64


def test_custom_optimizer_sparse_guard_runs():
    """The first lines of PyTorch's own optimizers, copied into custom ones."""
    p = mg.nn.Parameter(mg.ones(3))
    (p * 2).sum().backward()
    if p.grad.is_sparse:
        raise AssertionError("a dense gradient answered is_sparse")
    assert not p.is_quantized and not p.is_meta and not p.is_nested and not p.is_mkldnn


# ------------------------------------------------------------------ layouts
def test_layout_and_memory_format_constants():
    assert isinstance(mg.strided, mg.layout) and repr(mg.strided) == "minigrad.strided"
    for fmt in (mg.contiguous_format, mg.channels_last, mg.channels_last_3d, mg.preserve_format):
        assert isinstance(fmt, mg.memory_format)
    assert mg.legacy_contiguous_format is mg.contiguous_format


@pytest.mark.parametrize(
    "shape, fmt", [((2, 3, 4, 5), "channels_last"), ((2, 3, 2, 4, 5), "channels_last_3d")]
)
def test_channels_last_strides_match_pytorch(torch, shape, fmt):
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    theirs = torch.from_numpy(a).contiguous(memory_format=getattr(torch, fmt))
    ours = mg.tensor(a).contiguous(memory_format=getattr(mg, fmt))
    assert ours.stride() == theirs.stride()
    assert ours.dim_order() == theirs.dim_order()
    np.testing.assert_array_equal(ours.numpy(), a)
    fmt_ours, fmt_theirs = getattr(mg, fmt), getattr(torch, fmt)
    assert ours.is_contiguous(memory_format=fmt_ours) == theirs.is_contiguous(
        memory_format=fmt_theirs
    )
    assert ours.is_contiguous() == theirs.is_contiguous() is False
    again = ours.contiguous(memory_format=fmt_ours)
    assert again is ours  # already laid out so: no copy
    back = ours.contiguous()
    assert back.stride() == theirs.contiguous().stride()
    assert ours.clone(memory_format=fmt_ours).stride() == theirs.stride()
    assert mg.tensor(a).to(memory_format=fmt_ours).stride() == theirs.stride()


def test_channels_last_copy_carries_the_gradient():
    x = mg.randn(2, 3, 4, 5, requires_grad=True)
    y = x.contiguous(memory_format=mg.channels_last)
    w = mg.randn(2, 3, 4, 5)
    (y * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), w.numpy())


def test_memory_format_errors_are_pytorchs(torch):
    x, t = mg.ones(2, 3), torch.ones(2, 3)
    for lib, v in ((mg, x), (torch, t)):
        with pytest.raises(RuntimeError, match="required rank 4"):
            v.contiguous(memory_format=lib.channels_last)
        assert v.contiguous(memory_format=lib.preserve_format) is v
        with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
            v.t().contiguous(memory_format=lib.preserve_format)
    with pytest.raises(TypeError, match="memory_format"):
        x.contiguous(memory_format="channels_last")
    assert x.contiguous(memory_format=mg.contiguous_format) is x


def test_layout_constants_survive_a_checkpoint(tmp_path):
    import pickle

    assert pickle.loads(pickle.dumps(mg.channels_last)) is mg.channels_last
    assert pickle.loads(pickle.dumps(mg.strided)) is mg.strided

"""Memory layout questions (minigrad/surface/tensor_memory.py): strides, storage offsets,
contiguity, data pointers, DLPack; against PyTorch when installed, else against NumPy's own view of
the same memory."""

import copy
import pickle

import numpy as np
import pytest

import minigrad as mg


def _programs(lib):
    """Layouts made the same way in both libraries (a function of the library)."""
    x = lib.arange(24.0).reshape(2, 3, 4)
    return {
        "contiguous": x,
        "transposed": x.transpose(0, 2),
        "sliced": x[1, :, 1:3],
        "stepped": x[:, ::2],
        "expanded": lib.arange(3.0).reshape(3, 1).expand(3, 4),
        "unsqueezed": x[0].unsqueeze(1),
        "flat_view": x.view(6, 4)[2:],
        "permuted": x.permute(1, 2, 0),
        "zero_d": x[0, 0, 0],
    }


@pytest.mark.parametrize("name", list(_programs(mg)))
def test_strides_offsets_and_contiguity_match_pytorch(torch, name):
    ours, theirs = _programs(mg)[name], _programs(torch)[name]
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.is_contiguous() == theirs.is_contiguous()
    for d in range(-ours.ndim, ours.ndim):
        assert ours.stride(d) == theirs.stride(d)


def test_strides_and_offsets_follow_the_memory():
    x = mg.arange(24.0).reshape(2, 3, 4)
    assert x.stride() == (12, 4, 1)
    assert x.transpose(0, 2).stride() == (1, 4, 12)
    v = x[1, 1:, 2:]
    assert v.storage_offset() == 12 + 4 + 2
    assert v.data_ptr() - x.data_ptr() == 18 * x.element_size()
    assert not v.is_contiguous() and x.is_contiguous()
    assert mg.zeros(3, 1).expand(3, 5).stride() == (1, 0)
    with pytest.raises(IndexError):
        x.stride(3)


def test_channels_last_contiguity_reads_the_nhwc_order():
    x = mg.zeros(2, 3, 4, 5)
    nhwc = mg.zeros(2, 4, 5, 3).permute(0, 3, 1, 2)
    assert x.is_contiguous() and not x.is_contiguous(memory_format="channels_last")
    assert nhwc.is_contiguous(memory_format="channels_last") and not nhwc.is_contiguous()


def test_contiguous_copies_only_when_needed():
    x = mg.arange(6.0).reshape(2, 3)
    assert x.contiguous() is x
    t = x.t().contiguous()
    assert t.is_contiguous() and t.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert not np.shares_memory(t.numpy(), x.numpy())


def test_small_facts_as_pytorch_states_them():
    x = mg.zeros(2, 3, requires_grad=True)
    assert x.is_cpu and x.get_device() == -1 and mg.get_device(x) == -1
    assert not x.is_inference() and not mg.is_inference(x)
    assert x.output_nr == 0 and x.name is None
    assert x.grad_dtype == mg.float32 and mg.zeros(2, dtype=mg.int64).grad_dtype is None
    assert x.data_ptr() == x.const_data_ptr() != 0
    assert mg.zeros(0).data_ptr() == 0
    assert x.__array_priority__ == 1000


def test_is_set_to_compares_storage_and_geometry():
    x = mg.zeros(2, 3)
    assert x.is_set_to(x.view(2, 3)) and not x.is_set_to(x.view(3, 2))
    assert not x.is_set_to(mg.zeros(2, 3)) and not x.is_set_to(x.t())


def test_nonzero_static_pads_and_truncates(torch):
    data = np.array([[0, 1, 0], [2, 0, 3]])
    for size in (0, 2, 3, 5):
        ours = mg.tensor(data).nonzero_static(size=size, fill_value=-7)
        theirs = torch.tensor(data).nonzero_static(size=size, fill_value=-7)
        assert ours.tolist() == theirs.tolist()


def test_nonzero_static_without_torch():
    out = mg.tensor([0.0, 2.0, 0.0, 3.0]).nonzero_static(size=3)
    assert out.tolist() == [[1], [3], [-1]] and out.dtype == mg.int64


def test_dlpack_round_trip_shares_memory():
    x = mg.arange(6.0).reshape(2, 3)
    assert x.__dlpack_device__() == (1, 0)
    a = np.from_dlpack(x)  # read-only before NumPy 2: write through the tensor instead
    x[0, 0] = 42.0
    assert a[0, 0] == 42.0 and np.shares_memory(a, x.numpy())
    y = mg.from_dlpack(np.arange(4.0))
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0]
    from minigrad.utils.dlpack import from_dlpack, to_dlpack

    z = from_dlpack(to_dlpack(x))
    assert np.shares_memory(z.numpy(), x.numpy())
    with pytest.raises(RuntimeError, match="require gradient"):
        mg.zeros(2, requires_grad=True).__dlpack__()


def test_dlpack_exchange_with_pytorch(torch):
    x = mg.arange(6.0).reshape(2, 3)
    t = torch.from_dlpack(x)
    t[1, 2] = -1.0
    assert x[1, 2].item() == -1.0
    back = mg.from_dlpack(torch.arange(3.0))
    assert back.tolist() == [0.0, 1.0, 2.0]


def test_numpy_results_come_back_as_tensors():
    x = mg.tensor([1.0, 4.0])
    out = x.__array_wrap__(np.sqrt(x.numpy()))
    assert isinstance(out, mg.Tensor) and out.tolist() == [1.0, 2.0]


def test_del_item_raises_as_pytorch(torch):
    with pytest.raises(TypeError, match="deleting items"):
        del mg.zeros(3)[0]
    with pytest.raises(TypeError, match="deleting items"):
        del torch.zeros(3)[0]


def test_tensors_hold_attributes_and_copy_them():
    x = mg.zeros(2)
    x.tag = "embedding"
    assert vars(x) == {"tag": "embedding"}
    assert copy.deepcopy(x).tolist() == [0.0, 0.0]
    assert "_data" in mg.Tensor.__annotations__


def test_setstate_restores_data_and_flags():
    t = mg.Tensor.__new__(mg.Tensor)
    t.__setstate__((np.array([1.0, 2.0]), True))
    assert t.tolist() == [1.0, 2.0] and t.requires_grad and t.grad is None
    u = pickle.loads(pickle.dumps(mg.tensor([3.0])))
    assert u.tolist() == [3.0]


def test_as_subclass_keeps_memory_and_history():
    class Tagged(mg.Tensor):
        pass

    x = mg.ones(3, requires_grad=True)
    z = x * 2
    y = z.as_subclass(Tagged)
    assert type(y) is Tagged and np.shares_memory(y.numpy(), z.numpy())
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(TypeError):
        x.as_subclass(int)


def test_module_load_detaches_unless_assigned():
    p, v = mg.zeros(2), mg.ones(2, requires_grad=True)
    assert p.module_load(v, assign=True) is v
    loaded = p.module_load(v)
    assert not loaded.requires_grad and np.shares_memory(loaded.numpy(), v.numpy())

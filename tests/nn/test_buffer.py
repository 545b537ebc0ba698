"""``nn.Buffer`` (minigrad/nn/parameter.py): a tensor marked for registration as a buffer."""

import minigrad as mg
from minigrad import nn


def _check(lib, lib_nn):
    b = lib_nn.Buffer(lib.ones(2), persistent=False)
    assert isinstance(b, lib_nn.Buffer) and not isinstance(lib.ones(2), lib_nn.Buffer)
    m = lib_nn.Module()
    m.kept = lib_nn.Buffer(lib.zeros(3))
    m.scratch = b
    assert list(m.state_dict()) == ["kept"]
    assert [n for n, _ in m.named_buffers()] == ["kept", "scratch"]
    assert not list(m.parameters())
    assert lib_nn.Buffer().shape == (0,)


def test_buffer_registers_with_its_persistence():
    _check(mg, nn)


def test_buffer_as_pytorch(torch):
    _check(torch, torch.nn)

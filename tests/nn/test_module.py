"""Module: registration, traversal, modes, dtype moves, state_dict / load_state_dict."""

import copy

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.scale = nn.Parameter(mg.ones(4))
        self.register_buffer("running", mg.zeros(4))
        self.register_buffer("count", mg.tensor(0))  # int64
        self.register_buffer("cache", mg.zeros(2), persistent=False)

    def forward(self, x):
        return self.fc(x) * self.scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block()
        self.b = Block()
        self.head = nn.Linear(4, 2, bias=False)

    def forward(self, x):
        return self.head(self.b.fc(x))


# ---------------------------------------------------------------------- registration
def test_setattr_registers_parameters_modules_and_plain_attributes():
    m = Block()
    assert list(m._parameters) == ["scale"]
    assert list(m._modules) == ["fc"]
    assert set(m._buffers) == {"running", "count", "cache"}
    m.note = "hello"
    assert "note" not in m._parameters and m.note == "hello"
    assert m.scale is m._parameters["scale"]


def test_reassigning_a_name_moves_it_between_registries():
    m = Block()
    m.fc = nn.Parameter(mg.zeros(2))  # a module name now holds a parameter
    assert "fc" not in m._modules and "fc" in m._parameters
    with pytest.raises(TypeError, match="parameter 'scale'"):
        m.scale = mg.ones(4)  # a plain tensor cannot replace a parameter
    m.scale = None
    assert m.scale is None
    assert [n for n, _ in m.named_parameters()] == ["fc"]


def test_assigning_before_init_is_a_clear_error():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(mg.ones(2))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()


def test_register_parameter_none_and_name_checks():
    m = nn.Module()
    m.register_parameter("bias", None)
    assert m.bias is None
    assert list(m.parameters()) == []
    assert list(m.state_dict()) == []
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", None)
    with pytest.raises(TypeError, match="nn.Parameter or None"):
        m.register_parameter("w", mg.ones(2))
    with pytest.raises(TypeError, match="Tensor or None"):
        m.register_buffer("buf", np.ones(2))
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        _ = m.missing


def test_delattr_removes_registered_members():
    m = Block()
    del m.running
    del m.fc
    assert "running" not in dict(m.named_buffers())
    assert not hasattr(m, "fc")


# ---------------------------------------------------------------------- traversal
def test_named_parameters_dotted_and_ordered():
    names = [n for n, _ in Net().named_parameters()]
    assert names == [
        "a.scale",
        "a.fc.weight",
        "a.fc.bias",
        "b.scale",
        "b.fc.weight",
        "b.fc.bias",
        "head.weight",
    ]


def test_shared_parameters_and_modules_appear_once():
    net = Net()
    net.b.fc = net.a.fc  # share a whole module
    net.head.weight = net.a.scale  # silly shapes, but sharing is what counts
    params = list(net.parameters())
    assert len(params) == len({id(p) for p in params}) == 4  # a.scale, a.fc.*, b.scale
    names = [n for n, _ in net.named_modules()]
    assert names == ["", "a", "a.fc", "b", "head"]
    # state_dict lists a shared tensor under every name, as PyTorch does
    assert "b.fc.weight" in net.state_dict() and "head.weight" in net.state_dict()
    assert len(list(net.named_modules(remove_duplicate=False))) == 6


def test_buffers_persistent_and_not():
    m = Block()
    assert [n for n, _ in m.named_buffers()] == ["running", "count", "cache"]
    sd = m.state_dict()
    assert "cache" not in sd and "running" in sd and "count" in sd
    assert sd["count"].dtype == np.int64


def test_children_modules_and_get_submodule():
    net = Net()
    assert [n for n, _ in net.named_children()] == ["a", "b", "head"]
    assert len(list(net.modules())) == 6
    assert net.get_submodule("a.fc") is net.a.fc
    assert net.get_parameter("b.fc.bias") is net.b.fc.bias
    with pytest.raises(AttributeError, match="'nope'"):
        net.get_submodule("a.nope")


def test_train_eval_propagate_and_return_self():
    net = Net()
    assert net.eval() is net
    assert all(not m.training for m in net.modules())
    assert net.train() is net
    assert all(m.training for m in net.modules())
    net.train(False)
    assert not net.a.fc.training
    with pytest.raises(ValueError, match="bool"):
        net.train("yes")


def test_zero_grad_set_to_none_and_to_zero():
    net = Net()
    net(mg.randn(5, 3)).sum().backward()
    grads = {id(p): p.grad for p in net.parameters() if p.grad is not None}
    assert len(grads) == 3  # b.fc.weight, b.fc.bias, head.weight
    net.zero_grad(set_to_none=False)
    for p in net.parameters():
        if id(p) in grads:
            assert p.grad is grads[id(p)]  # zeroed in place
            assert np.all(p.grad.numpy() == 0)
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_apply_visits_children_before_parent():
    order = []
    Net().apply(lambda m: order.append(type(m).__name__))
    assert order == ["Linear", "Block", "Linear", "Block", "Linear", "Net"]


def test_call_runs_forward():
    class Twice(nn.Module):
        def forward(self, x, k=2):
            return x * k

    assert Twice()(mg.tensor([1.0]), k=3).item() == 3.0
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(1)


def test_repr_nested_with_extra_repr():
    r = repr(nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU())))
    assert r == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): Sequential(\n"
        "    (0): ReLU()\n"
        "  )\n"
        ")"
    )


# ---------------------------------------------------------------------- dtype
def test_to_double_converts_in_place_and_keeps_identity():
    m = Block()
    m(mg.randn(2, 3)).sum().backward()
    w = m.fc.weight
    assert m.double() is m
    assert m.fc.weight is w and w.dtype == np.float64 and w.grad.dtype == np.float64
    assert m.running.dtype == np.float64 and m.cache.dtype == np.float64
    assert m.count.dtype == np.int64  # integer buffers stay integer
    assert m.to(mg.float32) is m and w.dtype == np.float32
    assert m.to("cpu") is m
    with pytest.raises(TypeError, match="floating point"):
        m.to(mg.int64)


def test_deepcopy_gives_independent_parameters():
    m = Block()
    c = copy.deepcopy(m)
    with mg.no_grad():
        c.fc.weight.numpy()[...] = 0
    assert not np.all(m.fc.weight.numpy() == 0)
    assert c.fc.weight is not m.fc.weight and isinstance(c.fc.weight, nn.Parameter)


# ---------------------------------------------------------------------- state_dict
def test_state_dict_shares_memory_with_the_module():
    m = Block()
    sd = m.state_dict()
    assert all(type(v) is mg.Tensor and not v.requires_grad for v in sd.values())
    with mg.no_grad():
        sd["fc.weight"].copy_(mg.ones(*sd["fc.weight"].shape))  # how GPT code loads weights
    assert np.all(m.fc.weight.numpy() == 1)
    with mg.no_grad():
        m.fc.weight.data += 1  # in place, as in PyTorch: the state_dict sees it
    assert np.all(sd["fc.weight"].numpy() == 2)
    kv = m.state_dict(keep_vars=True)
    assert kv["fc.weight"] is m.fc.weight


def test_load_state_dict_round_trip_and_identity():
    a, b = Net(), Net()
    w = b.a.fc.weight
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert b.a.fc.weight is w  # copied in place
    x = mg.randn(4, 3)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())


def test_load_state_dict_accepts_lists_and_tensors():
    m = nn.Linear(2, 1)
    m.load_state_dict({"weight": [[1.0, 2.0]], "bias": mg.tensor([0.5])})
    assert m(mg.tensor([[1.0, 1.0]])).item() == 3.5


def test_failed_load_leaves_module_unchanged_and_names_keys():
    m = Block()
    before = {k: v.numpy().copy() for k, v in m.state_dict().items()}
    bad = {k: v + 1 for k, v in before.items()}
    del bad["scale"]
    bad["fc.weight"] = np.zeros((3, 4), np.float32)  # transposed shape
    bad["extra"] = np.zeros(1)
    bad["count"] = np.array(1.5)  # a float into an integer buffer
    with pytest.raises(RuntimeError) as err:
        m.load_state_dict(bad)
    msg = str(err.value)
    assert 'Missing key(s) in state_dict: "scale"' in msg
    assert 'Unexpected key(s) in state_dict: "extra"' in msg
    assert "size mismatch for fc.weight" in msg and "[3, 4]" in msg and "[4, 3]" in msg
    assert "dtype mismatch for count" in msg
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(v, before[k], err_msg=k)


def test_non_strict_returns_missing_and_unexpected_but_checks_shapes():
    m = Block()
    sd = m.state_dict()
    del sd["running"]
    sd["foo"] = np.zeros(1)
    sd["fc.bias"] = sd["fc.bias"] + 7
    res = m.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["running"] and res.unexpected_keys == ["foo"]
    np.testing.assert_array_equal(m.fc.bias.numpy(), sd["fc.bias"])
    sd["fc.bias"] = np.zeros(5)
    with pytest.raises(RuntimeError, match="size mismatch for fc.bias"):
        m.load_state_dict(sd, strict=False)


def test_load_state_dict_casts_dtype_and_refuses_non_numbers():
    m = nn.Linear(2, 2)
    sd = {k: v.numpy().astype(np.float64) for k, v in m.state_dict().items()}
    m.load_state_dict(sd)
    assert m.weight.dtype == np.float32
    sd["bias"] = np.array(["a", "b"])
    with pytest.raises(RuntimeError, match="dtype mismatch for bias"):
        m.load_state_dict(sd)
    with pytest.raises(TypeError, match="dict-like"):
        m.load_state_dict([1, 2])


# ---------------------------------------------------------------------- PyTorch interop
# float32 outputs of two small matmuls, some near zero (where rounding of different
# summation orders is larger than 1e-6 relative): a relative and an absolute tolerance.
F32 = dict(rtol=1e-5, atol=1e-6)


def _torch_net(torch):
    class TBlock(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 4)
            self.scale = torch.nn.Parameter(torch.ones(4))
            self.register_buffer("running", torch.zeros(4))
            self.register_buffer("count", torch.tensor(0))
            self.register_buffer("cache", torch.zeros(2), persistent=False)

    class TNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = TBlock()
            self.b = TBlock()
            self.head = torch.nn.Linear(4, 2, bias=False)

        def forward(self, x):
            return self.head(self.b.fc(x))

    return TNet()


def test_same_names_as_pytorch_and_weights_move_both_ways(torch):
    torch.manual_seed(0)
    mg.manual_seed(0)
    tnet, net = _torch_net(torch), Net()
    assert list(tnet.state_dict()) == list(net.state_dict())
    assert [n for n, _ in tnet.named_parameters()] == [n for n, _ in net.named_parameters()]
    assert [n for n, _ in tnet.named_buffers()] == [n for n, _ in net.named_buffers()]
    assert [n for n, _ in tnet.named_modules()] == [n for n, _ in net.named_modules()]
    # torch -> minigrad: torch tensors are accepted directly
    net.load_state_dict(tnet.state_dict())
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        net(mg.tensor(x)).numpy(), tnet(torch.from_numpy(x)).detach().numpy(), **F32
    )
    # minigrad -> torch
    net2 = Net()
    tnet.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in net2.state_dict().items()})
    np.testing.assert_allclose(
        net2(mg.tensor(x)).numpy(), tnet(torch.from_numpy(x)).detach().numpy(), **F32
    )


def _reassigning_program(lib):
    """A module whose parameter and submodule are assigned again after others."""

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Parameter(lib.zeros(2))
            self.first = lib.nn.Linear(2, 2)
            self.b = lib.nn.Parameter(lib.zeros(3))
            self.second = lib.nn.Linear(2, 1)
            self.a = lib.nn.Parameter(lib.ones(2))  # again: keeps its place before b
            self.first = lib.nn.Linear(2, 3)  # again: keeps its place before second

    net = Net()
    return list(net.state_dict()), [tuple(p.shape) for p in net.parameters()]


def test_reassigning_a_parameter_or_submodule_keeps_its_registration_order():
    keys, shapes = _reassigning_program(mg)
    assert keys == [
        "a",
        "b",
        "first.weight",
        "first.bias",
        "second.weight",
        "second.bias",
    ]
    assert shapes == [(2,), (3,), (3, 2), (3,), (1, 2), (1,)]


def test_reassigning_keeps_pytorchs_order(torch):
    assert _reassigning_program(mg) == _reassigning_program(torch)

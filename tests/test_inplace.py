"""``t.data``, in-place methods and the version counter, with PyTorch's semantics."""

import numpy as np
import pytest

import minigrad as mg

MODIFIED = "modified by an inplace operation"


def test_data_is_a_tensor_sharing_memory_that_does_not_require_grad():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    d = p.data
    assert type(d) is mg.Tensor and not d.requires_grad and d.grad_fn is None
    d.zero_()  # no no_grad needed: .data is outside the graph
    assert p.tolist() == [0.0, 0.0]
    p.data.uniform_(-0.1, 0.1)
    assert np.all(np.abs(p.numpy()) <= 0.1)


def test_data_setter_replaces_the_array():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    p.data = mg.tensor([5.0, 6.0, 7.0])
    assert p.tolist() == [5.0, 6.0, 7.0] and p.requires_grad


def test_modifying_a_saved_input_raises_at_backward():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0])
    y = (x * w).sum()
    w.mul_(10)  # without the counter, x.grad would silently be [30, 40]
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()


def test_modifying_a_saved_output_raises_at_backward():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # exp saves its output
    with mg.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="version 1; expected version 0"):
        y.sum().backward()


def test_detach_shares_the_counter_but_data_does_not():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    x.detach().add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()
    x2 = mg.tensor([1.0, 2.0], requires_grad=True)
    y2 = (x2 * x2).sum()
    x2.data.add_(1)  # untracked, as in PyTorch: the gradient uses the new values
    y2.backward()
    assert x2.grad.tolist() == [4.0, 6.0]


def test_change_after_backward_is_fine():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0])
    (x * w).sum().backward()
    w.mul_(10)
    assert x.grad.tolist() == [3.0, 4.0]


def test_inplace_on_a_leaf_that_requires_grad_needs_no_grad():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        p.add_(1)
    with mg.no_grad():
        p.add_(1)
    assert p.tolist() == [2.0, 3.0]


def test_inplace_methods_compute_what_pytorch_does():
    t = mg.tensor([1.0, -2.0, 3.0])
    assert t.sub_(1, alpha=2).tolist() == [-1.0, -4.0, 1.0]
    assert t.div_(2).tolist() == [-0.5, -2.0, 0.5]
    assert t.clamp_(min=-1).tolist() == [-0.5, -1.0, 0.5]
    assert t.masked_fill_(mg.tensor([True, False, False]), 9).tolist() == [9.0, -1.0, 0.5]
    assert t.fill_(mg.tensor(2.0)).tolist() == [2.0, 2.0, 2.0]
    assert t.copy_(np.array([1, 2, 3])).tolist() == [1.0, 2.0, 3.0]
    assert t._version_count == 6
    with pytest.raises(ValueError, match="does not broadcast"):
        t.copy_(mg.zeros(2))


def test_augmented_assignment_is_in_place_outside_the_graph():
    t = mg.tensor([1.0, 2.0])
    alias = t
    t += 1
    t *= 2
    assert t is alias and alias.tolist() == [4.0, 6.0]
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    h += 1  # recording: out of place, the graph stays right
    h.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_random_inplace_draws_are_seeded():
    mg.manual_seed(3)
    a = mg.empty(5).normal_(0, 1).numpy().copy()
    mg.manual_seed(3)
    b = mg.empty(5).normal_(0, 1).numpy()
    np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------- views share the counter
# Each entry makes a view of a (4, 3) tensor that shares its memory.
VIEWS = {
    "slice": lambda x: x[0:2],
    "int": lambda x: x[1],
    "none": lambda x: x[None],
    "ellipsis": lambda x: x[..., 1],
    "view": lambda x: x.view(12),
    "reshape": lambda x: x.reshape(3, 4),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "squeeze": lambda x: x[None].squeeze(0),
    "flatten": lambda x: x.flatten(),
    "unflatten": lambda x: x.unflatten(0, (2, 2)),
    "view_as": lambda x: x.view_as(mg.zeros(6, 2)),
    "unbind": lambda x: x.unbind(0)[1],
    "split": lambda x: x.split(2)[1],
    "chunk": lambda x: x.chunk(2, 1)[0],
    "view_of_view": lambda x: x[1:].t()[0],
    "detach": lambda x: x.detach(),
}


@pytest.mark.parametrize("make_view", VIEWS.values(), ids=VIEWS.keys())
def test_changing_a_saved_tensor_through_any_view_raises_at_backward(make_view):
    w = mg.ones(4, 3, requires_grad=True)
    x = mg.arange(12.0).reshape(4, 3) + 1  # issue 25: w.grad was silently [5, 5, ..., 1]
    y = (w * x).sum()
    v = make_view(x)
    assert np.shares_memory(v.numpy(), x.numpy())
    v.mul_(5)
    assert x._version == v._version == 1
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()


@pytest.mark.parametrize("make_view", VIEWS.values(), ids=VIEWS.keys())
def test_views_made_under_no_grad_share_the_counter_too(make_view):
    x = mg.arange(12.0).reshape(4, 3)
    with mg.no_grad():
        v = make_view(x)
    v[...] = 7  # an assignment through the view is an in-place change as well
    assert x._version == v._version == 1 and np.all(x.numpy()[np.isin(x.numpy(), 7)] == 7)


def test_a_view_sees_in_place_changes_of_its_base_and_expand_shares_it():
    x = mg.tensor([1.0, 2.0, 3.0])
    w = mg.tensor([1.0, 1.0, 1.0], requires_grad=True)
    e = x.expand(2, 3)
    y = (w * e).sum()  # Mul saved the expanded view
    x.add_(1)
    assert e._version == 1
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()
    with pytest.raises(RuntimeError, match="single memory location"):
        e.add_(1)  # its elements overlap: as PyTorch, refuse to write through it


def test_data_keeps_a_counter_of_its_own():
    x = mg.zeros(3)
    x[0:2].add_(1)
    assert x._version == 1 and x.data._version == 0 and x.detach()._version == 1
    x.data.add_(1)
    assert x._version == 1


def _tensor_results(out):
    if isinstance(out, mg.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [o for o in out if isinstance(o, mg.Tensor)]
    return []


def test_every_method_that_returns_shared_memory_shares_the_version_counter():
    """Enumerate the class from the code: call every public Tensor method with a few
    argument patterns; whatever comes back sharing the input's memory must share its
    version counter (``.data`` excepted, by design)."""
    args_to_try = [(), (0,), (1,), (-1,), (0, 1), (1, 2), (2, -1), (4, 6), (24,), (2, 2, 3, 4)]
    args_to_try += [(mg.zeros(6, 4),), (mg.zeros(2, 2, 3, 4),), (slice(1, None),), (0, (1, 2))]
    names = [n for n in dir(mg.Tensor) if not n.startswith("_") and n != "data"]
    found = set()
    for name in names + ["__getitem__"]:
        for args in args_to_try:
            for shape in [(2, 3, 4), (3, 4), (1, 3, 4)]:
                x = mg.arange(float(np.prod(shape))).reshape(shape)
                x = x.clone()  # a base of its own, at version 0
                try:
                    attr = getattr(x, name)
                    with np.errstate(all="ignore"):
                        out = attr(*args) if callable(attr) else attr
                except Exception:
                    continue
                for r in _tensor_results(out):
                    if r is x or not np.shares_memory(r.numpy(), x.numpy()):
                        continue
                    found.add(name)
                    before = x._version
                    with mg.no_grad():
                        x.mul_(1.0)
                    assert r._version == x._version == before + 1, (name, args, shape)
    expected = {"reshape", "view", "flatten", "permute", "transpose", "t", "T", "mT"}
    expected |= {"unsqueeze", "squeeze", "expand", "expand_as", "unbind", "split", "chunk"}
    expected |= {"view_as", "reshape_as", "detach", "unflatten", "__getitem__", "as_strided"}
    assert expected <= found, sorted(expected - found)


# ---------------------------------------------------------------- leaves that require grad
def test_in_place_update_of_a_parameter_outside_no_grad_raises_inside_updates():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    (p * p).sum().backward()
    alias = p
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        p -= 0.1 * p.grad  # issue 25: this used to rebind p and change nothing
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        p += 1
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        p[0:1].mul_(2)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        p[0] = 5.0
    assert p is alias and p.tolist() == [1.0, 2.0] and p._version == 0
    memory = p.numpy()
    with mg.no_grad():
        p -= 0.5 * p.grad
        p[0] = 7.0
    assert p is alias and p.numpy() is memory and p.tolist() == [7.0, 0.0]
    assert p.is_leaf and p.requires_grad


def test_an_optimizer_loop_written_by_hand_updates_the_model():
    model = mg.nn.Linear(3, 1)
    before = [q.numpy().copy() for q in model.parameters()]
    model(mg.ones(2, 3)).sum().backward()
    with mg.no_grad():
        for q in model.parameters():
            q -= 0.1 * q.grad
    for q, b in zip(model.parameters(), before):
        np.testing.assert_allclose(q.numpy(), b - 0.1 * q.grad.numpy(), rtol=1e-6)


# ---------------------------------------------------------------- recorded in the graph
def _grads(program, n_inputs=2, seed=0):
    rng = np.random.default_rng(seed)
    xs = [mg.tensor(rng.standard_normal((3, 4)), requires_grad=True) for _ in range(n_inputs)]
    out = program(*xs)
    out.backward(mg.tensor(np.arange(out.numel(), dtype=np.float64).reshape(out.shape)))
    return [x.grad.numpy() for x in xs]


def _in_place_and_out_of_place(a, b):
    """Pairs of programs: the first changes a non-leaf in place, the second is the
    same computation written out of place (the reference)."""
    mask = np.array([[True, False, False, True]] * 3)
    cases = {
        "masked_fill_": (
            lambda a, b: (a @ b.T).masked_fill_(mask[:, :3], -np.inf).softmax(1),
            lambda a, b: (a @ b.T).masked_fill(mask[:, :3], -np.inf).softmax(1),
        ),
        "add_": (lambda a, b: (a * 2).add_(b, alpha=3), lambda a, b: a * 2 + 3 * b),
        "iadd": (lambda a, b: _iadd(a * 2, b), lambda a, b: a * 2 + b),
        "mul_ saving self": (lambda a, b: (a * 1).mul_(b) * b, lambda a, b: a * b * b),
        "clamp_": (lambda a, b: (a * b).clamp_(-0.3, 0.3), lambda a, b: (a * b).clamp(-0.3, 0.3)),
        "setitem": (lambda a, b: _setitem(a * 1, b), lambda a, b: mg.cat([b[0:1] * 2, a[1:]])),
        "view mul_": (lambda a, b: _view_mul(a * 1, b), lambda a, b: _view_mul_ref(a, b)),
        "zero_": (lambda a, b: (a * b).zero_() + b, lambda a, b: b + 0 * a),
        "copy_ into a plain tensor": (lambda a, b: _copy_rows(a, b), lambda a, b: mg.cat([a, b])),
    }
    return cases


def _iadd(h, b):
    h += b
    return h


def _setitem(h, b):
    h[0] = b[0] * 2
    return h


def _view_mul(h, b):
    h[:, 1:3].mul_(b[:, 0:2])
    h.t()[0] += 1  # a view of a view, changed after the first change
    return h


def _view_mul_ref(a, b):
    middle = a[:, 1:3] * b[:, 0:2]
    return mg.cat([a[:, 0:1] + 1, middle, a[:, 3:]], 1)


def _copy_rows(a, b):
    out = mg.zeros(6, 4, dtype=mg.float64)
    out[0:3].copy_(a)
    out[3:] = b
    return out


@pytest.mark.parametrize("name", list(_in_place_and_out_of_place(None, None)))
def test_in_place_ops_on_non_leaves_are_recorded_with_the_right_gradients(name):
    in_place, reference = _in_place_and_out_of_place(None, None)[name]
    for got, want in zip(_grads(in_place), _grads(reference)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_in_place_on_a_non_leaf_bumps_its_version_and_guards_saved_values():
    x = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * 2
    s = h.sigmoid()  # saves its output s
    h.add_(1)  # h was not saved by anyone: fine
    assert h._version == 1 and h.grad_fn is not None and not h.is_leaf
    s.mul_(2)  # s was saved by Sigmoid: the backward must refuse
    with pytest.raises(RuntimeError, match=MODIFIED):
        (s + h).sum().backward()


def test_a_view_re_makes_its_history_when_an_overlapping_view_changes():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    b, c = y[0:2], y[1:3]
    c.mul_(2)  # b[1] is now 2 * x[1]
    b.sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 0.0]  # as PyTorch


def test_refused_in_place_changes_of_views_while_recording():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    with pytest.raises(RuntimeError, match="returns multiple views"):
        y.unbind(0)[0].mul_(2)
    with mg.no_grad():
        v = y[0]
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        v.mul_(2)
    with mg.no_grad():
        v.mul_(2)  # both under no_grad: fine, and not recorded
    assert y.tolist()[0] == [2.0, 4.0]


# ---------------------------------------------------------------- dtypes (issue 25 item 7)
@pytest.mark.parametrize(
    "dtype, change, message",
    [
        (
            mg.int64,
            lambda t: t.add_(0.7),
            "result type Float can't be cast to the desired output type Long",
        ),
        (mg.int64, lambda t: t.mul_(2.0), "Float can't be cast to the desired output type Long"),
        (mg.int64, lambda t: t.div_(2), "Float can't be cast to the desired output type Long"),
        (mg.int64, lambda t: t.clamp_(0.5), "Float can't be cast to the desired output type Long"),
        (
            mg.bool,
            lambda t: t.add_(1),
            "result type Long can't be cast to the desired output type Bool",
        ),
        (mg.int64, lambda t: _iadd(t, 0.5), "Float can't be cast to the desired output type Long"),
    ],
)
def test_float_results_are_not_cast_into_integer_or_bool_tensors(dtype, change, message):
    t = mg.tensor([1, 0]).to(dtype)
    with pytest.raises(RuntimeError, match=message):
        change(t)
    assert t.tolist() == mg.tensor([1, 0]).to(dtype).tolist() and t._version == 0


def test_copy_fill_masked_fill_and_assignment_still_cast():
    t = mg.tensor([1, 2, 3])
    assert t.copy_(mg.tensor([1.5, 2.5, 3.5])).tolist() == [1, 2, 3]
    assert t.fill_(2.7).tolist() == [2, 2, 2]
    assert t.masked_fill_(mg.tensor([True, False, False]), 0.5).tolist() == [0, 2, 2]
    t[1] = 7.9
    assert t.tolist() == [0, 7, 2] and t.dtype == mg.int64
    b = mg.tensor([True, False])
    assert b.fill_(2.5).tolist() == [True, True]
    d = mg.zeros(2, dtype=mg.float64)
    assert d.fill_(2.7).tolist() == [2.7, 2.7]  # a Python float is not rounded to float32


def test_inplace_semantics_match_pytorch(torch):
    for name, (program, _) in _in_place_and_out_of_place(None, None).items():
        rng = np.random.default_rng(0)
        arrays = [rng.standard_normal((3, 4)) for _ in range(2)]
        mine = _grads(program)
        xs = [torch.tensor(a, requires_grad=True) for a in arrays]
        out = _torch_program(torch, name)(*xs)
        out.backward(torch.arange(out.numel(), dtype=torch.float64).reshape(out.shape))
        for got, x in zip(mine, xs):
            np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


def _torch_program(torch, name):
    """The in-place programs above, in PyTorch's spelling (the same code but for the
    tensor constructors and the mask)."""
    mask = torch.tensor([[True, False, False, True]] * 3)

    def copy_rows(a, b):
        out = torch.zeros(6, 4, dtype=torch.float64)
        out[0:3].copy_(a)
        out[3:] = b
        return out

    return {
        "masked_fill_": lambda a, b: (a @ b.T).masked_fill_(mask[:, :3], -np.inf).softmax(1),
        "add_": lambda a, b: (a * 2).add_(b, alpha=3),
        "iadd": lambda a, b: _iadd(a * 2, b),
        "mul_ saving self": lambda a, b: (a * 1).mul_(b) * b,
        "clamp_": lambda a, b: (a * b).clamp_(-0.3, 0.3),
        "setitem": lambda a, b: _setitem(a * 1, b),
        "view mul_": lambda a, b: _view_mul(a * 1, b),
        "zero_": lambda a, b: (a * b).zero_() + b,
        "copy_ into a plain tensor": copy_rows,
    }[name]


@pytest.mark.parametrize("fill", ["uniform_", "normal_"])
@pytest.mark.parametrize("dtype", [mg.int64, mg.bool])
def test_random_fills_refuse_integer_and_bool_tensors_as_pytorch_does(fill, dtype):
    t = mg.zeros(3, dtype=dtype)
    with pytest.raises(NotImplementedError, match=fill):
        getattr(t, fill)()
    np.testing.assert_array_equal(t.numpy(), np.zeros(3))  # nothing was written

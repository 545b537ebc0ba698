"""Helpers shared by the operation tests (as fixtures, so test files need no imports).

- ``parity(mg_fn, torch_fn, *arrays)``: run the same computation in minigrad and in
  PyTorch on float64 copies of ``arrays``, back-propagate the same random cotangent, and
  compare the outputs (value, shape, dtype) and every input's gradient.
- ``leaf(shape)``: a float64 leaf tensor of standard-normal values that requires grad.
- ``check_grads(fn, *tensors)``: ``mg.gradcheck`` plus the engine-level facts that
  gradcheck does not look at (each gradient has its input's shape, inputs that do not
  require grad get no gradient).
"""

import numpy as np
import pytest

import minigrad as mg


def _torch_dtype_name(t) -> str:
    return str(t.dtype).replace("torch.", "")


@pytest.fixture
def parity(torch):
    def check(mg_fn, torch_fn, *arrays, grad=None, rtol=1e-10, atol=1e-12, seed=7):
        """Compare ``mg_fn(*tensors)`` with ``torch_fn(*torch_tensors)``, values and grads.

        ``grad`` lists which arrays require grad (default: the floating-point ones).
        Returns the minigrad output for further checks.
        """
        if grad is None:
            grad = [np.asarray(a).dtype.kind == "f" for a in arrays]
        xs = [mg.tensor(np.asarray(a), requires_grad=g) for a, g in zip(arrays, grad, strict=True)]
        ts = [
            torch.tensor(np.asarray(a), requires_grad=g) for a, g in zip(arrays, grad, strict=True)
        ]
        y = mg_fn(*xs)
        yt = torch_fn(*ts)
        assert y.shape == tuple(yt.shape)
        assert str(y.dtype) == _torch_dtype_name(yt)
        np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
        assert y.requires_grad == yt.requires_grad
        if not yt.requires_grad:
            return y
        cot = np.random.default_rng(seed).standard_normal(y.shape).astype(y.dtype)
        y.backward(mg.tensor(cot))
        yt.backward(torch.tensor(cot))
        for i, (x, t) in enumerate(zip(xs, ts, strict=True)):
            if not grad[i]:
                assert x.grad is None
                continue
            if t.grad is None:
                assert x.grad is None or not np.any(x.grad.numpy()), f"input {i}"
                continue
            assert x.grad is not None, f"input {i} got no gradient"
            assert x.grad.shape == x.shape and x.grad.dtype == x.dtype
            np.testing.assert_allclose(
                x.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=atol, err_msg=f"grad of input {i}"
            )
        return y

    return check


@pytest.fixture
def leaf(rng):
    def make(shape, low=None, high=None, requires_grad=True):
        if low is None:
            data = rng.standard_normal(shape)
        else:
            data = rng.uniform(low, high, shape)
        return mg.tensor(np.asarray(data, dtype=np.float64), requires_grad=requires_grad)

    return make


@pytest.fixture
def check_grads():
    def check(fn, *tensors, **gradcheck_kwargs):
        assert mg.gradcheck(fn, tensors, **gradcheck_kwargs)
        out = fn(*tensors)
        out.backward(mg.ones_like(out))
        for t in tensors:
            if not isinstance(t, mg.Tensor):
                continue
            if t.requires_grad:
                assert t.grad is not None and t.grad.shape == t.shape
                assert t.grad.dtype == t.dtype
                t.grad = None
            else:
                assert t.grad is None

    return check

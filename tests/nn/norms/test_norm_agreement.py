"""The three implementations agree with each other and with PyTorch.

For every case of the table: the fused, reference and composite outputs and all
gradients agree to tight tolerances in float64 and float32, keep the input's dtype, and
match PyTorch's (float32 and float64).
"""

import numpy as np
import pytest
from norm_cases import CASES, IMPLS, inputs

import minigrad as mg

#: (rtol, atol) between two implementations, and against PyTorch.
TOL = {np.float64: (1e-10, 1e-12), np.float32: (2e-5, 2e-5)}


def _run(case, impl, dtype, seed=0):
    xs = inputs(case, dtype, seed)
    y = case.mg_fn(impl)(*xs)
    dy = np.random.default_rng(seed + 100).standard_normal(y.shape).astype(dtype)
    grads = mg.autograd.grad(y, xs, mg.tensor(dy))
    return y, grads, dy


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_implementations_agree(case, dtype):
    rtol, atol = TOL[dtype]
    results = {impl: _run(case, impl, dtype) for impl in IMPLS}
    y_ref, g_ref, _ = results["reference"]
    for impl in ("fused", "composite"):
        y, grads, _ = results[impl]
        assert y.dtype == dtype and y.shape == y_ref.shape
        np.testing.assert_allclose(y.numpy(), y_ref.numpy(), rtol=rtol, atol=atol, err_msg=impl)
        for k, (g, gr) in enumerate(zip(grads, g_ref)):
            assert g.dtype == dtype and g.shape == gr.shape
            np.testing.assert_allclose(
                g.numpy(), gr.numpy(), rtol=rtol, atol=atol * 10, err_msg=f"{impl} grad {k}"
            )


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_matches_torch(case, impl, dtype, torch):
    rtol, atol = TOL[dtype]
    y, grads, dy = _run(case, impl, dtype)
    ts = [torch.tensor(x.numpy().copy(), requires_grad=True) for x in inputs(case, dtype)]
    yt = case.torch_fn(torch)(*ts)
    gts = torch.autograd.grad(yt, ts, torch.tensor(dy))
    assert str(yt.dtype) == f"torch.{np.dtype(dtype)}"
    np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
    for k, (g, gt) in enumerate(zip(grads, gts)):
        np.testing.assert_allclose(
            g.numpy(), gt.numpy(), rtol=rtol, atol=atol * 10, err_msg=f"grad {k}"
        )

"""Run a minigrad module and its PyTorch twin (the same weights) on the same input."""

import numpy as np

import minigrad as mg


def load_into_torch(torch, ours, theirs) -> None:
    """Give ``theirs`` the values of ``ours``' state_dict (the same keys)."""
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})


def forward_both(torch, ours, theirs, x: np.ndarray, rtol: float, atol: float):
    """Both modules on ``x``; their outputs must agree. Returns the two outputs."""
    o, t = ours(mg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
    return o, t


def assert_same_gradients(o, t, ours_params, theirs_params, rtol: float, atol: float) -> None:
    """Back-propagate ``sum(out^2)`` from both outputs; the gradients of the parameters
    (paired in order) must agree."""
    (o**2).sum().backward()
    (t**2).sum().backward()
    for p, q in zip(ours_params, theirs_params, strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=rtol, atol=atol)


def backward_attention_both(torch, rng, out, w, ref_out, ref_w, tol: dict) -> None:
    """Attention's ``(output, weights)`` from minigrad and PyTorch must agree (weights
    None in both, or the same); then the same random cotangents go back through both."""
    np.testing.assert_allclose(out.numpy(), ref_out.detach().numpy(), **tol)
    g = rng.standard_normal(out.shape)
    loss, ref_loss = (out * mg.tensor(g)).sum(), (ref_out * torch.tensor(g)).sum()
    if ref_w is None:
        assert w is None
    else:
        assert w.shape == tuple(ref_w.shape)
        np.testing.assert_allclose(w.numpy(), ref_w.detach().numpy(), **tol)
        gw = rng.standard_normal(w.shape)
        loss = loss + (w * mg.tensor(gw)).sum()
        ref_loss = ref_loss + (ref_w * torch.tensor(gw)).sum()
    loss.backward()
    ref_loss.backward()

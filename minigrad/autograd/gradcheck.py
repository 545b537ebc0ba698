"""Gradient checking: compare autograd's Jacobian with central finite differences."""

from __future__ import annotations

import warnings

import numpy as np

from minigrad.autograd.api import grad as autograd_grad
from minigrad.autograd.grad_mode import enable_grad, no_grad


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when an analytical gradient disagrees with finite differences."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(fn, inputs):
    from minigrad.tensor import Tensor

    outs = _as_tuple(fn(*inputs))
    return [o for o in outs if isinstance(o, Tensor)]


def _numerical_jacobian(fn, inputs, i, out_index, eps):
    x = inputs[i]
    flat = x.data.reshape(-1)
    cols = []
    with no_grad():
        for k in range(flat.size):
            orig = flat[k]
            flat[k] = orig + eps
            plus = _outputs(fn, inputs)[out_index].data.astype(np.float64)
            flat[k] = orig - eps
            minus = _outputs(fn, inputs)[out_index].data.astype(np.float64)
            flat[k] = orig
            cols.append(((plus - minus) / (2 * eps)).reshape(-1))
    return np.stack(cols, axis=1) if cols else np.zeros((0, 0))


def gradcheck(
    fn,
    inputs,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    fast_mode: bool = False,
) -> bool:
    """Check the gradients of ``fn`` at ``inputs`` against central finite differences."""
    from minigrad.tensor import Tensor

    inputs = _as_tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    for i in diff:
        if inputs[i].dtype != np.float64:
            warnings.warn(
                f"gradcheck: input {i} is {inputs[i].dtype}, not float64; finite differences "
                "in single precision are dominated by rounding",
                stacklevel=2,
            )
    outs = _outputs(fn, inputs)
    for o_idx, out in enumerate(outs):
        if not out.requires_grad:
            continue
        n_out = out.data.size
        analytical = {i: np.zeros((n_out, inputs[i].data.size)) for i in diff}
        for r in range(n_out):
            g = np.zeros(n_out, dtype=out.dtype)
            g[r] = 1
            out_r = _outputs(fn, inputs)[o_idx]
            grads = autograd_grad(out_r, [inputs[i] for i in diff], g.reshape(out.shape), allow_unused=True)
            for i, gi in zip(diff, grads):
                if gi is not None:
                    analytical[i][r] = gi.data.reshape(-1)
        for i in diff:
            numerical = _numerical_jacobian(fn, inputs, i, o_idx, eps)
            a = analytical[i]
            err = np.abs(a - numerical)
            bad = err > atol + rtol * np.abs(numerical)
            if bad.any():
                worst = np.unravel_index(np.argmax(err - rtol * np.abs(numerical)), err.shape)
                msg = (
                    f"Jacobian mismatch for output {o_idx} with respect to input {i}: at "
                    f"(out {worst[0]}, in {worst[1]}) numerical {numerical[worst]:.6g}, "
                    f"analytical {a[worst]:.6g}, abs err {err[worst]:.3g}"
                )
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(fn, inputs, grad_outputs=None, **kwargs) -> bool:
    """Check second derivatives: gradcheck of the function that returns fn's gradients."""
    from minigrad.tensor import Tensor

    inputs = _as_tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    outs = _outputs(fn, inputs)
    rng = np.random.default_rng(0)
    if grad_outputs is None:
        grad_outputs = [Tensor(rng.standard_normal(o.shape).astype(o.dtype), requires_grad=True) for o in outs]

    def first(*args):
        xs = args[: len(inputs)]
        gs = args[len(inputs):]
        with enable_grad():
            o = _outputs(fn, xs)
            return autograd_grad(o, [xs[i] for i in diff], list(gs), create_graph=True, allow_unused=True)

    return gradcheck(first, tuple(inputs) + tuple(grad_outputs), **kwargs)

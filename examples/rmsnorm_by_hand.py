"""RMSNorm by hand: the row of the LayerNorm page, every step of the forward and the backward.

Prints every line of docs/rmsnorm-by-hand.md, at the page's precision (6 significant
digits), computing each value with NumPy in the order the page derives it. Then checks
the numbers against minigrad's reference implementation and against F.rms_norm (the
fused kernel).

    python examples/rmsnorm_by_hand.py
"""

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.nn.norms import reference

x = np.array([[1.0, 2.0, 4.0, 9.0]])  # one example, 4 features (the LayerNorm page's row)
weight = np.array([1.0, 0.5, 2.0, -1.0])
dy = np.array([[0.5, -1.0, 0.25, 2.0]])  # dL/dy, as if from the next layer
eps = 1e-5
n = x.shape[1]


def fmt(value) -> str:
    """6 significant digits, a vector as [a, b, ...]; below 1e-12 (and -0) shown as 0."""
    value = np.asarray(value, dtype=np.float64).reshape(-1)
    value = np.where(np.abs(value) < 1e-12, 0.0, value)  # rounding error of a zero sum
    if value.size == 1:
        return f"{value[0]:.6g}"
    return "[" + ", ".join(f"{v:.6g}" for v in value) + "]"


def line(name: str, formula: str, value, sign: str = "=") -> None:
    print(f"{name:<7} {sign} {formula:<40} = {fmt(value)}")


print("the row")
print(f"x       = {fmt(x)}")
print(f"weight  = {fmt(weight)}")
print(f"dy      = {fmt(dy)}")
print(f"eps     = 1e-5,  n = {n}")

print("\nforward")
ms = (x * x).mean(axis=1, keepdims=True)
rstd = 1.0 / np.sqrt(ms + eps)
xhat = x * rstd
y = xhat * weight
line("ms", "(1 + 4 + 16 + 81) / 4", ms)
line("rstd", "1 / sqrt(ms + eps)", rstd)
line("xhat", "x * rstd", xhat)
line("y", "xhat * weight", y)
line("check", "mean(xhat^2)   (1, up to eps)", (xhat * xhat).mean())

print("\nbackward, step by step")
dweight = (dy * xhat).sum(axis=0)
g_xhat = dy * weight
g_rstd = (g_xhat * x).sum(axis=1, keepdims=True)
g_ms = g_rstd * (-0.5) * rstd**3
g_x_direct = g_xhat * rstd
g_x_through_ms = g_ms * 2.0 * x / n
g_x = g_x_direct + g_x_through_ms
line("dweight", "dy * xhat", dweight)
line("g_xhat", "dy * weight", g_xhat)
line("g_rstd", "sum(g_xhat * x)", g_rstd)
line("g_ms", "g_rstd * (-1/2) * rstd^3", g_ms)
line("g_x", "g_xhat * rstd", g_x_direct)
line("", "g_ms * 2 x / n", g_x_through_ms, sign="+")
line("g_x", "the sum of the two", g_x)

print("\nclosed form and checks")
closed = rstd * (g_xhat - xhat * (g_xhat * xhat).mean(axis=1, keepdims=True))
line("closed", "rstd (g_xhat - xhat mean(g_xhat xhat))", closed)
line("check", "sum(g_x * xhat)   (0, up to eps)", (g_x * xhat).sum())
line("check", "sum(g_x)          (not 0)", g_x.sum())

# The same numbers from the reference implementation ...
y_ref, _, rstd_ref = reference.rms_norm_forward(x, weight, 1, eps)
dx_ref, dweight_ref, _ = reference.rms_norm_backward(dy, x, weight, None, rstd_ref, 1)
for mine, theirs in [(y, y_ref), (g_x, dx_ref), (closed, dx_ref), (dweight, dweight_ref)]:
    assert np.allclose(mine, theirs, rtol=1e-12, atol=1e-12)

# ... and from F.rms_norm, which runs the fused kernel.
X = mg.tensor(x, requires_grad=True)
W = mg.tensor(weight, requires_grad=True)
out = F.rms_norm(X, (4,), W, eps=eps)
out.backward(mg.tensor(dy))
for tensor, expected in [(out, y), (X.grad, g_x), (W.grad, dweight)]:
    assert np.allclose(tensor.numpy(), expected, rtol=1e-10, atol=1e-12)
print("\nevery value above matches minigrad.nn.norms.reference and F.rms_norm")

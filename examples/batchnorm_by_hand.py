"""BatchNorm by hand: a batch of 4 examples with 2 channels, every step in train and eval.

Prints every line of docs/batchnorm-by-hand.md, at the page's precision (6 significant
digits), computing each value with NumPy in the order the page derives it. Then checks
the numbers against minigrad's reference implementation and against nn.BatchNorm1d
(whose fused kernel computes dx from the coefficients a, b, d shown here).

    python examples/batchnorm_by_hand.py
"""

import numpy as np

import minigrad as mg
import minigrad.nn as nn
from minigrad.nn.norms import reference

x = np.array([[1.0, 0.0], [2.0, 3.0], [4.0, -1.0], [9.0, 2.0]])  # [N, C]: 4 examples, 2 channels
weight = np.array([2.0, -1.0])
bias = np.array([0.5, 0.0])
dy = np.array([[0.5, 1.0], [-1.0, 0.0], [0.25, -1.0], [2.0, 0.5]])  # dL/dy from the next layer
eps, momentum = 1e-5, 0.1
m = x.shape[0]  # values per channel: the batch (times the positions, for [N, C, L])


def fmt(value) -> str:
    """6 significant digits, a vector as [a, b, ...]; below 1e-12 (and -0) shown as 0."""
    value = np.asarray(value, dtype=np.float64)
    value = np.where(np.abs(value) < 1e-12, 0.0, value)  # rounding error of a zero sum
    if value.ndim == 0:
        return f"{value:.6g}"
    return "[" + ", ".join(f"{v:.6g}" for v in value) + "]"


def header() -> None:
    print(f"{'':<16}{'channel 0':<43} channel 1")


def row(name: str, per_channel) -> None:
    """One quantity, channel 0 beside channel 1 (a column of an [N, C] array, or a number)."""
    c0, c1 = (np.asarray(per_channel)[..., c] for c in range(2))
    print(f"{name:<13} = {fmt(c0):<43} {fmt(c1)}".rstrip())


def line(name: str, formula: str, value) -> None:
    print(f"{name:<12} = {formula:<34} = {fmt(value)}")


print("the batch")
header()
row("x", x)
row("weight", weight)
row("bias", bias)
row("dy", dy)
print(f"eps = 1e-5, momentum = {momentum:g}, m = {m} values per channel")

print("\nforward (train mode: the batch's own statistics)")
mean = x.mean(axis=0)
xmu = x - mean
var = (xmu * xmu).mean(axis=0)  # biased: divide by m
rstd = 1.0 / np.sqrt(var + eps)
xhat = xmu * rstd
y = xhat * weight + bias
header()
row("mean", mean)
row("xmu", xmu)
row("var", var)
row("rstd", rstd)
row("xhat", xhat)
row("y", y)

print("\nrunning statistics (they start at mean 0, variance 1)")
running_mean = (1 - momentum) * 0.0 + momentum * mean
running_var = (1 - momentum) * 1.0 + momentum * var * m / (m - 1)  # unbiased batch variance
line("running_mean", "0.9 * 0 + 0.1 * mean", running_mean)
line("running_var", "0.9 * 1 + 0.1 * var * m / (m - 1)", running_var)

print("\nbackward, step by step (each sum runs over the batch)")
dbias = dy.sum(axis=0)
dweight = (dy * xhat).sum(axis=0)
g_xhat = dy * weight
g_rstd = (g_xhat * xmu).sum(axis=0)
g_var = g_rstd * (-0.5) * rstd**3
g_xmu = g_xhat * rstd + g_var * 2.0 * xmu / m
g_mean = -g_xmu.sum(axis=0)
g_x = g_xmu + g_mean / m
header()
row("dbias", dbias)
row("dweight", dweight)
row("g_xhat", g_xhat)
row("g_rstd", g_rstd)
row("g_var", g_var)
row("g_xmu", g_xmu)
row("g_mean", g_mean)
row("g_x", g_x)

print("\nbackward, as the fused kernel computes it, per channel (w: weight, r: rstd)")
print("dx = a dy + b xmu + d      a = w r")
print("                           b = -w r^3 sum(dy * xmu) / m")
print("                           d = -w r sum(dy) / m")
sum_dy = dy.sum(axis=0)
sum_dy_xmu = (dy * xmu).sum(axis=0)
a = weight * rstd
b = -weight * rstd**3 * sum_dy_xmu / m
d = -weight * rstd * sum_dy / m
dx = a * dy + b * xmu + d
header()
row("sum_dy", sum_dy)
row("sum_dy_xmu", sum_dy_xmu)
row("a", a)
row("b", b)
row("d", d)
row("dx", dx)
row("sum(dx)", dx.sum(axis=0))
row("sum(dx*xhat)", (dx * xhat).sum(axis=0))

print("\neval mode: the running statistics instead of the batch's")
rstd_eval = 1.0 / np.sqrt(running_var + eps)
y_eval = (x - running_mean) * rstd_eval * weight + bias
dx_eval = weight * rstd_eval * dy
header()
row("rstd", rstd_eval)
row("y", y_eval)
row("dx = a dy", dx_eval)

# The same numbers from the reference implementation ...
y_ref, mean_ref, rstd_ref, var_ref = reference.batch_norm_forward(x, weight, bias, None, None,
                                                                  True, eps)  # fmt: skip
dx_ref, dweight_ref, dbias_ref = reference.batch_norm_backward(dy, x, weight, mean_ref, rstd_ref,
                                                               True)  # fmt: skip
for mine, theirs in [(y, y_ref), (g_x, dx_ref), (dx, dx_ref), (dweight, dweight_ref),
                     (dbias, dbias_ref)]:  # fmt: skip
    assert np.allclose(mine, theirs, rtol=1e-12, atol=1e-12)

# ... and from nn.BatchNorm1d (the fused kernels), in train mode and then in eval mode.
bn = nn.BatchNorm1d(2, eps=eps, momentum=momentum).double()
with mg.no_grad():
    bn.weight.copy_(weight)
    bn.bias.copy_(bias)
X = mg.tensor(x, requires_grad=True)
out = bn(X)
out.backward(mg.tensor(dy))
checks = [
    (out, y),
    (X.grad, dx),
    (bn.weight.grad, dweight),
    (bn.bias.grad, dbias),
    (bn.running_mean, running_mean),
    (bn.running_var, running_var),
]
for tensor, expected in checks:
    assert np.allclose(tensor.numpy(), expected, rtol=1e-10, atol=1e-12)
bn.eval()
X = mg.tensor(x, requires_grad=True)
out = bn(X)
out.backward(mg.tensor(dy))
assert np.allclose(out.numpy(), y_eval, rtol=1e-10) and np.allclose(X.grad.numpy(), dx_eval)
print("\nevery value above matches minigrad.nn.norms.reference and nn.BatchNorm1d")

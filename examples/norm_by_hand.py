"""LayerNorm by hand: one row of four numbers, every step of the forward and the backward.

The symbols are those of docs/normalization.md and minigrad/nn/norms/reference.py. The
script computes each intermediate with NumPy, prints it at the precision of
docs/layernorm-by-hand.md (6 decimals; every number of that page's worked blocks is
printed here), checks the result against the reference implementation, and finally lets
the teaching utility compare the three implementations with finite differences.

    python examples/norm_by_hand.py
"""

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.gradcheck import compare_implementations
from minigrad.nn.norms import reference

x = np.array([[1.0, 2.0, 4.0, 9.0]])  # one example, 4 features
weight = np.array([1.0, 0.5, 2.0, -1.0])
bias = np.array([0.0, 0.1, 0.2, 0.3])
dy = np.array([[0.5, -1.0, 0.25, 2.0]])  # dL/dy, as if from the next layer
eps = 1e-5
n = x.shape[1]


def fmt(value, decimals: int = 6) -> str:
    """At the page's precision: 6 decimals, trailing zeros dropped; a row as [a, b, ...]."""
    value = np.asarray(value, dtype=np.float64).reshape(-1)
    value = np.where(np.abs(value) < 10.0 ** -(decimals + 1), 0.0, value)  # no "-0"
    texts = [f"{v:.{decimals}f}".rstrip("0").rstrip(".") for v in value]
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


def show(name: str, value, note: str = "", decimals: int = 6) -> None:
    print(f"  {name:<8} = {fmt(value, decimals):<44} {note}")


print("forward")
mean = x.mean(axis=1, keepdims=True)
show("mean", mean, "(1/n) sum x")
xmu = x - mean
show("xmu", xmu, "x - mean")
var = (xmu * xmu).mean(axis=1, keepdims=True)
show("var", var, "(1/n) sum xmu^2   (biased: divide by n)")
rstd = 1.0 / np.sqrt(var + eps)
show("rstd", rstd, "1 / sqrt(var + eps)")
xhat = xmu * rstd
show("xhat", xhat, "xmu * rstd   (mean 0, variance 1)")
y = xhat * weight + bias
show("y", y, "xhat * weight + bias")

print("\nbackward (dy given)")
show("dy", dy)
dbias = dy.sum(axis=0)
show("dbias", dbias, "sum over examples of dy")
dweight = (dy * xhat).sum(axis=0)
show("dweight", dweight, "sum over examples of dy * xhat")
g_xhat = dy * weight
show("g_xhat", g_xhat, "dy * weight")
g_rstd = (g_xhat * xmu).sum(axis=1, keepdims=True)
show("g_rstd", g_rstd, "sum(g_xhat * xmu)")
show("rstd^3", rstd**3, "(7 decimals, as on the page)", decimals=7)
g_var = g_rstd * (-0.5) * rstd**3
show("g_var", g_var, "g_rstd * (-1/2) * rstd^3")
show("direct", g_xhat * rstd, "g_xhat * rstd        (xhat uses xmu)")
show("via var", g_var * 2.0 * xmu / n, "g_var * 2 xmu / n    (var uses xmu)")
g_xmu = g_xhat * rstd + g_var * 2.0 * xmu / n
show("g_xmu", g_xmu, "g_xhat * rstd + g_var * 2 xmu / n")
g_mean = -g_xmu.sum(axis=1, keepdims=True)
show("g_mean", g_mean, "-sum(g_xmu)")
g_x = g_xmu + g_mean / n
show("g_x", g_x, "g_xmu + g_mean / n")

closed = rstd * (
    g_xhat - g_xhat.mean(axis=1, keepdims=True) - xhat * (g_xhat * xhat).mean(axis=1, keepdims=True)
)
show("closed", closed, "rstd (g_xhat - mean(g_xhat) - xhat mean(g_xhat xhat))")

# The same numbers from the reference implementation.
y_ref, mean_ref, rstd_ref = reference.layer_norm_forward(x, weight, bias, 1, eps)
dx_ref, dweight_ref, dbias_ref = reference.layer_norm_backward(dy, x, weight, mean_ref, rstd_ref, 1)
for mine, theirs in [(y, y_ref), (g_x, dx_ref), (closed, dx_ref), (dweight, dweight_ref),
                     (dbias, dbias_ref)]:  # fmt: skip
    assert np.allclose(mine, theirs, rtol=1e-12, atol=1e-12)
print("\nevery value above matches minigrad.nn.norms.reference\n")

# The three implementations against each other and against finite differences.
X = mg.tensor(x, requires_grad=True)
W = mg.tensor(weight, requires_grad=True)
B = mg.tensor(bias, requires_grad=True)
print(compare_implementations(F.layer_norm, X, (4,), W, B, eps=eps))

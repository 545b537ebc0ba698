"""Build a small tensor expression, back-propagate through it, and check the gradient.

python examples/quickstart.py
"""

import minigrad as mg

mg.manual_seed(0)

# A tiny two-layer computation on float64 inputs (float64 so gradcheck can be strict).
x = mg.randn(4, 3, dtype=mg.float64, requires_grad=True)
w = mg.randn(3, 2, dtype=mg.float64, requires_grad=True)
b = mg.zeros(2, dtype=mg.float64, requires_grad=True)


def model(x, w, b):
    h = (x @ w + b).tanh()  # (4, 2)
    return h.log_softmax(dim=1)[:, 0].mean()  # scalar


loss = model(x, w, b)
loss.backward()
print(f"loss           = {loss.item():.6f}")
print(f"dloss/dw       =\n{w.grad.numpy()}")
print(f"dloss/db       = {b.grad.numpy()}")

# Compare every element of every Jacobian with central finite differences.
ok = mg.gradcheck(model, (x, w, b))
print(f"gradcheck      = {'passed' if ok else 'FAILED'}")

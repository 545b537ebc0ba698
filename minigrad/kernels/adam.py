"""The Adam / AdamW update of one parameter as one pass over its elements.

For each element, with ``g`` the gradient, ``m`` and ``v`` the moment estimates (updated
in place) and the scalars prepared by ``optim/adam.py`` (bias corrections included)::

    p  = p * decay                      (AdamW: decay = 1 - lr * weight_decay, else 1)
    g  = g + l2 * p                     (Adam's weight_decay as an L2 penalty, else 0)
    m  = m + (1 - beta1) (g - m)
    v  = v beta2 + ((1 - beta2) g) g
    v^ = max(v^, v)                     (amsgrad: ``vmax`` not empty)
    p  = p - step_size (m / (sqrt(v) / bc2_sqrt + eps))

The same operations in the same order as PyTorch's single-tensor Adam (``lerp_``,
``addcmul_``, ``addcdiv_``), each rounded in the parameter's dtype, so both agree to the
last bit or nearly. NumPy needs ten passes and five temporaries for this; here every
array is read once and written once (``docs/benchmarks.md``).
"""

import numpy as np

from .jit import both_floats, kernel

_SIGS = both_floats(
    "void(T[::1], T[::1], T[::1], T[::1], T[::1], float64, float64, float64, float64, float64, "
    "float64, float64, float64)"
)


@kernel(_SIGS, nogil=True, error_model="numpy", cache=True)
def adam_update(
    p, g, m, v, vmax, decay, l2, one_minus_beta1, beta2, step_size, bc2_sqrt, eps, one_minus_beta2
):
    """One step over flat C-contiguous arrays; ``vmax`` is empty without amsgrad."""
    t = p.dtype.type
    decay_, l2_, b1c = t(decay), t(l2), t(one_minus_beta1)
    b2, b2c, ss, bc2, ep = t(beta2), t(one_minus_beta2), t(step_size), t(bc2_sqrt), t(eps)
    amsgrad = vmax.size > 0
    for i in range(p.size):
        w = p[i] * decay_ if decay_ != 1 else p[i]
        gi = g[i] + l2_ * w if l2_ != 0 else g[i]
        mi = m[i] + b1c * (gi - m[i])
        vi = v[i] * b2 + (b2c * gi) * gi
        m[i] = mi
        v[i] = vi
        if amsgrad:
            vi = max(vmax[i], vi)
            vmax[i] = vi
        p[i] = w + (-ss) * (mi / (np.sqrt(vi) / bc2 + ep))

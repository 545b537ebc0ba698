"""minigrad: a small NumPy autodiff framework that speaks PyTorch's dialect.

    import minigrad as mg
    x = mg.randn(3, 4, requires_grad=True)
    y = (x.tanh() * 2).sum()
    y.backward()
    x.grad  # d y / d x
"""

from minigrad.autograd import (
    Function,
    GradcheckError,
    enable_grad,
    gradcheck,
    gradcheck_module,
    gradgradcheck,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from minigrad.creation import (
    arange,
    empty,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    rand,
    randint,
    randn,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from minigrad.dtypes import (
    bool_,
    double,
    float16,
    float32,
    float64,
    half,
    int32,
    int64,
    long,
)
from minigrad.ops import *  # noqa: F403  (mg.exp, mg.sum, mg.cat, ...)
from minigrad.ops import cat, matmul, maximum, minimum, stack, where
from minigrad.random import get_rng_state, manual_seed, set_rng_state
from minigrad.threads import get_num_threads, keep_freed_memory, set_num_threads
from minigrad.serialization import load, save
from minigrad.tensor import Tensor, as_tensor

bool = bool_  # noqa: A001  (mg.bool, as torch.bool)
float = float32  # noqa: A001
__version__ = "0.1.0"


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)

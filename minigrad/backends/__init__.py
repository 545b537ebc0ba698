"""``mg.backends``: the switches PyTorch programs set or read, for a CPU-only library.

``backends.cuda.matmul.allow_tf32 = True``, ``backends.cudnn.allow_tf32``,
``backends.cudnn.benchmark``, ``backends.cudnn.deterministic``: settable attributes that
are remembered and change nothing (there is no CUDA, cuDNN or TF32 here: float32
matmuls are full float32). ``backends.mps.is_available()`` and ``is_built()`` are
False, as ``backends.cuda.is_built()`` and ``backends.cudnn.is_available()``.

Each is a module, as in PyTorch, so ``import torch.backends.cudnn as cudnn`` works with
only the import changed; the other backends of PyTorch (cuSPARSELt, MIOpen, XNNPACK ...)
say that they are unsupported (``minigrad/unsupported.json``).
"""

from minigrad.backends import cpu, cuda, cudnn, mkldnn, mps
from minigrad.unsupported import module_getattr

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps"]

__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why

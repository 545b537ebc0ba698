"""``torch.nn.modules``: the import paths PyTorch programs use for layers
(``from torch.nn.modules.module import Module``, ``torch.nn.modules.loss._Loss`` ...), each
re-exporting minigrad's layers from where they live (``minigrad/nn/*.py``)."""

from minigrad.nn import *  # noqa: F403
from minigrad.unsupported import module_getattr

__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why

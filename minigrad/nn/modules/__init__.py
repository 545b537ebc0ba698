"""``torch.nn.modules``: the import paths PyTorch programs use for layers
(``from torch.nn.modules.module import Module``, ``torch.nn.modules.loss._Loss`` ...), each
re-exporting minigrad's layers from where they live (``minigrad/nn/*.py``)."""

from minigrad.nn.modules.activation import *
from minigrad.nn.modules.adaptive import *
from minigrad.nn.modules.batchnorm import *
from minigrad.nn.modules.container import *
from minigrad.nn.modules.distance import *
from minigrad.nn.modules.dropout import *
from minigrad.nn.modules.flatten import *
from minigrad.nn.modules.instancenorm import *
from minigrad.nn.modules.linear import *
from minigrad.nn.modules.linear_cross_entropy import *
from minigrad.nn.modules.linear_cross_entropy_options import *
from minigrad.nn.modules.loss import *
from minigrad.nn.modules.module import *
from minigrad.nn.modules.normalization import *
from minigrad.nn.modules.padding import *
from minigrad.nn.modules.sparse import *
from minigrad.nn.modules.transformer import *
from minigrad.nn.modules.utils import *
from minigrad.unsupported import module_getattr

__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why

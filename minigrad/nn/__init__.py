"""Neural-network layers in PyTorch's dialect (``import minigrad.nn as nn``).

Each file holds one family of layers and lists its public names in its ``__all__``;
``nn.functional`` (``F``) holds their stateless function forms, ``nn.init`` the
initialisers, ``nn.utils`` gradient clipping and parametrizations, ``nn.parallel``
DataParallel, and ``nn.modules`` PyTorch's import paths (``torch.nn.modules.linear``).
"""

from types import ModuleType as _Module

from minigrad.nn import functional, init, parallel, utils
from minigrad.nn.activation import *
from minigrad.nn.activation_composite import *
from minigrad.nn.adaptive import *
from minigrad.nn.attention import *
from minigrad.nn.containers import *
from minigrad.nn.dropout import *
from minigrad.nn.embedding import *
from minigrad.nn.factory import *
from minigrad.nn.flatten import *
from minigrad.nn.instance_norm import *
from minigrad.nn.linear import *
from minigrad.nn.linear_cross_entropy import *
from minigrad.nn.loss import *
from minigrad.nn.loss_composite import *
from minigrad.nn.module import *
from minigrad.nn.normalization import *
from minigrad.nn.padding import *
from minigrad.nn.parallel import DataParallel as DataParallel
from minigrad.nn.parameter import *
from minigrad.nn.parameter_containers import *
from minigrad.nn.transformer import *
from minigrad.nn.transformer_decoder import *

# nn's names are the layer families' (each file's ``__all__``, star-imported above) and
# the subpackages.
__all__ = [n for n, v in globals().items() if not n.startswith("_") and not isinstance(v, _Module)]
__all__ += ["functional", "init", "parallel", "utils"]

# torch.nn.modules: PyTorch's import paths to the same names
from minigrad.nn import modules as modules  # noqa: E402
from minigrad.unsupported import module_getattr  # noqa: E402

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)

"""``torch.nn.modules.dropout``'s path: Dropout, its variants and their base ``_DropoutNd``."""

from minigrad.nn.dropout import *
from minigrad.nn.dropout import _DropoutNd

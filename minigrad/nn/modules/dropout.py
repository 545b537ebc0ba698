"""``torch.nn.modules.dropout``'s path: Dropout."""

from minigrad.nn.dropout import *

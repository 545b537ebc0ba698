"""``torch.nn.modules.sparse``'s path: Embedding."""

from minigrad.nn.embedding import *  # noqa: F403

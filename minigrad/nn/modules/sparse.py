"""``torch.nn.modules.sparse``'s path: Embedding and EmbeddingBag."""

from minigrad.nn.embedding import *

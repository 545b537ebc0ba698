"""``torch.nn.modules.distance``'s path: PairwiseDistance and CosineSimilarity."""

from minigrad.nn.loss_composite import *

"""``torch.nn.modules.instancenorm``'s path: InstanceNorm1d/2d/3d."""

from minigrad.nn.instance_norm import *

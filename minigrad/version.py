"""``torch.version``: what the build has. minigrad is a CPU build: ``cuda``, ``hip``,
``rocm`` and ``xpu`` are None, as PyTorch's CPU wheels report them."""

from minigrad._version import __version__ as __version__

cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = None

"""``torch.version``: what the build has. minigrad is a CPU build: ``cuda``, ``hip``,
``rocm`` and ``xpu`` are None, as PyTorch's CPU wheels report them."""

__version__ = "0.1.0"
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = None

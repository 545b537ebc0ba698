"""``torch.backends.cudnn``: settable flags (``benchmark``, ``deterministic``,
``allow_tf32`` ...), remembered, changing nothing: there is no cuDNN here."""

from minigrad.backends._switches import false
from minigrad.unsupported import module_getattr

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
is_available = false
#: torch.backends.cudnn is a package in PyTorch: its submodules (rnn) import
#: and refuse at use (minigrad/unsupported.py). An empty ``__path__`` makes this a package.
__path__: list[str] = []


def version() -> None:
    return None


__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why

"""``torch.backends.cudnn``: settable flags (``benchmark``, ``deterministic``,
``allow_tf32`` ...), remembered, changing nothing: there is no cuDNN here."""

from minigrad.backends._switches import false

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
is_available = false


def version() -> None:
    return None

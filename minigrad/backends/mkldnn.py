"""``torch.backends.mkldnn``: a settable ``enabled`` flag; oneDNN is not used."""

from minigrad.backends._switches import false

enabled = True
is_available = false

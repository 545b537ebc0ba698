"""``torch.backends.mps``: Apple's Metal backend is neither available nor built."""

from minigrad.backends._switches import false

is_available = false
is_built = false

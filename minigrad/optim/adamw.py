"""``torch.optim.adamw``'s path: ``AdamW`` (defined beside Adam, in ``adam.py``)."""

from minigrad.optim.adam import AdamW

__all__ = ["AdamW"]

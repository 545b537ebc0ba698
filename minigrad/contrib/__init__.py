"""``torch.contrib``: an empty package in PyTorch too (kept importable)."""

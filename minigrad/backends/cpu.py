"""``torch.backends.cpu``: the CPU capability PyTorch reports (NumPy picks its own)."""


def get_cpu_capability() -> str:
    return "DEFAULT"

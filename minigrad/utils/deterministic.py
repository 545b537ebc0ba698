"""``torch.utils.deterministic``: ``fill_uninitialized_memory``, the switch that makes
``empty`` and friends fill new memory (with NaN or the largest integer) while
deterministic algorithms are on. minigrad keeps the flag for programs that set it;
its ``empty`` is NumPy's and is not filled."""

fill_uninitialized_memory = True

"""``mg.distributed``: importable, for programs written to run on one or many processes.

minigrad trains in one process. A script written for ``torch.distributed`` runs
unchanged when it is started as one process: ``init_process_group`` with a world size
of 1 (the ``WORLD_SIZE`` environment variable unset or 1) sets up a group of one, in
which ``get_rank()`` is 0, ``get_world_size()`` 1, ``barrier()`` returns at once and
``all_reduce`` leaves its tensor as it is (the sum over one process).

A program that really starts several processes (``torchrun --nproc_per_node=4``,
``world_size > 1``) gets a ``RuntimeError`` at ``init_process_group`` that points to the
way out: minigrad's ``state_dict`` loads into the same model written in PyTorch, whose
``DistributedDataParallel`` does the multi-process training (docs/pytorch-compat.md,
examples/to_pytorch_ddp.py).
"""

from __future__ import annotations

import enum
import os

from minigrad.unsupported import module_getattr

__all__ = [
    "ReduceOp",
    "all_reduce",
    "barrier",
    "broadcast",
    "destroy_process_group",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "is_available",
    "is_initialized",
]

_NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)

MULTI_PROCESS_HELP = (
    "minigrad trains in a single process and cannot join a process group of {n}. "
    "To train on several processes or GPUs, move the model to PyTorch: the same model "
    "code with `import torch`, model.load_state_dict(minigrad_state_dict) and "
    "torch.nn.parallel.DistributedDataParallel (see docs/pytorch-compat.md, 'When it "
    "outgrows one machine', and examples/to_pytorch_ddp.py)."
)


class ReduceOp(enum.Enum):
    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"


class _Group:
    initialized = False
    backend = None


_group = _Group()


def is_available() -> bool:
    """True: the module exists and a single-process group works."""
    return True


def env_world_size() -> int:
    """``WORLD_SIZE`` from the environment (what ``torchrun`` sets), 1 when unset."""
    value = os.environ.get("WORLD_SIZE", "1")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"distributed: WORLD_SIZE must be an int, got {value!r}") from None


def check_single_process(world_size: int) -> None:
    if world_size > 1:
        raise RuntimeError(MULTI_PROCESS_HELP.format(n=world_size))


def init_process_group(
    backend=None,
    init_method=None,
    timeout=None,
    world_size: int = -1,
    rank: int = -1,
    store=None,
    group_name: str = "",
    pg_options=None,
    device_id=None,
) -> None:
    """Start a group of one process (see the module docstring); raise for more."""
    if _group.initialized:
        raise ValueError("trying to initialize the default process group twice!")
    n = world_size if world_size != -1 else env_world_size()
    check_single_process(n)
    if rank not in (-1, 0):
        raise ValueError(f"init_process_group: rank {rank} is out of range for a world size of 1")
    _group.initialized = True
    _group.backend = backend or "gloo"


def destroy_process_group(group=None) -> None:
    _group.initialized = False
    _group.backend = None


def is_initialized() -> bool:
    return _group.initialized


def _require() -> None:
    if not _group.initialized:
        raise ValueError(_NOT_INITIALIZED)


def get_rank(group=None) -> int:
    _require()
    return 0


def get_world_size(group=None) -> int:
    _require()
    return 1


def get_backend(group=None) -> str:
    _require()
    return _group.backend


def barrier(group=None, async_op: bool = False, device_ids=None) -> None:
    _require()


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False) -> None:
    """Over one process every reduction is the tensor itself: nothing changes."""
    _require()


def broadcast(tensor, src: int = 0, group=None, async_op: bool = False) -> None:
    _require()
    if src != 0:
        raise ValueError(f"broadcast: src {src} is out of range for a world size of 1")


__getattr__ = module_getattr(__name__)  # submodule paths, and unsupported names say why

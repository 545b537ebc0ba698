"""When it outgrows one machine: move a minigrad model into PyTorch's
DistributedDataParallel, train it there on several processes, and bring it back.

1. Train the small GPT of examples/gpt/model.py on minigrad for a few steps and save
   its state_dict with ``mg.save``: a safetensors file whose tensors carry PyTorch's
   state_dict names.
2. Start ``--nproc`` PyTorch processes (CPU, the gloo backend; on GPUs use nccl and
   ``device_ids=[rank]``). Each builds the *same* model file with ``GPT_BACKEND=torch``,
   loads the file with ``safetensors.torch.load_file`` and ``load_state_dict``, wraps
   the model in ``torch.nn.parallel.DistributedDataParallel`` and trains on its shard
   of the batch; DDP averages the gradients across processes.
3. Rank 0 writes the trained weights back with ``safetensors.torch.save_file`` (DDP's
   ``module.`` prefix removed) and minigrad loads them with ``mg.load``, e.g. to sample.

Before training, each process checks that PyTorch's loss at the imported weights equals
minigrad's on the same batch (printed as ``parity``).

    python examples/to_pytorch_ddp.py --nproc 2

This script needs PyTorch; minigrad itself never does.
"""

import argparse
import importlib.util
import os
import pathlib
import sys
import tempfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
GPT = HERE / "gpt"


def load_gpt(backend: str):
    """examples/gpt/model.py imported with GPT_BACKEND=backend (its own module copy)."""
    os.environ["GPT_BACKEND"] = backend
    spec = importlib.util.spec_from_file_location(f"gpt_model_{backend}", GPT / "model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def batch(step: int, n: int = 8, block: int = 16, vocab: int = 32):
    r = np.random.default_rng(step)
    x = r.integers(0, vocab, (n, block))
    return x, (x + 1) % vocab  # learn "next token = this one + 1"


def train_on_minigrad(path: str, steps: int) -> float:
    import minigrad as mg

    model_mg = load_gpt("minigrad")
    mg.manual_seed(0)
    model = model_mg.GPT(model_mg.GPTConfig())
    opt = model.configure_optimizers(0.1, 3e-3, (0.9, 0.95), "cpu")
    for step in range(steps):
        x, y = batch(step)
        _, loss = model(mg.tensor(x), mg.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
    mg.save(model.state_dict(), path)
    x, y = batch(1000)
    _, loss = model(mg.tensor(x), mg.tensor(y))
    return loss.item()


def worker(rank: int, world: int, store: str, path: str, out: str, steps: int, mg_loss: float):
    import safetensors.torch
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    # The processes meet through a file (PyTorch's shared file-system initialization):
    # no port to pick, so no race with another program for one.
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    torch.set_num_threads(1)
    model_t = load_gpt("torch")
    model = model_t.GPT(model_t.GPTConfig())
    model.load_state_dict(safetensors.torch.load_file(path))
    x, y = batch(1000)
    _, loss = model(torch.tensor(x), torch.tensor(y))
    if rank == 0:
        print(f"parity: minigrad loss {mg_loss:.6f}, PyTorch loss {loss.item():.6f}")
    assert abs(loss.item() - mg_loss) < 1e-4 * max(1.0, abs(mg_loss))
    ddp = DDP(model)
    opt = model.configure_optimizers(0.1, 3e-3, (0.9, 0.95), "cpu")
    for step in range(steps):
        x, y = batch(100 + step)
        shard = slice(rank, None, world)  # each process takes its share of the batch
        _, loss = ddp(torch.tensor(x[shard]), torch.tensor(y[shard]))
        opt.zero_grad()
        loss.backward()  # DDP averages the gradients over the processes here
        opt.step()
    if rank == 0:
        # clone: the tied embedding and head share one tensor, which save_file refuses
        state = {k: v.detach().clone() for k, v in ddp.module.state_dict().items()}
        safetensors.torch.save_file(state, out)
        print(
            f"rank 0: trained {steps} DDP steps on {world} processes, last loss {loss.item():.4f}"
        )
    # Every process waits here for the others before any of them shuts its process group
    # down, so that none tears down its connections while a peer still has messages to or
    # from it in flight (the last gradient all-reduce).
    dist.barrier()
    dist.destroy_process_group()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args(argv)
    try:
        import torch.multiprocessing as tmp
    except ImportError:
        sys.exit(
            "to_pytorch_ddp.py: this example runs PyTorch's DistributedDataParallel and "
            "needs PyTorch, which is not installed: pip install torch (minigrad itself "
            "never needs it)"
        )

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "from_minigrad.safetensors")
        out = os.path.join(d, "from_torch.safetensors")
        mg_loss = train_on_minigrad(path, args.steps)
        store = os.path.join(d, "rendezvous")  # created by the processes
        tmp.spawn(
            worker,
            args=(args.nproc, store, path, out, args.steps, mg_loss),
            nprocs=args.nproc,
            join=True,
        )

        import minigrad as mg

        model_mg = load_gpt("minigrad")
        model = model_mg.GPT(model_mg.GPTConfig())
        model.load_state_dict(mg.load(out))
        tokens = model.generate(mg.tensor([[1, 2, 3]]), 6, top_k=1)
        print(f"back in minigrad: greedy continuation of [1, 2, 3]: {tokens[0].tolist()}")
        return tokens[0].tolist()


if __name__ == "__main__":
    main()

"""The small GPT trained from a ``DataLoader`` (the other common style of training loop):
a ``Dataset`` of (context, next-characters) pairs, shuffled batches from a seeded
``Generator``, ``random_split`` into train and validation, a OneCycleLR schedule, and a
loss logged per epoch (and to TensorBoard when ``--logdir`` is given and the
``tensorboard`` package is installed).

    python examples/gpt/loader.py --epochs 2
"""

import argparse
import os
import sys

import numpy as np

if os.environ.get("GPT_BACKEND") == "torch":
    import torch
    from torch.utils.data import DataLoader, Dataset, random_split
else:  # the same program on minigrad: only these imports change
    import minigrad as torch
    from minigrad.utils.data import DataLoader, Dataset, random_split

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import GPT, GPTConfig
from train import char_data


class CharDataset(Dataset):
    """Sample i: the block_size characters from position i, and the same shifted by one."""

    def __init__(self, data, block_size):
        self.data = data.astype(np.int64)
        self.block_size = block_size

    def __len__(self):
        return len(self.data) - self.block_size

    def __getitem__(self, i):
        chunk = self.data[i : i + self.block_size + 1]
        return torch.from_numpy(chunk[:-1].copy()), torch.from_numpy(chunk[1:].copy())


def main(argv=None, model_init=None, shuffle=True):
    """Train for ``--epochs``; returns the list of per-batch training losses."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch_size", type=int, default=16)
    p.add_argument("--block_size", type=int, default=16)
    p.add_argument("--max_batches", type=int, default=8)
    p.add_argument("--logdir", default=None)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    torch.manual_seed(args.seed)
    train_data, _, chars = char_data()
    dataset = CharDataset(train_data, args.block_size)
    train_set, val_set = random_split(
        dataset, [0.9, 0.1], generator=torch.Generator().manual_seed(args.seed)
    )
    if not shuffle:  # the same samples in the same order on both libraries (for tests)
        train_set = dataset
    g = torch.Generator().manual_seed(args.seed)
    loader = DataLoader(
        train_set,
        batch_size=args.batch_size,
        shuffle=shuffle,
        generator=g,
        drop_last=True,
        num_workers=0,
    )
    model = GPT(GPTConfig(block_size=args.block_size, vocab_size=len(chars)))
    if model_init is not None:
        model.load_state_dict(model_init)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    steps = args.epochs * min(len(loader), args.max_batches)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, total_steps=steps)
    writer = None
    if args.logdir:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(args.logdir)
    losses = []
    for epoch in range(args.epochs):
        for b, (x, y) in enumerate(loader):
            if b == args.max_batches:
                break
            _, loss = model(x, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            if writer is not None:
                writer.add_scalar("loss/train", loss, len(losses))
        print(
            f"epoch {epoch}: loss {loss:.4f}, lr {scheduler.get_last_lr()[0]:.2e}, "
            f"{len(val_set)} validation samples"
        )
    if writer is not None:
        writer.close()
    return losses


if __name__ == "__main__":
    main()

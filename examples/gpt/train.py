"""Train the small GPT of model.py on a character corpus, in the style of nanoGPT's
train.py: ``get_batch`` with ``torch.randint``, gradient accumulation, a cosine learning
rate with warmup, gradient clipping, AMP scaffolding (a disabled GradScaler on a CPU),
evaluation and checkpoints that ``--init_from resume`` continues from.

    python examples/gpt/train.py --max_iters 20 --out_dir /tmp/gpt
    GPT_BACKEND=torch python examples/gpt/train.py --max_iters 20 --out_dir /tmp/gpt-torch

Written against PyTorch; only the imports differ between the two libraries.
"""

import argparse
import math
import os
import sys
import time
from contextlib import nullcontext

import numpy as np

if os.environ.get("GPT_BACKEND") == "torch":
    import torch
else:  # the same program on minigrad: only this import changes
    import minigrad as torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import GPT, GPTConfig

TEXT = (
    "the quick brown fox jumps over the lazy dog. a stitch in time saves nine. "
    "all that glitters is not gold. where there is a will there is a way. "
) * 8


def char_data(text=TEXT):
    """The corpus as int arrays (90% train, 10% val) and its vocabulary."""
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = np.array([stoi[c] for c in text], dtype=np.uint16)
    n = int(0.9 * len(data))
    return data[:n], data[n:], chars


def make_get_batch(train_data, val_data, block_size, batch_size, device, device_type):
    def get_batch(split, ix=None):
        data = train_data if split == "train" else val_data
        if ix is None:
            ix = torch.randint(len(data) - block_size, (batch_size,))
        x = torch.stack([torch.from_numpy(data[i : i + block_size].astype(np.int64)) for i in ix])
        y = torch.stack(
            [torch.from_numpy(data[i + 1 : i + 1 + block_size].astype(np.int64)) for i in ix]
        )
        if device_type == "cuda":  # pin arrays x, y to move them to the GPU asynchronously
            x = x.pin_memory().to(device, non_blocking=True)
            y = y.pin_memory().to(device, non_blocking=True)
        else:
            x, y = x.to(device), y.to(device)
        return x, y

    return get_batch


def get_lr(it, args):
    """Linear warmup for warmup_iters, then cosine decay to min_lr at lr_decay_iters."""
    if it < args.warmup_iters:
        return args.learning_rate * (it + 1) / (args.warmup_iters + 1)
    if it > args.lr_decay_iters:
        return args.min_lr
    decay_ratio = (it - args.warmup_iters) / (args.lr_decay_iters - args.warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return args.min_lr + coeff * (args.learning_rate - args.min_lr)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out_dir", default="out-gpt")
    p.add_argument("--init_from", default="scratch", choices=["scratch", "resume"])
    p.add_argument("--max_iters", type=int, default=20)
    p.add_argument("--eval_interval", type=int, default=10)
    p.add_argument("--eval_iters", type=int, default=2)
    p.add_argument("--batch_size", type=int, default=4)
    p.add_argument("--block_size", type=int, default=16)
    p.add_argument("--gradient_accumulation_steps", type=int, default=2)
    p.add_argument("--learning_rate", type=float, default=1e-3)
    p.add_argument("--min_lr", type=float, default=1e-4)
    p.add_argument("--warmup_iters", type=int, default=2)
    p.add_argument("--lr_decay_iters", type=int, default=20)
    p.add_argument("--weight_decay", type=float, default=0.1)
    p.add_argument("--grad_clip", type=float, default=1.0)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    p.add_argument("--compile", action="store_true")
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def main(argv=None, batches=None, model_init=None):
    """Train; returns the list of training losses (one per iteration).

    ``batches`` (a function of the iteration and micro-step returning index arrays) and
    ``model_init`` (a state_dict to start from) let a test run both libraries on the
    same data and weights; a normal run leaves them out.
    """
    args = parse_args(argv)
    ddp = int(os.environ.get("RANK", -1)) != -1  # a torchrun launch?
    if ddp:
        torch.distributed.init_process_group(backend="gloo")
        master_process = torch.distributed.get_rank() == 0
    else:
        master_process = True
    os.makedirs(args.out_dir, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    device_type = "cuda" if "cuda" in args.device else "cpu"
    ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[
        args.dtype
    ]
    ctx = (
        nullcontext()
        if device_type == "cpu"
        else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
    )

    train_data, val_data, chars = char_data()
    get_batch = make_get_batch(
        train_data, val_data, args.block_size, args.batch_size, args.device, device_type
    )
    config = GPTConfig(block_size=args.block_size, vocab_size=len(chars))
    iter_num, best_val_loss = 0, 1e9
    ckpt_path = os.path.join(args.out_dir, "ckpt.pt")
    if args.init_from == "resume":
        checkpoint = torch.load(ckpt_path, map_location=args.device)
        config = GPTConfig(**checkpoint["model_args"])
        model = GPT(config)
        model.load_state_dict(checkpoint["model"])
        iter_num, best_val_loss = checkpoint["iter_num"], checkpoint["best_val_loss"]
    else:
        model = GPT(config)
        if model_init is not None:
            model.load_state_dict(model_init)
    model.to(args.device)

    scaler = torch.amp.GradScaler("cuda", enabled=(args.dtype == "float16"))
    optimizer = model.configure_optimizers(
        args.weight_decay, args.learning_rate, (0.9, 0.95), device_type
    )
    if args.init_from == "resume":
        optimizer.load_state_dict(checkpoint["optimizer"])
        checkpoint = None  # free it
    if args.compile:
        model = torch.compile(model)  # minigrad: the model itself, unchanged
    if ddp:
        model = torch.nn.parallel.DistributedDataParallel(model)
    raw_model = model.module if ddp else model

    @torch.no_grad()
    def estimate_loss():
        out = {}
        model.eval()
        for split in ["train", "val"]:
            losses = torch.zeros(args.eval_iters)
            for k in range(args.eval_iters):
                X, Y = get_batch(split, ix=[k, k + 1])
                with ctx:
                    _, loss = model(X, Y)
                losses[k] = loss.item()
            out[split] = losses.mean()
        model.train()
        return out

    def next_batch(it, micro):
        return get_batch("train", None if batches is None else batches(it, micro))

    losses = []
    X, Y = next_batch(iter_num, 0)
    t0 = time.time()
    while iter_num < args.max_iters:
        lr = get_lr(iter_num, args)
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        if iter_num % args.eval_interval == 0 and iter_num > 0 and master_process:
            split_losses = estimate_loss()
            if not args.quiet:
                print(
                    f"step {iter_num}: train loss {split_losses['train']:.4f}, "
                    f"val loss {split_losses['val']:.4f}"
                )
            best_val_loss = min(best_val_loss, split_losses["val"].item())
            checkpoint = {
                "model": raw_model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "model_args": vars(config),
                "iter_num": iter_num,
                "best_val_loss": best_val_loss,
            }
            torch.save(checkpoint, ckpt_path)
        total = 0.0
        for micro_step in range(args.gradient_accumulation_steps):
            with ctx:
                logits, loss = model(X, Y)
                loss = loss / args.gradient_accumulation_steps
            total += loss.item()
            X, Y = next_batch(
                iter_num + (micro_step + 1) // args.gradient_accumulation_steps,
                (micro_step + 1) % args.gradient_accumulation_steps,
            )
            scaler.scale(loss).backward()
        if args.grad_clip != 0.0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        losses.append(total)
        t1 = time.time()
        if master_process and not args.quiet:
            print(f"iter {iter_num}: loss {total:.4f}, time {(t1 - t0) * 1000:.2f}ms")
        t0 = t1
        iter_num += 1
    if ddp:
        torch.distributed.destroy_process_group()
    return losses


if __name__ == "__main__":
    main()

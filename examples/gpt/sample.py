"""Sample from a checkpoint written by train.py (in the style of nanoGPT's sample.py):
top-k sampling with a temperature; ``--top_k 1`` is greedy decoding.

    python examples/gpt/sample.py --out_dir /tmp/gpt --start "the " --max_new_tokens 40
"""

import argparse
import os
import sys
from contextlib import nullcontext

if os.environ.get("GPT_BACKEND") == "torch":
    import torch
else:  # the same program on minigrad: only this import changes
    import minigrad as torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import GPT, GPTConfig
from train import char_data


def main(argv=None):
    """Print (and return) ``num_samples`` continuations of ``--start``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out_dir", default="out-gpt")
    p.add_argument("--start", default="the ")
    p.add_argument("--num_samples", type=int, default=2)
    p.add_argument("--max_new_tokens", type=int, default=40)
    p.add_argument("--temperature", type=float, default=0.8)
    p.add_argument("--top_k", type=int, default=5)
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--device", default="cpu")
    args = p.parse_args(argv)

    torch.manual_seed(args.seed)
    device_type = "cuda" if "cuda" in args.device else "cpu"
    ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type)
    checkpoint = torch.load(os.path.join(args.out_dir, "ckpt.pt"), map_location=args.device)
    model = GPT(GPTConfig(**checkpoint["model_args"]))
    model.load_state_dict(checkpoint["model"])
    model.eval()
    model.to(args.device)

    _, _, chars = char_data()
    stoi = {ch: i for i, ch in enumerate(chars)}

    def encode(s):
        return [stoi[c] for c in s]

    def decode(tokens):
        return "".join(chars[i] for i in tokens)

    x = torch.tensor(encode(args.start), dtype=torch.long, device=args.device)[None, ...]
    samples = []
    with torch.no_grad():
        with ctx:
            for _ in range(args.num_samples):
                y = model.generate(x, args.max_new_tokens, args.temperature, args.top_k)
                samples.append(decode(y[0].tolist()))
                print(samples[-1])
                print("---------------")
    return samples


if __name__ == "__main__":
    main()

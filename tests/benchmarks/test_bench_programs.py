"""benchmarks/programs.py runs the same program on both libraries, and
benchmarks/bench_programs.py counts the FLOPs its floor divides: checked on tiny
configurations (PyTorch's own FLOP counter is the independent count; it does not see
the fused attention of PyTorch's encoder layer, whose products are the GPT's)."""

import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_programs

        yield bench_programs
    finally:
        sys.path.remove(str(BENCHMARKS))


def tiny(bench, program: str) -> dict:
    cfg = bench._config(program, d_model=16, heads=2, layers=1, seq=8)
    cfg["vocab"] = 11
    if program == "generate":
        cfg.update(prompt=6, new=4)  # crops the context after 2 tokens
    else:
        cfg["batch_size"] = 3
    return cfg


@pytest.mark.parametrize("program", ["encoder", "gpt", "generate"])
def test_both_libraries_compute_the_same(bench, torch, program):
    cfg = tiny(bench, program)
    mine, theirs = bench.build("minigrad", cfg), bench.build("torch", cfg)
    for _ in range(2):  # the first steps: the optimizer's updates must agree too
        a, b = mine(), theirs()
        if program == "generate":
            assert a == b and len(a) == cfg["prompt"] + cfg["new"]
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5)


@pytest.mark.parametrize("program", ["gpt", "generate"])
def test_flops_match_pytorchs_flop_counter(bench, torch, program):
    from torch.utils.flop_counter import FlopCounterMode

    cfg = tiny(bench, program)
    step = bench.build("torch", cfg)
    with FlopCounterMode(display=False) as counter:
        step()
    assert bench.flops(cfg) == counter.get_total_flops()

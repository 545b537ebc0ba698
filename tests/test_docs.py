"""Every ```python block in docs/ and README.md runs, so the docs cannot rot.

Each block runs on its own, in a fresh namespace, with the usual imports already done
(``mg``, ``nn``, ``F``, ``np``). A block that is meant to be read but not run (for
example, one that needs a file the reader has) is fenced as ```text instead. A block
that imports PyTorch (to compare with it) skips cleanly when PyTorch is not installed,
so the test command passes on a fresh machine without it. Every embedded image exists.
"""

import importlib.util
import pathlib
import re

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
NEEDS_TORCH = re.compile(r"^\s*(import torch\b|from torch\b)", re.M)
HAS_TORCH = importlib.util.find_spec("torch") is not None


def _blocks():
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            code = match.group(1)
            marks = []
            if NEEDS_TORCH.search(code):
                marks.append(pytest.mark.skipif(not HAS_TORCH, reason="needs PyTorch"))
            yield pytest.param(code, id=f"{path.name}:{line}", marks=marks)


@pytest.mark.parametrize("code", list(_blocks()))
def test_doc_code_block_runs(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # blocks that write files write them here
    namespace = {"mg": mg, "nn": nn, "F": F, "np": np, "__name__": "__docs__"}
    exec(compile(code, "<doc block>", "exec"), namespace)


IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")


def _images():
    for path in DOCS:
        for match in IMAGE.finditer(path.read_text(encoding="utf-8")):
            yield pytest.param(
                path, match.group(1), match.group(2), id=f"{path.name}:{match.group(2)}"
            )


@pytest.mark.parametrize("page, alt, target", list(_images()))
def test_embedded_images_exist_and_say_what_they_show(page, alt, target):
    image = (page.parent / target).resolve()
    assert image.is_file(), f"{page.name} embeds {target}, which does not exist"
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{target} is not a PNG"
    assert len(alt.split()) >= 3, f"{page.name}: {target} needs alt text saying what it shows"

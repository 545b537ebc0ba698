"""Every ```python block in docs/ and README.md runs, so the docs cannot rot.

Each block runs on its own, in a fresh namespace, with the usual imports already done
(``mg``, ``nn``, ``F``, ``np``). A block that is meant to be read but not run (for
example, one that needs a file the reader has) is fenced as ```text instead.
"""

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


def _blocks():
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for i, match in enumerate(BLOCK.finditer(text)):
            line = text.count("\n", 0, match.start()) + 1
            yield pytest.param(match.group(1), id=f"{path.name}:{line}")
            del i


@pytest.mark.parametrize("code", list(_blocks()))
def test_doc_code_block_runs(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # blocks that write files write them here
    namespace = {"mg": mg, "nn": nn, "F": F, "np": np, "__name__": "__docs__"}
    exec(compile(code, "<doc block>", "exec"), namespace)

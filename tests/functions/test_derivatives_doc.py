"""docs/derivatives.md is generated from the elementwise table and must be current."""

import importlib.util
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "derivatives_doc.py"


def _tool():
    spec = importlib.util.spec_from_file_location("derivatives_doc", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_current():
    tool = _tool()
    assert tool.PAGE.read_text() == tool.render(), "run: python tools/derivatives_doc.py"


def test_the_page_shows_every_entry_and_its_formula():
    from minigrad.functions.elementwise import BINARY, UNARY

    text = _tool().render()
    for op in UNARY + BINARY:
        assert f"| `{op.name}`" in text
        for formula in op.grads or ():
            assert formula.replace("|", "\\|") in text

"""The scripts of ``tools/`` (page generators, the census) loaded as modules, so that
tests can check that the pages they write are current."""

import importlib.util
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[1] / "tools"


def load_tool(name: str):
    """``tools/<name>.py`` as a fresh module named ``name``."""
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

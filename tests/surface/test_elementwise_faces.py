"""An elementwise op's faces are fields on its row of the table
(``minigrad/functions/elementwise.py``), not lists of op names elsewhere: the code that
gives the table its faces (``minigrad/surface/``, ``minigrad/functions/``) keeps no
module-level collection of op names and asks no row for its name to decide what to do."""

import ast
from pathlib import Path

import numpy as np
import pytest

import minigrad
from minigrad.functions.elementwise import BINARY, TABLE, UNARY

PACKAGE = Path(minigrad.__file__).parent
TABLE_FILE = PACKAGE / "functions" / "elementwise.py"
FILES = [
    path
    for part in ("surface", "functions")
    for path in sorted((PACKAGE / part).rglob("*.py"))
    if path != TABLE_FILE
]
#: Every name the table answers to.
OP_NAMES = {name for op in UNARY + BINARY for name in (op.name, *op.aliases, *op.special)}


def _strings(node) -> list | None:
    """The strings of a literal collection (a set, list, tuple, dict's keys, a
    ``frozenset(...)`` of one, or ``"a b c".split()``); None for anything else."""
    if isinstance(node, ast.Call) and node.args and getattr(node.func, "id", "") == "frozenset":
        node = node.args[0]
    if isinstance(node, ast.Dict):
        node = ast.Tuple(elts=node.keys)
    if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            return [e.value for e in node.elts]
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "split"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return node.func.value.value.split()
    return None


def _name_lists(tree) -> list:
    """The module-level assignments whose value is a collection of op names only."""
    found = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(getattr(t, "id", "") == "__all__" for t in targets):
                continue  # a module's exports, not a decision about an op
            strings = _strings(node.value)
            if strings and set(strings) <= OP_NAMES:
                found.append(f"line {node.lineno}: {sorted(strings)}")
    return found


def _name_tests(tree) -> list:
    """Comparisons of a ``.name`` with op names (``op.name == "heaviside"``,
    ``op.name in {...}``)."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute)):
            continue
        if node.left.attr != "name":
            continue
        for right in node.comparators:
            strings = [right.value] if isinstance(right, ast.Constant) else _strings(right)
            if strings and set(strings) <= OP_NAMES:
                found.append(f"line {node.lineno}: {sorted(strings)}")
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_list_of_op_names_outside_the_table(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = _name_lists(tree) + _name_tests(tree)
    assert not found, f"{path.name}: make these a field of the table's rows: {found}"


def test_the_checks_see_the_lists_they_forbid():
    source = (
        '_BOOL_AS_INT = {"square", "signbit"}\n'
        '_BOTH = frozenset(("floor_divide",))\n'
        'CMP = "eq ne lt".split()\n'
        '__all__ = ["sin", "cos"]\n'
        'MIXED = ("sin", "sum")\n'
        'def f(op):\n    return op.name == "heaviside" or op.name in ("neg", "positive")\n'
    )
    tree = ast.parse(source)
    assert [s.split(":")[0] for s in _name_lists(tree)] == ["line 1", "line 2", "line 3"]
    assert len(_name_tests(tree)) == 2


FIELD_VALUES = {
    "numbers": {"either", "second", "both", "nowhere"},
    "bool_as": {"", "int64", "int64 to bool"},
}


@pytest.mark.parametrize("field", FIELD_VALUES)
def test_each_row_says_one_of_its_fields_values(field):
    bad = {op.name: getattr(op, field) for op in TABLE.values()}
    bad = {name: value for name, value in bad.items() if value not in FIELD_VALUES[field]}
    assert not bad


def test_arity_is_the_table_a_row_sits_in():
    assert {op.arity for op in UNARY} == {1}
    assert {op.arity for op in BINARY} == {2}


@pytest.mark.parametrize("values", [[True, False, True], np.array([True, False, True])])
def test_heaviside_of_bools_is_bool_for_any_bool_values(values):
    # bool_as="int64 to bool": computed as int64, cast back when both inputs are bool;
    # a list or array of bools is read as a bool tensor, as everywhere in minigrad
    x = minigrad.tensor([True, False, False])
    out = minigrad.heaviside(x, values)
    assert out.dtype == minigrad.bool
    assert (
        out.tolist()
        == minigrad.heaviside(x, minigrad.tensor(values)).tolist()
        == [True, False, True]
    )

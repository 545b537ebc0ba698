"""docs/derivatives.md is generated from the elementwise table and must be current."""

from tests.project_tools import load_tool


def _tool():
    return load_tool("derivatives_doc")


def test_the_page_is_current():
    tool = _tool()
    assert tool.PAGE.read_text() == tool.render(), "run: python tools/derivatives_doc.py"


def test_the_page_shows_every_entry_and_its_formula():
    from minigrad.functions.elementwise import BINARY, UNARY, derivative_texts

    text = _tool().render()
    for op in UNARY + BINARY:
        assert f"| `{op.name}`" in text
        formulas = derivative_texts().get(op.name, ())
        assert len(formulas) == len(op.grads or ())
        for formula in formulas:
            assert formula.replace("|", "\\|") in text


def test_the_formula_texts_are_the_derivatives_the_code_runs():
    """Each text, evaluated with NumPy as its math, gives what the entry's derivative
    gives: the page cannot drift from the code."""
    import numpy as np

    from minigrad.functions import elementwise as E
    from minigrad.functions.pointwise import ARRAY_MATH

    rng = np.random.default_rng(0)
    values = {name: rng.uniform(0.2, 0.8, 5) for name in ("g", "x", "a", "b", "y")}
    names = {**vars(ARRAY_MATH), "LN2": E.LN2, "LN10": E.LN10, "SQRT_PI": E.SQRT_PI, "pi": E.pi}
    checked = 0
    for op in E.UNARY + E.BINARY:
        for fn, formula in zip(op.grads or (), E.derivative_texts().get(op.name, ())):
            if "not_implemented" in formula:
                continue
            params = dict(op.params)
            arguments = fn.__code__.co_varnames[: fn.__code__.co_argcount]
            env = {**values, **params, "m": ARRAY_MATH}
            expected = fn(*[env[name] for name in arguments])
            got = eval(formula, {**names, **params}, values)  # the page's text, as code
            np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True)
            checked += 1
    assert checked > 60

"""PyTorch's op database (``op_db``) as a test generator for minigrad's operations.

- every OpInfo is placed in ``catalog.py`` (claimed, refused, internal or missing), and
  what the catalogue says minigrad refuses, minigrad refuses;
- every claimed op passes its samples (``conftest.QUICK`` per dtype here, every one in
  the slow test): values, dtype and shape, and in float64 the gradient of every input,
  against PyTorch; and raises on every one of its ``error_inputs``;
- where the OpInfo does not support one of the contract's dtypes (float32, float64,
  int64, bool) and PyTorch refuses a sample in it, minigrad refuses it too, with
  PyTorch's exception class (``catalog.DTYPE_DIFFERENCES`` lists the exceptions).

A sample that minigrad cannot express (a complex dtype, ``memory_format=``) or a feature
it refuses with ``UnsupportedError`` is not a failure; a crash, a wrong value or
gradient, or minigrad's own error on an input PyTorch accepts is.
"""

import pytest

from tests.opdb import catalog, runner

FAILURES = (runner.VALUE, runner.META, runner.GRAD, runner.CRASH, runner.ERROR)
ERROR_FAILURES = (runner.ACCEPTED, runner.CRASH)


def _report(rows, failures) -> str:
    lines = [
        f"{r['key']} [{r['dtype']} #{r['index']}] {r['outcome']}: {r['detail']}"
        for r in rows
        if r["outcome"] in failures
    ]
    return "\n".join(lines[:40]) + (f"\n... {len(lines) - 40} more" if len(lines) > 40 else "")


def check_outcomes(sweep, key, prefix=""):
    """Assert that no sample and no error input of ``key`` in ``sweep`` failed (the
    rows under ``"samples"`` and ``"errors"``; with ``prefix="module_"``, module_db's);
    returns the key's samples."""
    samples = [r for r in sweep[prefix + "samples"] if r["key"] == key]
    errors = [r for r in sweep[prefix + "errors"] if r["key"] == key]
    bad = [r for r in samples if r["outcome"] in FAILURES]
    bad_errors = [r for r in errors if r["outcome"] in ERROR_FAILURES]
    assert not bad and not bad_errors, (
        _report(samples, FAILURES) + "\n" + _report(errors, ERROR_FAILURES)
    )
    return samples


def test_every_opinfo_is_placed_once_and_every_listed_key_exists(quick_sweep):
    keys = {op["key"] for op in quick_sweep["ops"]}  # the sweep raised if one was unplaced
    listed = set(catalog.CLAIMED) | set(catalog.INTERNAL) | set(catalog.MISSING)
    assert listed <= keys, f"catalog.py lists keys op_db no longer has: {sorted(listed - keys)}"


def test_what_the_catalog_says_minigrad_refuses_it_refuses(quick_sweep):
    refused = [op for op in quick_sweep["ops"] if op["status"] == "refused"]
    assert refused
    wrong = [op["key"] for op in refused if not catalog.is_refused_by_minigrad(op["name"])]
    assert not wrong, f"unsupported.json lists them, but minigrad does not refuse them: {wrong}"


@pytest.mark.parametrize("key", catalog.CLAIMED)
def test_claimed_op_matches_pytorch_on_its_samples(sweep, key):
    check_outcomes(sweep, key)


@pytest.mark.parametrize("key", catalog.CLAIMED)
def test_claimed_op_refuses_the_dtypes_pytorch_refuses(sweep, key):
    rows = [r for r in sweep["dtype_errors"] if r["key"] == key]
    bad = {
        (r["key"], r["dtype"])
        for r in rows
        if r["outcome"] in ERROR_FAILURES + (runner.OTHER_CLASS,)
    }
    known = {k for k in catalog.DTYPE_DIFFERENCES if k[0] == key}
    assert bad == known, (
        f"new differences: {sorted(bad - known)}; now agreeing: {sorted(known - bad)}\n"
        + _report(rows, ERROR_FAILURES + (runner.OTHER_CLASS,))
    )

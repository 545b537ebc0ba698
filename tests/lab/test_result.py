"""LabResult's verdict comes from its checks."""

from minigrad.lab import LabResult


def _result(*passed):
    r = LabResult("x", "claim")
    for i, p in enumerate(passed):
        assert r.check(f"part {i}", p, "numbers") is bool(p)
    return r


def test_verdicts():
    assert _result(True, True).verdict == "supported"
    assert _result(True, False).verdict == "partly supported"
    assert _result(False, False).verdict == "not supported"
    assert _result().verdict == "not supported"  # no checks: nothing supports the claim


def test_check_records_numpy_bools_as_bools():
    import numpy as np

    r = _result(np.bool_(True))
    assert r.checks[0].passed is True


def test_a_part_not_checked_keeps_the_verdict_from_reading_supported():
    r = _result(True, True)
    r.not_checked("part 2", "not measured at this size")
    assert r.checks[-1].passed is None and not r.checks[-1].checked
    assert r.verdict == "incomplete"
    assert r.summary() == "INCOMPLETE (2 of 2 checks pass; 1 part of the claim not checked)"
    r = _result(True, False)
    r.not_checked("part 2", "not measured")
    assert r.verdict == "partly supported"  # a checked part fails: the claim does not hold
    r = LabResult("x", "claim")
    r.not_checked("part 0", "not measured")
    assert r.verdict == "not supported"  # nothing checked supports it
    assert _result(True).summary() == "SUPPORTED (1 of 1 checks pass)"

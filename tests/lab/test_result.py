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

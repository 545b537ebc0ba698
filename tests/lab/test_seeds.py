"""Each experiment's verdict, check by check, is the same at seeds 0 to 3 (quick mode).

The full sweep runs every experiment four times (a few minutes), so it is marked slow:
``python -m pytest tests/lab/test_seeds.py -m slow``. The default run covers the same
behaviour on the experiments that take about a second, and every experiment's test
module checks its seed-0 verdict.
"""

import pytest

from minigrad.lab import EXPERIMENTS, run_experiment

#: what each experiment's quick run concludes, at every seed
VERDICTS = {
    "skip-connection": "supported",
    "residual-growth": "supported",
    "gradient-flow": "partly supported",
    "warmup": "incomplete",  # quick leaves out two parts of the claim
    "training-stats": "partly supported",
    "norm-lr-sweep": "supported",
    "invariance": "supported",
    "batchnorm-pitfalls": "supported",
    "norm-pitfalls": "supported",
    "saturation": "supported",
    "norm-cost": "supported",
}
FAST = ("invariance", "norm-pitfalls")
#: checks measured to change with the seed, left out of the comparison (none: a check
#: whose outcome depends on the seed is redesigned, see norm_lr_sweep and warmup)
VARIES: dict[str, set] = {}


def _outcomes(name, seed, tmp_path):
    result = run_experiment(name, out=tmp_path / f"{name}-{seed}", seed=seed, quick=True)
    varies = VARIES.get(name, set())
    checks = [(c.statement, c.passed) for c in result.checks if c.statement not in varies]
    return (result.verdict if not varies else None), checks


def test_every_experiment_has_an_expected_verdict():
    assert set(VERDICTS) == set(EXPERIMENTS)


@pytest.mark.parametrize("name", FAST)
def test_fast_experiments_reach_the_same_checks_at_seeds_0_to_3(name, tmp_path):
    first = _outcomes(name, 0, tmp_path)
    assert first[0] == VERDICTS[name], first
    for seed in (1, 2, 3):
        assert _outcomes(name, seed, tmp_path) == first, seed


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in VERDICTS if n not in FAST and n != "norm-cost"])
def test_every_experiment_reaches_the_same_checks_at_seeds_0_to_3(name, tmp_path):
    first = _outcomes(name, 0, tmp_path)
    assert name in VARIES or first[0] == VERDICTS[name], first
    for seed in (1, 2, 3):
        assert _outcomes(name, seed, tmp_path) == first, seed

"""The registry: names, lookup, running by name."""

import pytest

from minigrad.lab import EXPERIMENTS, UnknownExperiment, get_experiment, run_experiment

NAMES = ["skip-connection", "residual-growth", "gradient-flow", "warmup", "training-stats",
         "norm-lr-sweep", "invariance", "batchnorm-pitfalls", "norm-pitfalls", "saturation",
         "norm-cost"]  # fmt: skip


def test_the_eleven_experiments_in_learning_path_order():
    assert list(EXPERIMENTS) == NAMES
    for name, exp in EXPERIMENTS.items():
        assert exp.name == name
        assert exp.title and exp.claim.endswith((".", ")"))
        assert callable(exp.run)


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(UnknownExperiment, match="unknown experiment 'nope'; choose one of: "
                       "skip-connection, residual-growth"):  # fmt: skip
        get_experiment("nope")
    assert issubclass(UnknownExperiment, ValueError)


def test_run_experiment_times_the_run_and_writes_into_out(tmp_path):
    result = run_experiment("invariance", out=tmp_path / "inv", quick=True)
    assert result.name == "invariance"
    assert result.seconds > 0
    assert {f.name for f in result.files} == {"invariance.csv", "invariance.png"}
    assert all(f.parent == tmp_path / "inv" and f.stat().st_size > 0 for f in result.files)


def test_default_output_folder_is_runs_lab_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_experiment("invariance", quick=True)
    assert (tmp_path / "runs" / "lab" / "invariance" / "invariance.csv").is_file()
    assert all(f.parent.name == "invariance" for f in result.files)


def test_experiments_leave_minigrad_random_state_alone(tmp_path):
    import minigrad as mg

    mg.manual_seed(123)
    before = mg.get_rng_state()
    run_experiment("residual-growth", out=tmp_path, quick=True)
    assert mg.get_rng_state() == before


def test_building_a_profile_leaves_minigrad_random_state_alone():
    import minigrad as mg
    from minigrad.lab.gradient_flow import gradient_profile

    mg.manual_seed(7)
    before = mg.get_rng_state()
    first = gradient_profile("post-norm", 2, 16, 2, 4, 8, seed=0)[0]
    assert mg.get_rng_state() == before
    assert (gradient_profile("post-norm", 2, 16, 2, 4, 8, seed=0)[0] == first).all()


def test_same_seed_same_numbers(tmp_path):
    a = run_experiment("saturation", out=tmp_path / "a", seed=3, quick=True)
    b = run_experiment("saturation", out=tmp_path / "b", seed=3, quick=True)
    assert (a.data["sweep"]["gelu"] == b.data["sweep"]["gelu"]).all()
    assert a.headline == b.headline


def test_run_experiment_runs_on_one_thread_and_gives_the_count_back(monkeypatch):
    import minigrad as mg
    from minigrad.lab import registry
    from minigrad.lab.result import LabResult

    seen = []

    def run(out=None, seed=0, quick=False, progress=None):
        seen.append(mg.get_num_threads())
        return LabResult("probe", "a claim")

    probe = registry.Experiment("probe", "title", "a claim", run)
    monkeypatch.setitem(registry.EXPERIMENTS, "probe", probe)
    saved = mg.get_num_threads()
    try:
        mg.set_num_threads(2)
        run_experiment("probe")
        assert seen == [1]
        assert mg.get_num_threads() == 2
    finally:
        mg.set_num_threads(saved)


def test_the_callers_thread_count_does_not_change_the_numbers(tmp_path):
    import minigrad as mg

    saved = mg.get_num_threads()
    try:
        mg.set_num_threads(2)
        two = run_experiment("residual-growth", out=tmp_path / "two", seed=1, quick=True)
        mg.set_num_threads(1)
        one = run_experiment("residual-growth", out=tmp_path / "one", seed=1, quick=True)
    finally:
        mg.set_num_threads(saved)
    assert one.headline == two.headline


def test_each_finding_starts_with_the_verdict_docs_lab_md_records():
    import pathlib
    import re

    table = (pathlib.Path(__file__).parents[2] / "docs" / "lab.md").read_text()
    for name, exp in EXPERIMENTS.items():
        row = re.search(rf"^\| \[{name}\]\(#{name}\) \| ([a-z ]+) \((\d+) of (\d+)\)", table, re.M)
        assert row, name
        verdict, passed, total = row.groups()
        assert exp.finding.startswith(f"{verdict} ({passed} of {total}"), (name, exp.finding)

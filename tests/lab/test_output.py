"""The output folder: CSV writing, and running without matplotlib."""

import csv
import sys

import pytest

from minigrad.lab import run_experiment
from minigrad.lab.output import PLOT_HINT, write_csv


def test_write_csv_formats_numbers_and_blanks(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["a", "b", "c"], [[1, 0.1234567891, None],
                                                           ["x", float("nan"), 2.5]])  # fmt: skip
    rows = list(csv.reader(path.open()))
    assert rows == [["a", "b", "c"], ["1", "0.123457", ""], ["x", "nan", "2.5"]]


def test_write_csv_rejects_ragged_rows(tmp_path):
    with pytest.raises(ValueError, match="a row has 2 cells, expected 3"):
        write_csv(tmp_path / "t.csv", ["a", "b", "c"], [[1, 2]])


def test_without_matplotlib_the_csv_is_written_and_the_result_says_how_to_plot(
    tmp_path, monkeypatch
):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import fails
    result = run_experiment("invariance", out=tmp_path, quick=True)
    assert [f.name for f in result.files] == ["invariance.csv"]
    assert PLOT_HINT in result.notes
    assert not (tmp_path / "invariance.png").exists()
    assert result.verdict == "supported"

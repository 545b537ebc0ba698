"""What a user who installs minigrad the ordinary way gets: a wheel built from the
checkout holds every file of the package (the data files it reads at run time, such as
unsupported.json, and the typing marker py.typed), the license and the metadata; the
installed package, wherever it is, finds its data files and says its version."""

from __future__ import annotations

import email
import importlib.metadata
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

import minigrad as mg

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCE = ROOT / "minigrad"


def _package_files(folder: pathlib.Path) -> set[str]:
    """The package's own files (``minigrad/...``), without caches Python and Numba write."""
    return {
        str(p.relative_to(folder.parent).as_posix())
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".nbi", ".nbc")
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> pathlib.Path:
    """A wheel built (as ``pip install .`` builds one) from a copy of the checkout's
    pyproject.toml, README.md, LICENSE and minigrad/."""
    if not (SOURCE.is_dir() and (ROOT / "pyproject.toml").is_file()):
        pytest.skip("needs the source checkout (these tests run from an installed wheel)")
    pytest.importorskip("setuptools", minversion="77")  # the dev extra installs it
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(SOURCE, src / "minigrad", ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", "-w", str(dist), str(src)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (path,) = dist.glob("minigrad-*.whl")
    return path


def test_the_wheel_holds_every_file_of_the_package(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    expected = _package_files(SOURCE)
    assert {"minigrad/unsupported.json", "minigrad/py.typed"} <= expected
    assert sorted(expected - names) == []
    assert not [n for n in names if "__pycache__" in n or n.endswith((".nbi", ".nbc"))]


def test_the_wheel_carries_the_license_and_the_metadata(wheel):
    with zipfile.ZipFile(wheel) as z:
        (info,) = {n.split("/")[0] for n in z.namelist() if ".dist-info/" in n}
        metadata = email.message_from_bytes(z.read(f"{info}/METADATA"))
        license_text = z.read(f"{info}/licenses/LICENSE").decode()
        entry_points = z.read(f"{info}/entry_points.txt").decode()
    assert license_text == (ROOT / "LICENSE").read_text()
    assert "MIT License" in license_text and "the minigrad authors" in license_text
    assert metadata["Version"] == mg.__version__
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["Requires-Python"] == ">=3.10"
    classifiers = metadata.get_all("Classifier")
    for minor in (10, 11, 12, 13):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    assert "Typing :: Typed" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # PEP 639: the expression
    requires = metadata.get_all("Requires-Dist")
    assert 'numpy>=1.26.0; python_version == "3.12"' in requires
    assert 'numba>=0.61.0; python_version >= "3.13"' in requires
    assert any(r.startswith("safetensors>=") for r in requires)
    assert "minigrad = minigrad.cli:main" in entry_points


def test_the_installed_package_finds_its_data_files_and_says_its_version():
    """Wherever minigrad is installed (the checkout, or site-packages from a wheel)."""
    package = pathlib.Path(mg.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "unsupported.json").is_file()
    with pytest.raises(mg.UnsupportedError):  # its message comes from unsupported.json
        mg.zeros(2).to_sparse()
    assert importlib.metadata.version("minigrad") == mg.__version__

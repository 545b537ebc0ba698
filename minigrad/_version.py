"""minigrad's version, in one place: the package metadata (pyproject.toml reads it),
``mg.__version__``, ``mg.version.__version__`` and ``minigrad --version`` all give it."""

__version__ = "0.2.0"

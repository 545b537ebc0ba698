"""PyTorch's own op and module databases (``op_db``, ``module_db``) run against minigrad.

- ``catalog.py``: which OpInfo is which minigrad call (the reviewed table), and which
  ones minigrad refuses, with the category from ``minigrad/unsupported.json``.
- ``runner.py``: turns a sample into minigrad's arguments, runs both libraries and sorts
  the result into an outcome (pass, wrong value, wrong gradient, crash, ...).
- ``modules.py``: the same for ``module_db``'s ModuleInfos.
- ``test_op_db.py`` / ``test_module_db.py``: the tests (they skip without torch).

``tools/opdb_report.py`` runs every sample and writes ``docs/opdb.md``.
"""

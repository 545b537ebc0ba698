"""Run op_db and module_db against minigrad, in a process of its own, and write JSON.

    python -m tests.opdb.sweep OUT.json [--quick N] [--ops KEY ...] [--modules NAME ...]

``--quick N`` checks N samples of each op per dtype (see ``runner.pick``: the first and
N - 1 drawn with a fixed seed), and N module inputs per dtype and mode; without it, every
sample. Every error input is checked either way (there are few). ``--ops`` /
``--modules`` restrict the run (``--ops`` alone runs no module, and the reverse).

The tests (``test_op_db.py``, ``test_module_db.py``) and ``tools/opdb_report.py`` run this
module as a subprocess: importing PyTorch's test databases changes process-wide state
(it loads a Hypothesis profile and freezes ``torch.backends`` flags), which must not
leak into the rest of the test session.

The JSON holds ``ops`` (the catalogue: key, namespace, status, category), ``samples``,
``errors`` and ``dtype_errors`` (one row per sample / error input / sample in a dtype the
OpInfo does not support: key, dtype, index, outcome, detail, category), ``modules`` and
``module_samples`` / ``module_errors`` likewise.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings


def load_databases():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal.common_methods_invocations import op_db
        from torch.testing._internal.common_modules import module_db
    return op_db, module_db


def _row(key, namespace, dtype, index, result):
    return {
        "key": key,
        "namespace": namespace,
        "dtype": dtype,
        "index": index,
        "outcome": result.outcome,
        "detail": result.detail,
        "category": result.category,
    }


def sweep(quick: int | None, ops: list[str] | None, module_names: list[str] | None) -> dict:
    import torch

    from tests.opdb import catalog, modules, runner

    torch.set_num_threads(1)
    op_db, module_db = load_databases()
    out: dict = {
        "quick": quick,
        "torch": torch.__version__,
        "ops": [],
        "samples": [],
        "errors": [],
        "dtype_errors": [],
        "modules": [],
        "module_samples": [],
        "module_errors": [],
    }
    run_ops = ops is not None or module_names is None
    for entry in catalog.catalog(op_db):
        out["ops"].append(
            {
                "key": entry.key,
                "name": entry.op.name,
                "namespace": entry.namespace,
                "status": entry.status,
                "category": entry.category,
            }
        )
        if entry.status != "claimed" or not run_ops or (ops and entry.key not in ops):
            continue
        for dtype, i, result in runner.run_entry(torch, entry, keep=quick):
            out["samples"].append(_row(entry.key, entry.namespace, dtype, i, result))
        for i, result in enumerate(runner.run_entry_errors(torch, entry)):
            out["errors"].append(_row(entry.key, entry.namespace, "error input", i, result))
        for dtype, i, result in runner.run_entry_dtype_errors(torch, entry, keep=quick):
            out["dtype_errors"].append(_row(entry.key, entry.namespace, dtype, i, result))
    run_modules = module_names is not None or ops is None
    for info in module_db:
        state, category = modules.status(info)
        out["modules"].append(
            {
                "key": info.name,
                "name": info.name,
                "namespace": "nn",
                "status": state,
                "category": category,
            }
        )
        if (
            state != "claimed"
            or not run_modules
            or (module_names and info.name not in module_names)
        ):
            continue
        for label, i, result in modules.run_module(torch, info, keep=quick):
            out["module_samples"].append(_row(info.name, "nn", label, i, result))
        for i, result in enumerate(modules.run_module_errors(torch, info)):
            out["module_errors"].append(_row(info.name, "nn", "error input", i, result))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--quick", type=int, default=None)
    parser.add_argument("--ops", nargs="*", default=None)
    parser.add_argument("--modules", nargs="*", default=None)
    args = parser.parse_args(argv)
    result = sweep(args.quick, args.ops, args.modules)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())

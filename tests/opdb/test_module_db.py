"""PyTorch's module database (``module_db``) as a test generator for minigrad's nn.

Every ModuleInfo is claimed (``modules.CLAIMED``: ``mg.nn`` has the class) or refused by
``minigrad/unsupported.json``; every claimed module, built from each module input's
constructor arguments with PyTorch's state_dict loaded, gives PyTorch's outputs, state
after the forward and (float64) gradients of its inputs and parameters, and raises on
its error inputs. See ``modules.py``.
"""

import pytest

from tests.opdb import modules
from tests.opdb.test_op_db import check_outcomes


def test_every_moduleinfo_is_claimed_or_refused(quick_sweep):
    status = {m["key"]: m for m in quick_sweep["modules"]}
    claimed = {k for k, m in status.items() if m["status"] == "claimed"}
    assert claimed == set(modules.CLAIMED)
    others = {k: m for k, m in status.items() if k not in claimed}
    assert all(m["status"] == "refused" and m["category"] for m in others.values()), others


@pytest.mark.parametrize("key", modules.CLAIMED)
def test_claimed_module_matches_pytorch_on_its_inputs(sweep, key):
    samples = check_outcomes(sweep, key, prefix="module_")
    assert samples, f"no module input of {key} ran"

"""``python -m minigrad ...``: the command line (see ``minigrad/cli``)."""

import sys

from minigrad.cli import main

sys.exit(main())

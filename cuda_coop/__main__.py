"""``python -m cuda.coop``: see :mod:`cuda.coop._cli`."""

import sys

from ._cli import main

sys.exit(main())

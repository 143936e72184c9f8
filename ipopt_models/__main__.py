"""``python -m ipopt_models`` — see :mod:`ipopt_models.cli`."""

import sys

from .cli import main

sys.exit(main())

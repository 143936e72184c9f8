"""``python -m problems``."""

import sys

from .cli import main

sys.exit(main())

"""Make the top-level ``ipopt_models`` package importable when pytest runs from any directory.

(The editable install maps only ``problems``; a re-install with the ``ipopt`` extra maps both.)
"""

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

"""Deprecated: :mod:`problems.lp.chain` is now :mod:`problems.solvers.chain` (for one release).

Importing it warns once (:class:`DeprecationWarning`) and gives the new module itself, so that every name,
private ones included, is the same object as in :mod:`problems.solvers.chain`. (A package, not a module file:
so that version control sees the old file renamed, and changes made to it elsewhere follow it to its new
place.)
"""

import sys
import warnings

from ...solvers.chain import *  # noqa: F403 - the public names, for type checkers
from ...solvers.chain import __all__  # noqa: F401

warnings.warn(
    "problems.lp.chain is deprecated and will be removed in the next release; "
    "import from problems.solvers.chain",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = sys.modules["problems.solvers.chain"]

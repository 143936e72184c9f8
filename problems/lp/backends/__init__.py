"""Deprecated: :mod:`problems.lp.backends` is now :mod:`problems.solvers.backends` (for one release).

Importing it warns once (:class:`DeprecationWarning`) and gives the new module itself, so that every name,
private ones included, is the same object as in :mod:`problems.solvers.backends`. (A package, not a module
file: so that version control sees the old file renamed, and changes made to it elsewhere follow it to its new
place.)
"""

import sys
import warnings

from ...solvers.backends import *  # noqa: F403 - the public names, for type checkers
from ...solvers.backends import __all__  # noqa: F401

warnings.warn(
    "problems.lp.backends is deprecated and will be removed in the next release; "
    "import from problems.solvers.backends",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = sys.modules["problems.solvers.backends"]

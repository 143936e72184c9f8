"""Deprecated: :mod:`problems.solver_stats` moved to :mod:`problems.solvers.stats`; this path keeps working for one release.

Importing it warns once (:class:`DeprecationWarning`) and gives the new module itself, so that every name,
private ones included, is the same object as in :mod:`problems.solvers.stats`.
"""

import sys
import warnings

from ..solvers.stats import *  # noqa: F403 - the public names, for type checkers
from ..solvers.stats import __all__  # noqa: F401

warnings.warn(
    "problems.solver_stats is deprecated and will be removed in the next release; import from problems.solvers.stats",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = sys.modules["problems.solvers.stats"]

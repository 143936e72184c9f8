"""Deprecated: :mod:`problems.lp.chain` moved to :mod:`problems.solvers.chain`; this path keeps working for one release.

Importing it warns once (:class:`DeprecationWarning`) and gives the new module itself, so that every name,
private ones included, is the same object as in :mod:`problems.solvers.chain`.
"""

import sys
import warnings

from ...solvers.chain import *  # noqa: F403 - the public names, for type checkers
from ...solvers.chain import __all__  # noqa: F401

warnings.warn(
    "problems.lp.chain is deprecated and will be removed in the next release; import from problems.solvers.chain",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = sys.modules["problems.solvers.chain"]

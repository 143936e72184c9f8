"""The solvers: the back ends of the ratio LP, the chain that tries and certifies them, the conic fallback.

* :mod:`problems.solvers.backends` — Clarabel, HiGHS, SCS, CVXPY and the toolkit's interior-point methods,
  behind one interface (a back end never decides whether its answer is right);
* :mod:`problems.solvers.chain` — the LP chain: try, certify (:mod:`problems.lp.bounds`), fall back, record;
* :mod:`problems.solvers.conic` — the conic programs (PD-MIP, capacities, design, the model's conic path): one
  CVXPY solver after another;
* :mod:`problems.solvers.settings` — every tolerance, solver order and time limit of the above, defined once;
* :mod:`problems.solvers.attempts` — :class:`Attempt`, one solver's try, recorded alike by the chain and the
  conic fallback;
* :mod:`problems.solvers.stats` — :class:`SolverStats`, what the solver layer did;
* :mod:`problems.solvers.kkt_memory` — the predicted memory of a general back end's sparse factorisation and of
  HiGHS (the chain skips a back end that would exceed the memory budget).

The LP core (:mod:`problems.lp`: specification, bounds, status) and the chain with its back ends import
without CVXPY; only :mod:`problems.solvers.conic` and the ``CVXPY`` back end load it, when used.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# Imported on first use (PEP 562): ``problems.solvers.settings`` does not pull in the back ends.
__getattr__, __dir__ = lazy_exports(__name__, globals(), modules=("settings",))

if TYPE_CHECKING:  # the lazily loaded names: for type checkers, and the table lazy_exports reads
    from ..lp.solution import LPSolution as LPSolution  # the LP core's type (problems.lp.LPSolution)
    from . import settings
    from .attempts import Attempt
    from .backends import (
        ALIASES,
        BACKENDS,
        Backend,
        BackendError,
        RawSolution,
        backend,
        check_solver,
        default_order,
        resolve_order,
    )
    from .chain import certificate_of, solve, tightened_level
    from .conic import available_solvers, solve_with_fallback
    from .stats import SolverStats

__all__ = [
    "settings",
    "Attempt",
    "ALIASES",
    "BACKENDS",
    "Backend",
    "BackendError",
    "RawSolution",
    "backend",
    "check_solver",
    "default_order",
    "resolve_order",
    "certificate_of",
    "solve",
    "tightened_level",
    "available_solvers",
    "solve_with_fallback",
    "SolverStats",
]

"""The one LP core of the toolkit: a ratio-LP specification, its back ends, rigorous bounds and the chain.

* :mod:`problems.lp.spec` — :class:`RatioLPSpec` and its two builders (dense and orbit-reduced);
* :mod:`problems.lp.backends` — Clarabel, HiGHS, SCS, CVXPY and the toolkit's interior-point methods;
* :mod:`problems.lp.bounds` — the exactly feasible repair and the safe dual bound;
* :mod:`problems.lp.chain` — try, certify, fall back, record;
* :mod:`problems.lp.status` — the status enum and the exit codes.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# Imported on first use (PEP 562): ``problems.lp.status`` (the exit codes) must not pull in the back ends.
__getattr__, __dir__ = lazy_exports(__name__, globals())

if TYPE_CHECKING:  # the lazily loaded names: for type checkers, and the table lazy_exports reads
    from .backends import BACKENDS, BackendError, RawSolution, backend, resolve_order
    from .bounds import (
        ABSOLUTE_GAP,
        RELATIVE_GAP,
        Bounds,
        certified,
        certify,
        lower_bound,
        repair,
        upper_bound,
        verify,
    )
    from .chain import Attempt, LPSolution, solve
    from .spec import RatioLPSpec, dense_spec, reduced_spec
    from .status import EXIT_CODES, Status


__all__ = [
    "BACKENDS",
    "BackendError",
    "RawSolution",
    "backend",
    "resolve_order",
    "RELATIVE_GAP",
    "ABSOLUTE_GAP",
    "Bounds",
    "certified",
    "certify",
    "lower_bound",
    "repair",
    "upper_bound",
    "verify",
    "Attempt",
    "LPSolution",
    "solve",
    "RatioLPSpec",
    "dense_spec",
    "reduced_spec",
    "EXIT_CODES",
    "Status",
]

"""The one LP core of the toolkit: a ratio-LP specification, its back ends, rigorous bounds and the chain.

* :mod:`problems.lp.spec` — :class:`RatioLPSpec` and its two builders (dense and orbit-reduced);
* :mod:`problems.lp.backends` — Clarabel, HiGHS, SCS, CVXPY and the toolkit's interior-point methods;
* :mod:`problems.lp.bounds` — the exactly feasible repair and the safe dual bound;
* :mod:`problems.lp.chain` — try, certify, fall back, record;
* :mod:`problems.lp.solution` — :class:`LPSolution`, the one solution type of every ratio LP;
* :mod:`problems.lp.status` — the one status rule (:func:`decide_status`), the status enum and the exit codes.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# Imported on first use (PEP 562): ``problems.lp.status`` (the exit codes) must not pull in the back ends.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("BACKENDS", "BackendError", "RawSolution", "backend", "resolve_order"), ".backends"),
    **dict.fromkeys(
        (
            "RELATIVE_GAP",
            "ABSOLUTE_GAP",
            "Bounds",
            "certified",
            "certify",
            "lower_bound",
            "repair",
            "upper_bound",
            "verify",
        ),
        ".bounds",
    ),
    **dict.fromkeys(("Attempt", "solve"), ".chain"),
    "LPSolution": ".solution",
    **dict.fromkeys(("RatioLPSpec", "dense_spec", "reduced_spec"), ".spec"),
    **dict.fromkeys(("EXIT_CODES", "Status", "decide_status"), ".status"),
}

__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY)

if TYPE_CHECKING:  # the lazily loaded names, for type checkers
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
    from .chain import Attempt, solve
    from .solution import LPSolution
    from .spec import RatioLPSpec, dense_spec, reduced_spec
    from .status import EXIT_CODES, Status, decide_status


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
    "decide_status",
]

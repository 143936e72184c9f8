"""The answer of a theorem on a reduced program: its proved bounds with the mechanism at the right level.

Up to the program's lift limit the mechanism is the N × N matrix, verified exactly feasible in floating point like
every lifted answer (:meth:`~problems.orbit.programs.ReducedPDDP._exact_lift`); above it, a mechanism on types
(a type channel) with the law of the input types.  Used by the theorems whose mechanism is not a product of one
row's (:mod:`problems.orbit.constant_output`, :mod:`problems.orbit.mixture_pd_i`); products go through
:func:`problems.orbit.product_prior.row_product_answer`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..certificate import theorem_certificate
from ..lp import Bounds, Status
from ..lp.status import decide_status
from ..mechanism import Mechanism
from ..result import SolveResult

__all__ = ["reduced_theorem_answer"]


def reduced_theorem_answer(
    program: Any,
    eps: float,
    value: float,
    bounds: Bounds,
    theorem: str,
    extras: dict[str, Any],
    stats: Any,
    lifted: Callable[[], np.ndarray],
    type_level: Callable[[], tuple[Mechanism, np.ndarray]],
) -> SolveResult | None:
    """``lifted()`` (the N × N matrix) up to ``program.lift_limit``, else ``type_level()`` (a mechanism on types and
    the input types' law); ``None`` when the lifted matrix is not proved feasible (the LP answers instead).
    ``extras["mechanism_level"]`` says which."""
    cert = theorem_certificate(value, bounds.lower, bounds.upper, theorem)
    status = decide_status(bounds.lower, bounds.upper)
    if program.space.size <= program.lift_limit:
        W, status, value, bounds, cert = program._exact_lift(lifted(), eps, status, value, bounds, cert)
        if status is not Status.OPTIMAL:
            return None
        mech, p_x = Mechanism.on_space(W, program.space), program._lifted_p_x()
        extras["mechanism_level"] = "database"
    else:
        mech, p_x = type_level()
        extras["mechanism_level"] = "type"
    return SolveResult.from_mechanism(
        program.program,
        mech,
        p_x,
        status=status,
        value=value,
        certificate=cert,
        stats=stats,
        bounds=bounds,
        eps=eps,
        unit="rows",
        extras=extras,
    )

"""Turn an :class:`~problems.lp.solution.LPSolution` (or a theorem-path point) of a dense program into the common
:class:`~problems.result.SolveResult` (through :meth:`SolveResult.from_lp` and :meth:`SolveResult.from_mechanism`)."""

from __future__ import annotations

import numpy as np

from ..certificate import theorem_certificate
from ..database import DatabaseSpace
from ..lp import Bounds
from ..lp.solution import LPSolution
from ..lp.status import decide_status
from ..mechanism import Mechanism
from ..result import SolveResult
from ..solvers.stats import SolverStats


def lp_result(
    program: str,
    sol: LPSolution,
    space: DatabaseSpace,
    W: np.ndarray,
    p_x: np.ndarray,
    extras: dict | None = None,
) -> SolveResult:
    """Assemble the result of an LP whose returned mechanism is ``W`` under the input law ``p_x``."""
    return SolveResult.from_lp(
        program, sol, Mechanism.on_space(W, space), p_x, extras={"path": "dense", **(extras or {})}
    )


def theorem_result(
    program: str,
    eps: float,
    space: DatabaseSpace,
    W: np.ndarray,
    p_x: np.ndarray,
    value: float,
    bounds: Bounds,
    theorem: str,
    extras: dict | None = None,
) -> SolveResult:
    """The result of the theorem path: a closed-form optimum with a verified mechanism and proved bounds."""
    return SolveResult.from_mechanism(
        program,
        Mechanism.on_space(W, space),
        p_x,
        status=decide_status(bounds.lower, bounds.upper),
        value=float(value),
        certificate=theorem_certificate(value, bounds.lower, bounds.upper, theorem),
        stats=SolverStats("theorem", 0.0, 0.0, 0, (("theorem", theorem),)),
        bounds=bounds,
        eps=eps,
        unit="rows",
        extras={"path": "theorem", "theorem": theorem, **(extras or {})},
    )


def verified_theorem_result(
    program: str,
    eps: float,
    lp,
    pmf: np.ndarray,
    mechanism: np.ndarray,
    lower: float,
    theorem: str,  # noqa: ANN001
) -> SolveResult | None:
    """A closed-form mechanism of a row-normalised dense program (``lp`` a :class:`RatioLP`), verified exactly
    feasible by the repair of :mod:`problems.lp.bounds`, returned with ``[lower, its objective]``; ``None``
    when the bounds do not certify it."""
    from .theorem import theorem_point

    got = theorem_point(lp.spec, eps, np.asarray(mechanism).ravel(), lower)
    if got is None:
        return None
    z, bounds = got
    W = z.reshape(np.shape(mechanism))
    value = float(lp.spec.c @ z)
    return theorem_result(program, eps, lp.space, W, pmf, value, bounds, theorem)

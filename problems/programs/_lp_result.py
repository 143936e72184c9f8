"""Turn a :class:`RatioLPSolution` (or a theorem-path point) into the common :class:`~problems.result.SolveResult`."""

from __future__ import annotations

import numpy as np

from ..certificate import theorem_certificate
from ..database import DatabaseSpace
from ..lp import Bounds
from ..lp.status import decide_status
from ..mechanism import Mechanism
from ..result import SolveResult
from ..solver import SolverStats
from .ratio_lp import RatioLPSolution


def _posterior(joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p_y = joint.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        posterior = np.where(p_y > 0, joint / np.where(p_y > 0, p_y, 1.0), 0.0)
    return np.clip(p_y, 0.0, None), posterior


def lp_result(
    program: str,
    sol: RatioLPSolution,
    space: DatabaseSpace,
    W: np.ndarray,
    joint: np.ndarray,
    extras: dict | None = None,
) -> SolveResult:
    """Assemble the result of an LP whose returned mechanism is ``W`` and joint p_{X,Y} is ``joint``."""
    p_y, posterior = _posterior(joint)
    return SolveResult(
        program=program,
        status=sol.status,
        value=sol.value,
        mechanism=Mechanism.on_space(W, space),
        eps=sol.eps,
        distortion=None,
        duals={
            "ratio": sol.ratio_duals,
            "normalisation": sol.normalisation_duals,
            "nonnegativity": sol.nonnegativity_duals,
        },
        certificate=sol.certificate,
        stats=sol.stats,
        p_y=p_y,
        posterior=posterior,
        unit="rows",
        extras={"path": "dense", **(extras or {})},
        bounds=sol.bounds,
    )


def theorem_result(
    program: str,
    eps: float,
    space: DatabaseSpace,
    W: np.ndarray,
    joint: np.ndarray,
    value: float,
    bounds: Bounds,
    theorem: str,
    extras: dict | None = None,
) -> SolveResult:
    """The result of the theorem path: a closed-form optimum with a verified mechanism and proved bounds."""
    p_y, posterior = _posterior(joint)
    cert = theorem_certificate(value, bounds.lower, bounds.upper, theorem)
    return SolveResult(
        program=program,
        status=decide_status(bounds.lower, bounds.upper),
        value=float(value),
        mechanism=Mechanism.on_space(W, space),
        eps=eps,
        distortion=None,
        duals={},
        certificate=cert,
        stats=SolverStats("theorem", 0.0, 0.0, 0, (("theorem", theorem),)),
        p_y=p_y,
        posterior=posterior,
        unit="rows",
        extras={"path": "theorem", "theorem": theorem, **(extras or {})},
        bounds=bounds,
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
    return theorem_result(program, eps, lp.space, W, pmf[:, None] * W, value, bounds, theorem)

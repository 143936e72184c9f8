"""Turn a :class:`RatioLPSolution` into the common :class:`~problems.result.SolveResult`."""

from __future__ import annotations

import numpy as np

from ..database import DatabaseSpace
from ..mechanism import Mechanism
from ..result import SolveResult
from .ratio_lp import RatioLPSolution


def lp_result(
    program: str,
    sol: RatioLPSolution,
    space: DatabaseSpace,
    W: np.ndarray,
    joint: np.ndarray,
    extras: dict | None = None,
) -> SolveResult:
    """Assemble the result of an LP whose optimal mechanism is ``W`` and optimal joint p_{X,Y} is ``joint``."""
    p_y = joint.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        posterior = np.where(p_y > 0, joint / np.where(p_y > 0, p_y, 1.0), 0.0)
    return SolveResult(
        program=program,
        status="optimal",
        value=sol.value,
        mechanism=Mechanism.on_space(W, space, clean=True),
        eps=sol.eps,
        distortion=None,
        duals={
            "ratio": sol.ratio_duals,
            "normalisation": sol.normalisation_duals,
            "nonnegativity": sol.nonnegativity_duals,
        },
        certificate=sol.certificate,
        stats=sol.stats,
        p_y=np.clip(p_y, 0.0, None),
        posterior=posterior,
        unit="rows",
        extras=extras or {},
    )

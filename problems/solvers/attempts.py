"""One solver's try, recorded alike by the LP chain (:mod:`problems.solvers.chain`) and the conic fallback
(:mod:`problems.solvers.conic`).

:class:`~problems.solvers.stats.SolverStats` keeps each attempt as the pair ``(solver, outcome)`` given by
:meth:`Attempt.as_pair` (the command line prints it as ``attempt  NAME: outcome``, ``--json`` writes it as a
two-element list).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Attempt"]


@dataclass(frozen=True)
class Attempt:
    """One solver's try: what it said, how long it took, and the bounds its point and multipliers gave.

    Attributes
    ----------
    solver:
        The back end (LP chain) or CVXPY solver (conic fallback) that ran.
    outcome:
        Its own status word, or ``"error: …"`` when it raised.  Only a word: the status of the answer is
        decided by the toolkit's certificate, never by this.
    seconds:
        Wall time of the attempt.
    lower, upper:
        Rigorous bounds ``lower ≤ optimum ≤ upper`` from this attempt (LP chain only; ``upper = inf`` when
        nothing was proved, as for every conic attempt).
    certified:
        Whether these bounds alone certify the optimum.
    """

    solver: str
    outcome: str
    seconds: float
    lower: float = 0.0
    upper: float = math.inf
    certified: bool = False

    def as_pair(self) -> tuple[str, str]:
        """``(solver, outcome)``, with the bounds appended to the outcome when some were proved."""
        if math.isfinite(self.upper):
            proof = f"bounds [{self.lower:.10g}, {self.upper:.10g}]" + (
                " certified" if self.certified else ""
            )
            return self.solver, f"{self.outcome}; {proof}"
        return self.solver, self.outcome

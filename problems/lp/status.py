"""The status of an answer, decided by the toolkit's certificate (never by a solver's word)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Status", "EXIT_CODES", "SOLVER_WORDS"]


class Status(StrEnum):
    """What the toolkit can say about an answer.

    ``optimal``
        certified: rigorous bounds ``lower ≤ optimum ≤ upper`` agree to the relative tolerance
        (:data:`problems.lp.bounds.RELATIVE_GAP`), and the returned mechanism is exactly feasible.
    ``inaccurate``
        an answer whose bounds are valid but wider than the tolerance (the value may be wrong).
    ``infeasible``
        proved infeasible (Wang, Ying & Zhang 2016, Lemma 3, or a certificate the toolkit checks).
    ``failed``
        no back end produced a usable point; the bounds are what the toolkit can prove without one.

    The enum is a ``str``, so ``status == "optimal"`` works and JSON shows the plain word.
    """

    OPTIMAL = "optimal"
    INACCURATE = "inaccurate"
    INFEASIBLE = "infeasible"
    FAILED = "failed"

    def __str__(self) -> str:
        return self.value

    @property
    def certified(self) -> bool:
        return self is Status.OPTIMAL

    @classmethod
    def _missing_(cls, value: object) -> Status | None:
        """A solver's word (CVXPY's statuses, Clarabel's) through :data:`SOLVER_WORDS`; an unknown word is
        ``failed``.  A solver's "infeasible (inaccurate)" or "primal infeasible" is never ``infeasible``: only the
        toolkit's own proofs are."""
        key = str(value).strip().lower().replace(" ", "_")
        return SOLVER_WORDS.get(key, cls.FAILED)


#: Solver status words and what they say in the toolkit's terms (``optimal`` still has to pass the certificate:
#: :class:`~problems.result.SolveResult` downgrades it otherwise).
SOLVER_WORDS: dict[str, Status] = {
    # CVXPY (cvxpy.settings)
    "optimal_inaccurate": Status.INACCURATE,
    "infeasible_inaccurate": Status.FAILED,
    "unbounded": Status.FAILED,
    "unbounded_inaccurate": Status.FAILED,
    "infeasible_or_unbounded": Status.FAILED,
    "user_limit": Status.FAILED,
    "solver_error": Status.FAILED,
    # Clarabel (SolverStatus)
    "solved": Status.OPTIMAL,
    "almostsolved": Status.INACCURATE,
    "primalinfeasible": Status.FAILED,
    "dualinfeasible": Status.FAILED,
    "almostprimalinfeasible": Status.FAILED,
    "almostdualinfeasible": Status.FAILED,
    "maxiterations": Status.FAILED,
    "maxtime": Status.FAILED,
    "numericalerror": Status.FAILED,
    "insufficientprogress": Status.FAILED,
}


#: Exit codes of the command lines (README, docs/certificates.md).
EXIT_CODES: dict[str, int] = {
    "optimal": 0,
    "infeasible": 1,
    "bad-input": 2,
    "inaccurate": 3,
    "failed": 3,
    "too-large": 4,
    "internal": 5,
}

"""The status of an answer, decided by the toolkit's certificate (never by a solver's word)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Status", "EXIT_CODES"]


class Status(StrEnum):
    """What the toolkit can say about an answer.

    ``optimal``
        certified: rigorous bounds ``lower ≤ optimum ≤ upper`` agree to the relative tolerance
        (:data:`problems.lp.bounds.RELATIVE_GAP`), and the returned mechanism is exactly feasible.
    ``inaccurate``
        an answer whose bounds are valid but wider than the tolerance (the value may be wrong).
    ``infeasible``
        proved infeasible (paper 002, Lemma 3, or a certificate the toolkit checks).
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
        """Solver words (CVXPY, Clarabel) mapped to the toolkit's: anything inaccurate is ``inaccurate``."""
        text = str(value).lower()
        if "infeasible" in text:
            return cls.INFEASIBLE if "inaccurate" not in text else cls.FAILED
        if "inaccurate" in text or "almost" in text:
            return cls.INACCURATE
        if text in ("solved",):
            return cls.OPTIMAL
        return cls.FAILED


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

r"""The status of an answer, decided by one rule (:func:`decide_status`) from rigorous bounds, never by a solver's word.

The rule
--------
An answer with rigorous bounds :math:`\ell \le \mathrm{OPT} \le U` (valid despite rounding) and a returned point
is

* ``optimal`` when the point is exactly feasible and the bounds agree (or are equal: an exact value):
  :math:`(U - \ell)\,(1 + 4u) \le \max(\,r \max(|\ell|, |U|),\ a\,)` with the relative tolerance
  :math:`r =` :data:`RELATIVE_GAP` :math:`= 10^{-6}` and the absolute tolerance :math:`a =`
  :data:`ABSOLUTE_GAP` :math:`= 10^{-12}` in the objective's own unit (rows of distortion, nats or bits);
  :math:`1 + 4u` (:data:`ROUNDING_SAFETY`, u the unit round-off) covers the rounding of the test itself.
  The absolute tolerance certifies optima at or near zero (PD-MIP at D just below D_max, PD-I at large ε),
  where no relative tolerance can hold: the reported value is then the objective of an exactly feasible point
  and is right to within 1e-12 absolute;
* ``infeasible`` only with a proof the toolkit checked (``infeasible_proof``, which names it);
* ``inaccurate`` when there is a point but the point is not proved feasible or the bounds are wider;
* ``failed`` when no usable point was produced.

A solver's status word goes through :meth:`Status.from_solver_word` (the explicit table
:data:`SOLVER_WORDS`); a solver's "optimal" is at most ``inaccurate`` there and becomes ``optimal`` only by
:func:`decide_status` on the toolkit's bounds.  This module imports nothing but the standard library and :mod:`problems.solvers.settings`.
"""

from __future__ import annotations

import math
from enum import StrEnum

from ..solvers.settings import UNIT_ROUNDOFF

__all__ = [
    "Status",
    "EXIT_CODES",
    "SOLVER_WORDS",
    "RELATIVE_GAP",
    "ABSOLUTE_GAP",
    "REFINE_GAP",
    "UNIT_ROUNDOFF",
    "ROUNDING_SAFETY",
    "bounds_agree",
    "refined",
    "decide_status",
]

#: The relative tolerance of the status rule: upper − lower ≤ RELATIVE_GAP · max(|lower|, |upper|).
RELATIVE_GAP = 1e-6
#: The absolute tolerance of the status rule, in the objective's own unit: upper − lower ≤ ABSOLUTE_GAP
#: certifies an optimum at or near zero.
ABSOLUTE_GAP = 1e-12
#: The absolute floor of :func:`refined`: the solvers keep improving an answer until its bounds agree to the
#: relative tolerance, or to this absolute gap (an optimum below the range of normal doubles, where the
#: relative tolerance cannot hold in floating point; :mod:`problems.lp.tiny`).  It decides when to stop
#: working, never the status.
REFINE_GAP = 1e-200
#: The safety factor of the rule's own floating-point test (the gap is computed with one rounding).
ROUNDING_SAFETY = 1.0 + 4 * UNIT_ROUNDOFF


class Status(StrEnum):
    """What the toolkit can say about an answer (decided by :func:`decide_status`).

    ``optimal``
        certified: rigorous bounds ``lower ≤ optimum ≤ upper`` agree to :data:`RELATIVE_GAP` (1e-6) relative
        to the larger bound, or to :data:`ABSOLUTE_GAP` (1e-12, in the objective's own unit) absolute for
        optima at or near zero, and the returned mechanism is exactly feasible.
    ``inaccurate``
        an answer whose bounds are valid but wider than the tolerance (the value may be wrong), or whose
        point is not proved feasible.
    ``infeasible``
        proved infeasible (Wang, Ying & Zhang 2016, Lemma 3, or a certificate the toolkit checks).
    ``failed``
        no back end produced a usable point; the bounds are what the toolkit can prove without one.

    The enum is a ``str``, so ``status == "optimal"`` works and JSON shows the plain word.  ``Status(word)``
    accepts only these four words; a solver's words go through :meth:`from_solver_word`.
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
    def from_solver_word(cls, word: object) -> Status:
        """What a solver's status word (CVXPY's, Clarabel's) says in the toolkit's terms, by the explicit table
        :data:`SOLVER_WORDS`; a word not in the table is ``failed``.

        Never ``optimal`` (that takes :func:`decide_status` on rigorous bounds) and never ``infeasible``
        (that takes a proof the toolkit checked)."""
        key = str(word).strip().lower().replace(" ", "_")
        return SOLVER_WORDS.get(key, cls.FAILED)


#: Solver status words and the most they can say in the toolkit's terms: a point to be certified
#: (``inaccurate`` until :func:`decide_status` proves more) or nothing (``failed``).
SOLVER_WORDS: dict[str, Status] = {
    # CVXPY (cvxpy.settings)
    "optimal": Status.INACCURATE,
    "optimal_inaccurate": Status.INACCURATE,
    "infeasible": Status.FAILED,
    "infeasible_inaccurate": Status.FAILED,
    "unbounded": Status.FAILED,
    "unbounded_inaccurate": Status.FAILED,
    "infeasible_or_unbounded": Status.FAILED,
    "user_limit": Status.FAILED,
    "solver_error": Status.FAILED,
    # Clarabel (SolverStatus)
    "solved": Status.INACCURATE,
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


def bounds_agree(
    lower: float, upper: float, *, rtol: float = RELATIVE_GAP, atol: float = ABSOLUTE_GAP
) -> bool:
    """True when finite bounds agree: ``(upper − lower)·(1 + 4u) ≤ max(rtol·max(|lower|, |upper|), atol)``.

    ``lower = upper`` agrees: the value is known exactly (an exact 0, or ε* = ∞ at distortion 0); otherwise
    an infinite or NaN bound never agrees.
    """
    lower, upper = float(lower), float(upper)
    if lower == upper:
        return True
    if not (math.isfinite(lower) and math.isfinite(upper)):
        return False
    gap = (upper - lower) * ROUNDING_SAFETY
    return gap <= max(rtol * max(abs(lower), abs(upper)), atol)


def refined(lower: float, upper: float, rtol: float = RELATIVE_GAP) -> bool:
    """True when a solver may stop improving: the bounds agree to ``rtol`` relative (or :data:`REFINE_GAP`).

    Stricter than the status rule near zero, so that a value that can be proved to 1e-6 relative is; the status
    of the final answer is still :func:`decide_status`'s."""
    return bounds_agree(lower, upper, rtol=rtol, atol=REFINE_GAP)


def decide_status(
    lower: float,
    upper: float,
    *,
    feasible: bool = True,
    infeasible_proof: str | None = None,
    answered: bool = True,
    rtol: float = RELATIVE_GAP,
) -> Status:
    """The status of an answer: the one rule of the toolkit (see the module docstring).

    Parameters
    ----------
    lower, upper:
        Rigorous bounds on the optimum (``±inf`` where nothing was proved), in the objective's unit.
    feasible:
        The returned point is exactly feasible (verified by the toolkit, not by the solver).
    infeasible_proof:
        The name of a proof of infeasibility that the toolkit checked; then the status is ``infeasible``.
    answered:
        A usable point was produced at all (``False``: ``failed``).
    rtol:
        The relative tolerance (default :data:`RELATIVE_GAP`).
    """
    if infeasible_proof:
        return Status.INFEASIBLE
    if not answered:
        return Status.FAILED
    if feasible and bounds_agree(lower, upper, rtol=rtol):
        return Status.OPTIMAL
    return Status.INACCURATE


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

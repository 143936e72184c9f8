"""What the solver layer did: :class:`SolverStats`, shared by the LP chain and the conic solver layer.

A module of its own, without CVXPY, so that the LP core (:mod:`problems.lp`) and the LP chain import without
it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SolverStats"]


@dataclass(frozen=True)
class SolverStats:
    """What the solver layer did.

    Attributes
    ----------
    solver:
        Name of the solver whose solution was used.
    solve_time:
        Seconds spent inside that solver (as reported by CVXPY, or wall time if it reports none).
    compile_time:
        Seconds of CVXPY canonicalisation before the first solve of this problem (0 on DPP re-solves).
    iterations:
        Solver iterations, if reported.
    attempts:
        ``(solver, outcome)`` for every solver tried, in order, including the successful one (each an
        :class:`~problems.solvers.attempts.Attempt` as :meth:`~problems.solvers.attempts.Attempt.as_pair`).
    """

    solver: str
    solve_time: float
    compile_time: float = 0.0
    iterations: int | None = None
    attempts: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return {
            "solver": self.solver,
            "solve_time": self.solve_time,
            "compile_time": self.compile_time,
            "iterations": self.iterations,
            "attempts": [list(a) for a in self.attempts],
        }

"""The solver layer: fallback to another solver, typed failures, and the inaccurate-status rule."""

import cvxpy as cp
import pytest

from problems import InvalidInputError
from problems.solvers.conic import solve_with_fallback


def _fail_for(monkeypatch, names):
    original = cp.Problem.solve

    def solve(self, *args, solver=None, **kwargs):
        if solver in names:
            raise cp.error.SolverError(f"{solver} crashed (test)")
        return original(self, *args, solver=solver, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", solve)


def test_unknown_solver_is_a_typed_error():
    x = cp.Variable()
    with pytest.raises(InvalidInputError, match="not installed"):
        solve_with_fallback(cp.Problem(cp.Minimize(x), [x >= 0]), program="t", solver="NOPE")


def test_lp_only_solver_refused_for_conic():
    if "HIGHS" not in cp.installed_solvers():
        pytest.skip("HiGHS (highspy) not installed")
    x = cp.Variable()
    with pytest.raises(InvalidInputError, match="only linear programs"):
        solve_with_fallback(cp.Problem(cp.Minimize(cp.exp(x))), program="t", solver="HIGHS")


def test_conic_fallback_after_a_crash(monkeypatch):
    """The first solver crashes: the next one answers, and the attempts record both."""
    _fail_for(monkeypatch, {"CLARABEL"})
    x = cp.Variable()
    problem = cp.Problem(cp.Minimize(cp.exp(x) - x))  # optimum 1 at x = 0
    stats = solve_with_fallback(problem, program="t")
    assert stats.attempts[0][0] == "CLARABEL" and stats.attempts[0][1].startswith("error:")
    assert stats.solver == "SCS"
    assert abs(problem.value - 1.0) < 1e-4


def test_infeasible_inaccurate_is_not_a_proof(monkeypatch):
    """A solver's "infeasible (inaccurate)" is recorded and the next solver is tried; with none left, the
    failure is SolverFailedError, never InfeasibleProgramError."""
    from problems import SolverFailedError

    def solve(self, *args, solver=None, **kwargs):
        self._status = cp.INFEASIBLE_INACCURATE
        return None

    monkeypatch.setattr(cp.Problem, "solve", solve)
    monkeypatch.setattr(cp.Problem, "status", property(lambda self: self._status))
    x = cp.Variable()
    with pytest.raises(SolverFailedError) as info:
        solve_with_fallback(cp.Problem(cp.Minimize(x), [x >= 0]), program="t", lp=True)
    assert "infeasible_inaccurate" in str(info.value)


@pytest.mark.parametrize(
    ("word", "status"),
    [
        # a solver's word is at most "inaccurate": "optimal" takes the toolkit's bounds, "infeasible" its proof
        ("optimal", "inaccurate"),
        ("optimal_inaccurate", "inaccurate"),
        ("infeasible", "failed"),
        ("infeasible_inaccurate", "failed"),
        ("PrimalInfeasible", "failed"),
        ("AlmostSolved", "inaccurate"),
        ("Solved", "inaccurate"),
        ("unbounded", "failed"),
        ("something new", "failed"),
    ],
)
def test_solver_words_map_through_the_table(word, status):
    from problems.lp.status import Status

    assert Status.from_solver_word(word) == status


def test_status_takes_only_the_toolkits_own_words():
    from problems.lp.status import Status

    assert [Status(w) for w in ("optimal", "inaccurate", "infeasible", "failed")] == list(Status)
    for word in ("Solved", "optimal_inaccurate", "something new"):
        with pytest.raises(ValueError):
            Status(word)

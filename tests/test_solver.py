"""The solver layer: fallback to another solver, typed failures, and the inaccurate-status rule."""

import cvxpy as cp
import pytest

from problems import PDDP, DatabaseSpace, InvalidInputError, SolverFailedError, priors
from problems.closed_forms import h
from problems.solver import available_solvers, solve_with_fallback


def _fail_for(monkeypatch, names):
    original = cp.Problem.solve

    def solve(self, *args, solver=None, **kwargs):
        if solver in names:
            raise cp.error.SolverError(f"{solver} crashed (test)")
        return original(self, *args, solver=solver, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", solve)


def test_retries_the_next_solver(monkeypatch):
    _fail_for(monkeypatch, {"CLARABEL"})
    res = PDDP(priors.uniform(DatabaseSpace(2, 2))).solve(1.0)
    assert res.stats.attempts[0][0] == "CLARABEL" and "crashed" in res.stats.attempts[0][1]
    assert res.stats.solver != "CLARABEL"
    assert res.value == pytest.approx(h(1.0, 2, 2), abs=1e-6)


def test_all_solvers_failing_raises_with_every_attempt(monkeypatch):
    _fail_for(monkeypatch, set(available_solvers(lp=True)))
    with pytest.raises(SolverFailedError) as info:
        PDDP(priors.uniform(DatabaseSpace(2, 2))).solve(1.0)
    assert [a[0] for a in info.value.attempts] == available_solvers(lp=True)


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


def test_named_solver_runs_first():
    res = PDDP(priors.uniform(DatabaseSpace(2, 2)), solver="SCS").solve(1.0)
    assert res.stats.attempts[0][0] == "SCS"

"""The solver layer: fallback to another solver, typed failures, and the inaccurate-status rule."""

import cvxpy as cp
import pytest

from problems import InvalidInputError
from problems.solver import solve_with_fallback


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

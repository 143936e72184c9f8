"""The one settings module of the solve path, and the one attempt record of the LP chain and the conic
fallback.

Each tolerance, order and time limit is defined once (``problems/solvers/settings.py``) and is what the back
ends hand to their solvers; the attempts keep the printed form ``(solver, outcome)`` of before.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest

from problems import DatabaseSpace, priors
from problems.lp import dense_spec
from problems.solvers import Attempt, settings, solve, solve_with_fallback

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = ROOT / "problems" / "solvers" / "settings.py"
#: Option names of the solvers: a dict literal with one of these keys is solver settings.
SOLVER_OPTION_KEYS = {
    "tol_gap_abs",
    "tol_gap_rel",
    "tol_feas",
    "tol_ktratio",
    "eps_abs",
    "eps_rel",
    "primal_feasibility_tolerance",
    "dual_feasibility_tolerance",
}


def _library_files() -> list[Path]:
    return sorted(p for p in (ROOT / "problems").rglob("*.py") if p != SETTINGS)


def test_each_setting_is_defined_once() -> None:
    """No other module of the library assigns a name of the settings, the unit roundoff 2⁻⁵³ at module level,
    or a dict of solver options."""
    names = set(settings.__all__)
    found = []
    for path in _library_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign) and node.value is not None
                else []
            )
            for t in targets:
                if isinstance(t, ast.Name) and t.id in names:
                    found.append(f"{path.relative_to(ROOT)}: {t.id}")
            value = getattr(node, "value", None)
            if isinstance(node, ast.Assign | ast.AnnAssign) and value is not None:
                if ast.unparse(value).replace(" ", "") in ("2.0**-53", "2**-53", "2.0**(-53)"):
                    found.append(f"{path.relative_to(ROOT)}: unit roundoff")
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if keys & SOLVER_OPTION_KEYS:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: solver options {sorted(keys)}")
    assert found == []


def test_the_settings_are_documented() -> None:
    """Every setting has a ``#:`` comment (its entry in the API reference), on its line or a group's first."""
    lines = SETTINGS.read_text(encoding="utf-8").splitlines()
    undocumented = []
    for name in settings.__all__:
        (row,) = [
            i for i, line in enumerate(lines) if line.startswith(f"{name}: ") or line.startswith(f"{name} =")
        ]
        above = row - 1
        while (
            above >= 0
            and not lines[above].startswith("#:")
            and "= " in lines[above]
            and lines[above][0].isupper()
        ):
            above -= 1  # a group: NAME_A = …, NAME_B = … under one comment
        if above < 0 or not lines[above].startswith("#:"):
            undocumented.append(name)
    assert undocumented == []


def test_the_unit_roundoff() -> None:
    u = settings.UNIT_ROUNDOFF
    assert 1.0 + u == 1.0 and 1.0 + 2 * u > 1.0  # half the spacing of the doubles at 1 (ties to even)
    assert u == math.ldexp(1.0, -53)


def _spec():
    space = DatabaseSpace(2, 2)
    pr = priors.uniform(space)
    return dense_spec(
        space, pr.pmf[:, None] * space.hamming_matrix(), program="pd-dp", row_mass=np.ones(space.size)
    )


@pytest.mark.parametrize(("small", "tol", "ktratio"), [(True, 1e-10, 1e-8), (False, 1e-8, 1e-6)])
def test_clarabel_gets_the_tolerances_of_the_lp_size(monkeypatch, small, tol, ktratio) -> None:
    """Clarabel runs with 1e-10 (ktratio 1e-8) up to SMALL_LP_SIZE variables and 1e-8 (1e-6) above."""
    import clarabel

    from problems.solvers import backends

    seen = {}
    real = clarabel.DefaultSolver

    def spy(P, q, A, b, cones, s):  # noqa: ANN001, ANN202
        seen.update(
            {k: getattr(s, k) for k in ("tol_gap_abs", "tol_gap_rel", "tol_feas", "tol_ktratio", "max_iter")}
        )
        seen["direct_solve_method"] = s.direct_solve_method
        return real(P, q, A, b, cones, s)

    monkeypatch.setattr(clarabel, "DefaultSolver", spy)
    if not small:
        monkeypatch.setattr(backends, "SMALL_LP_SIZE", 0)
    sol = solve(_spec(), 1.0, solver="clarabel")
    assert sol.stats.solver == "CLARABEL"
    assert seen == {
        "tol_gap_abs": tol,
        "tol_gap_rel": tol,
        "tol_feas": tol,
        "tol_ktratio": ktratio,
        "max_iter": 400,
        "direct_solve_method": "qdldl",
    }


def test_attempt_pairs_keep_their_printed_form() -> None:
    """``(solver, outcome)``, the bounds appended only when some were proved (the CLI's ``attempt  NAME: …``)."""
    assert Attempt("SCS", "error: boom", 0.1).as_pair() == ("SCS", "error: boom")
    proved = Attempt("CLARABEL", "Solved", 0.2, 0.25, 0.2500001, True)
    assert proved.as_pair() == ("CLARABEL", "Solved; bounds [0.25, 0.2500001] certified")
    assert Attempt("HIGHS", "optimal", 0.3, 0.0, 1.0).as_pair() == ("HIGHS", "optimal; bounds [0, 1]")


def test_chain_and_conic_fallback_record_attempts_alike(monkeypatch) -> None:
    """Both layers give ``SolverStats.attempts`` as (name, outcome) pairs, in the order tried."""
    sol = solve(_spec(), 1.0, solver="highs")
    assert [len(a) for a in sol.stats.attempts] == [2] and sol.stats.attempts[0][0] == "HIGHS"
    assert sol.stats.attempts[0][1].startswith("optimal; bounds [")

    real = cp.Problem.solve

    def crash_clarabel(self, *args, solver=None, **kwargs):  # noqa: ANN001, ANN202
        if solver == "CLARABEL":
            raise cp.error.SolverError("forced failure")
        return real(self, *args, solver=solver, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", crash_clarabel)
    x = cp.Variable()
    stats = solve_with_fallback(cp.Problem(cp.Minimize(x), [x >= 1]), program="t", lp=True)
    assert stats.attempts[0] == ("CLARABEL", "error: forced failure")
    assert stats.attempts[1] == (stats.solver, "optimal")
    assert stats.to_dict()["attempts"][0] == ["CLARABEL", "error: forced failure"]


def test_large_reduced_lps_try_the_block_method_before_highs():
    """Above HIGHS_AFTER_BLOCK_FROM variables a reduced LP's chain has BLOCK before HIGHS; small ones keep LP_ORDER."""
    from problems.orbit import ReducedPDDP, parse_symmetric_prior
    from problems.solvers.backends import default_order
    from problems.solvers.settings import HIGHS_AFTER_BLOCK_FROM, LP_ORDER

    large = ReducedPDDP(parse_symmetric_prior("contagious:0.2", 100, 2)).lp.spec
    assert large.K > HIGHS_AFTER_BLOCK_FROM
    order = default_order(large)
    assert order.index("BLOCK") < order.index("HIGHS")
    small = ReducedPDDP(parse_symmetric_prior("contagious:0.2", 20, 2)).lp.spec
    assert [o for o in default_order(small) if o in LP_ORDER] == list(LP_ORDER)

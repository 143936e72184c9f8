"""One LP solution type for the dense and reduced programs, and one result assembly through ``Mechanism``.

Independent checks: the output law and posterior of a result are recomputed by Bayes' rule in exact rational
arithmetic (``fractions.Fraction``) from the returned mechanism and the prior.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

from problems import DatabaseSpace, priors
from problems.lp import LPSolution
from problems.orbit.dispatch import make_program
from problems.programs import PDDP, RPD


def _bayes(p_x, W):
    """p_Y and p_{X|Y} in fractions (columns with p_Y = 0 left at 0)."""
    P = [[Fraction(float(a)) * Fraction(float(w)) for w in row] for a, row in zip(p_x, W)]
    p_y = [sum(col, Fraction(0)) for col in zip(*P)]
    post = [[(v / p_y[j] if p_y[j] else Fraction(0)) for j, v in enumerate(row)] for row in P]
    return p_y, post


def _check_joint_law(res, p_x):
    p_y, post = _bayes(p_x, res.matrix)
    np.testing.assert_allclose(res.p_y, [float(v) for v in p_y], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(res.posterior, [[float(v) for v in r] for r in post], rtol=1e-12, atol=1e-15)


def test_dense_lp_result_carries_the_bayes_posterior():
    prior = priors.iid(DatabaseSpace(2, 2), [0.3, 0.7])
    res = PDDP(prior).solve(0.8, method="lp")
    assert res.extras["path"] == "dense"
    _check_joint_law(res, prior.pmf)
    assert res.duals["ratio"].shape[1] == 4 and res.duals["nonnegativity"].shape == (4, 4)


def test_r_pd_result_posterior_uses_its_input_marginal():
    res = RPD(DatabaseSpace(2, 2)).solve(0.6, method="lp")
    _check_joint_law(res, np.asarray(res.extras["p_x"]))


def test_reduced_result_carries_the_bayes_posterior_of_the_lifted_mechanism():
    prior = priors.iid(DatabaseSpace(3, 2), [0.3, 0.7])
    res = make_program("pd-i", prior, "reduced").solve(1.2, method="lp")
    assert res.extras["path"] == "reduced" and res.extras["mechanism_level"] == "database"
    _check_joint_law(res, prior.pmf)


def test_dense_and_reduced_programs_return_the_one_solution_type():
    prior = priors.iid(DatabaseSpace(2, 2), [0.3, 0.7])
    dense = PDDP(prior)
    sol = dense.lp.solve(0.8)
    assert type(sol) is LPSolution and sol.Z.shape == (4, 4) and sol.ratio_duals.shape[1] == 4
    reduced = make_program("pd-dp", prior, "reduced")
    rsol = reduced.lp.solve(0.8)
    assert type(rsol) is LPSolution and rsol.u.ndim == 1 and rsol.eq_duals is rsol.nu


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("problems.programs.ratio_lp", "RatioLPSolution"),
        ("problems.programs", "RatioLPSolution"),
        ("problems.orbit.reduced_lp", "ReducedLPSolution"),
        ("problems.orbit", "ReducedLPSolution"),
    ],
)
def test_old_solution_names_warn_and_are_the_one_type(module, name):
    import importlib

    mod = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match="problems.lp.LPSolution"):
        old = getattr(mod, name)
    assert old is LPSolution


def test_new_names_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from problems.lp import LPSolution as A
        from problems.lp.solution import LPSolution as B
    assert A is B


def test_the_solution_type_and_the_status_rule_import_without_cvxpy():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import problems.lp.solution, problems.lp.status\n"
        "print(sorted(m for m in sys.modules if m == 'cvxpy' or m.startswith('cvxpy.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout

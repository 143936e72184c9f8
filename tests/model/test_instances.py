"""The papers' programs written as models equal the existing classes' optima (small cases)."""

from __future__ import annotations

import numpy as np
import pytest

from problems import PDDP, PDI, PDMIP, RPD, DatabaseSpace, priors
from problems.design import IPDesign, design_problem
from problems.model import instances

REL = 1e-9


def _prior(space: DatabaseSpace, seed: int) -> priors.Prior:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(space.size, 3.0))
    return priors.from_pmf(space, p / p.sum())


def _close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-12


CASES = [(2, 2, 0), (2, 2, 1), (3, 2, 2), (2, 3, 3)]


@pytest.mark.parametrize("n,m,seed", CASES)
@pytest.mark.parametrize("eps", [0.4, 1.3])
def test_pd_dp(n, m, seed, eps):
    space = DatabaseSpace(n, m)
    prior = _prior(space, seed)
    res = instances.pd_dp(space, prior, eps).solve(method="lp")  # the model's own LP, built independently
    ref = PDDP(prior).solve(eps, method="lp")
    assert res.path == "lp-core" and res.certified and ref.certified
    assert _close(res.value, ref.value)


@pytest.mark.parametrize("n,m,seed", CASES)
def test_pd_i(n, m, seed):
    space = DatabaseSpace(n, m)
    prior = _prior(space, seed)
    model = instances.pd_i(space, prior, 0.0)
    eps_x = model.constraints[0].eps_x(model.ctx)
    for eps in (eps_x + 0.3, eps_x + 1.5):
        res = instances.pd_i(space, prior, eps).solve(method="lp")
        ref = PDI(prior).solve(eps, method="lp")
        assert res.path == "lp-core" and res.certified
        assert _close(res.value, ref.value)


def test_pd_i_below_eps_x_is_proved_infeasible():
    from problems.errors import InfeasibleProgramError

    space = DatabaseSpace(2, 2)
    prior = priors.from_pmf(space, [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(InfeasibleProgramError, match="ε_X"):
        instances.pd_i(space, prior, 0.5).solve()


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2), (2, 3)])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_r_pd(n, m, eps):
    space = DatabaseSpace(n, m)
    res = instances.r_pd(space, eps).solve(method="lp")
    ref = RPD(space).solve(eps, method="lp")
    assert res.certified and _close(res.value, ref.value)


@pytest.mark.parametrize("n,m,seed", [(2, 2, 0), (2, 2, 5), (2, 3, 1)])
@pytest.mark.parametrize("D", [0.2, 0.6])
def test_pd_mip(n, m, seed, D):
    space = DatabaseSpace(n, m)
    prior = _prior(space, seed)
    res = instances.pd_mip(space, prior, D).solve()
    ref = PDMIP(prior).solve(D)
    assert res.path == "cvxpy-conic" and res.certified
    assert res.bounds.lower <= ref.value * (1 + 1e-9) and ref.bounds.lower <= res.value * (1 + 1e-9)
    assert _close(res.value, ref.value, 1e-7)  # Clarabel's exponential cone vs PD-MIP's polished Blahut point


@pytest.mark.parametrize("query,eps,seed", [("count", 0.3, 0), ("identity", 0.5, 1), ("count", 0.15, 2)])
def test_capacity_design(query, eps, seed):
    space = DatabaseSpace(2, 2)
    problem = design_problem(space, query, prior=_prior(space, seed))
    res = instances.design(problem, eps).solve()
    ref = IPDesign(problem, method="full").solve(eps)
    assert res.path == "cvxpy-conic" and res.certified
    assert _close(res.value, ref.value, 1e-8)


@pytest.mark.parametrize("name", ["pd_dp", "pd_i"])
def test_recognised_paper_programs_use_the_program_classes(name):
    """A model that is PD-DP or PD-I itself is solved by the program class (theorem path, structured IPM)."""
    from problems.closed_forms import h

    space = DatabaseSpace(3, 2)
    prior = priors.iid(space, [0.3, 0.7])
    model = getattr(instances, name)(space, prior, 2.0)
    assert model.route() == "program"
    res = model.solve()
    assert res.path == "program" and res.certified
    assert _close(
        res.value, h(2.0, 3, 2)
    )  # Wang, Ying & Zhang (2016): PD-DP ≤ h = PD-I here (ε ≥ ε̃_X, Lemma 4)
    assert max(res.violations.values()) <= 1e-12
    model.add_constraint(model.W[0, 0] >= 0, name="mine")  # no longer PD-DP/PD-I itself
    assert model.route() != "program"

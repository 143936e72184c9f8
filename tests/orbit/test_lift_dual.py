"""The reduced primal–dual pair, lifted to the full dense LP, proves the dense optimum (docs/orbit_reduction.md §5)."""

from __future__ import annotations

import numpy as np
import pytest

from problems.database import DatabaseSpace
from problems.orbit import ReducedPDDP, ReducedPDI
from problems.orbit.lift_dual import lifted_certificate
from problems.priors import exchangeable_mixture, iid, uniform


def _priors(n, m):
    S = DatabaseSpace(n, m)
    rng = np.random.default_rng(7 * n + m)
    return [
        iid(S, rng.dirichlet(np.ones(m)) * 0.8 + 0.2 / m),
        exchangeable_mixture(S, [rng.dirichlet(np.ones(m)) * 0.7 + 0.3 / m for _ in range(2)], [0.4, 0.6]),
    ]


@pytest.mark.parametrize("n,m", [(1, 2), (2, 2), (3, 2), (4, 2), (2, 3)])
@pytest.mark.parametrize("eps", [0.3, 1.2])
def test_lifted_dual_certifies_dense_pd_dp(n, m, eps):
    for prior in _priors(n, m):
        prog = ReducedPDDP(prior)
        res = prog.solve(eps, method="lp")
        cert = lifted_certificate(prog, res, _dense(prior, "pd-dp").lp)
        assert cert.certified, cert.to_dict()  # bounds on the *dense* optimum, 1e-6 relative
        assert cert.lower_bound <= res.value * (1 + 1e-6) and res.value <= cert.upper_bound * (1 + 1e-6)
        assert cert.max_residual <= 1e-7, cert.to_dict()


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2), (2, 3)])
def test_reduced_eps_zero_is_the_best_constant_mechanism(n, m):
    for prior in _priors(n, m):
        red = ReducedPDDP(prior).solve(0.0)
        dense = _dense(prior, "pd-dp").solve(0.0)
        assert red.status == "optimal" and dense.status == "optimal"
        assert red.value == pytest.approx(dense.value, rel=1e-12)


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2), (4, 2), (2, 3)])
def test_lifted_dual_certifies_dense_pd_i(n, m):
    for prior in _priors(n, m):
        prog = ReducedPDI(prior)
        dense = _dense(prior, "pd-i").lp
        eps = prog.eps_X + 0.7
        res = prog.solve(eps, method="lp")
        cert = lifted_certificate(prog, res, dense)
        assert cert.certified, cert.to_dict()
        assert cert.lower_bound <= res.value * (1 + 1e-6) and res.value <= cert.upper_bound * (1 + 1e-6)


def test_lift_of_uniform_joint_types():
    prior = uniform(DatabaseSpace(3, 2))
    prog = ReducedPDDP(prior, force_joint_types=True)
    res = prog.solve(0.8, method="lp")
    assert lifted_certificate(prog, res, _dense(prior, "pd-dp").lp).certified


def _dense(prior, which):
    from problems.programs import PDDP, PDI

    return PDDP(prior) if which == "pd-dp" else PDI(prior)

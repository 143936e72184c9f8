"""The reduced primal–dual pair, lifted to the full dense LP, is a KKT point there (docs/orbit_reduction.md §5)."""

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
@pytest.mark.parametrize("eps", [0.0, 0.3, 1.2])
def test_lifted_dual_certifies_dense_pd_dp(n, m, eps):
    for prior in _priors(n, m):
        prog = ReducedPDDP(prior)
        res = prog.solve(eps)
        cert = lifted_certificate(prog, res, _dense(prior, "pd-dp").lp)
        assert cert.max_residual <= 1e-7, cert.to_dict()
        assert cert.primal_objective == pytest.approx(res.value, abs=1e-8)


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2), (4, 2), (2, 3)])
def test_lifted_dual_certifies_dense_pd_i(n, m):
    for prior in _priors(n, m):
        prog = ReducedPDI(prior)
        dense = _dense(prior, "pd-i").lp
        for eps in (prog.eps_X, prog.eps_X + 0.7):
            res = prog.solve(eps)
            cert = lifted_certificate(prog, res, dense)
            assert cert.max_residual <= 1e-7, cert.to_dict()


def test_lift_of_uniform_joint_types():
    prior = uniform(DatabaseSpace(3, 2))
    prog = ReducedPDDP(prior, force_joint_types=True)
    res = prog.solve(0.8)
    assert lifted_certificate(prog, res, _dense(prior, "pd-dp").lp).max_residual <= 1e-7


def _dense(prior, which):
    from problems.programs import PDDP, PDI

    return PDDP(prior) if which == "pd-dp" else PDI(prior)

"""Reduced programs equal the dense ones (Wang, Ying & Zhang 2016, PD-DP (13)–(15), PD-I (8)–(12), R-PD (20)–(24))."""

from __future__ import annotations

import numpy as np
import pytest

from problems.database import DatabaseSpace
from problems.errors import InfeasibleProgramError
from problems.lp import Status
from problems.measures import dp_level, expected_distortion
from problems.orbit import ReducedPDDP, ReducedPDI, ReducedRPD, lift_mechanism
from problems.prior_constants import eps_X
from problems.priors import exchangeable_mixture, iid, uniform
from problems.programs import PDDP, PDI, RPD

SIZES = [(n, 2) for n in range(1, 6)] + [(n, 3) for n in range(1, 4)]
EPS = (0.0, 0.4, 1.3, 3.0)


def _priors(n, m, seed):
    rng = np.random.default_rng(seed)
    S = DatabaseSpace(n, m)
    return [
        iid(S, rng.dirichlet(np.ones(m)) * 0.8 + 0.2 / m),
        exchangeable_mixture(
            S, [rng.dirichlet(np.ones(m)) * 0.7 + 0.3 / m for _ in range(3)], [0.2, 0.5, 0.3]
        ),
    ]


def _agree(a, b, what) -> None:
    """Dense ``a`` and reduced ``b`` answers of one program: their rigorous bound intervals both hold the
    optimum, so they meet; when both are certified, the values agree within the fixed 1e-8."""
    assert a.bounds.lower <= b.bounds.upper + 1e-9 and b.bounds.lower <= a.bounds.upper + 1e-9, what
    if a.status == Status.OPTIMAL and b.status == Status.OPTIMAL:
        assert abs(a.value - b.value) <= 1e-8, what


@pytest.mark.parametrize("n,m", SIZES)
def test_pd_dp_and_pd_i_match_dense(n, m):
    for prior in _priors(n, m, seed=10 * n + m):
        dd, rd = PDDP(prior), ReducedPDDP(prior)
        di, ri = PDI(prior), ReducedPDI(prior)
        assert ri.eps_X == pytest.approx(eps_X(prior), abs=1e-12)
        for eps in EPS:
            a, b = dd.solve(eps), rd.solve(eps)
            assert a.status == b.status == Status.OPTIMAL, (n, m, prior.name, eps)
            _agree(a, b, (n, m, prior.name, eps, a.stats.attempts))
            assert b.certificate.max_residual <= 1e-7
            W = lift_mechanism(b).matrix
            assert expected_distortion(W, prior) == pytest.approx(b.value, abs=1e-8)
            assert dp_level(W, prior.space, floor=1e-7) <= eps + 1e-5
            e_i = max(eps, ri.eps_X, di.eps_X)  # PD-I only exists from ε_X on (each rounded up exactly)
            for e in {e_i, e_i + 0.5}:
                a, b = di.solve(e), ri.solve(e)
                # at ε = ε_X itself (the edge of feasibility) an answer may stay uncertified; above it, both
                # are certified
                if e > e_i:
                    assert a.status == b.status == Status.OPTIMAL, (n, m, prior.name, e)
                if b.status == Status.OPTIMAL:  # at ε_X (no interior) an inaccurate answer may be a constant
                    assert b.certificate.max_residual <= 1e-7  # mechanism whose LP residuals say nothing
                _agree(a, b, (n, m, prior.name, e, a.stats.attempts))
        if ri.eps_X > 0.05:
            with pytest.raises(InfeasibleProgramError, match="ε_X"):
                ri.solve(ri.eps_X - 0.05)


@pytest.mark.parametrize("n,m", [(3, 2), (5, 2), (2, 3), (3, 3)])
def test_uniform_and_r_pd_match_dense(n, m):
    S = DatabaseSpace(n, m)
    p = uniform(S)
    for eps in EPS:
        ref = RPD(S).solve(eps).value
        assert ReducedRPD(S).solve(eps).value == pytest.approx(ref, abs=1e-8)
        assert ReducedPDDP(p).solve(eps).value == pytest.approx(PDDP(p).solve(eps).value, abs=1e-8)
        assert ReducedPDI(p).solve(eps).value == pytest.approx(PDI(p).solve(eps).value, abs=1e-8)
        # the joint-type reduction of a uniform prior agrees with the distance reduction
        assert ReducedPDDP(p, force_joint_types=True).solve(eps).value == pytest.approx(ref, abs=1e-8)


def test_cvxpy_backend_agrees():
    prior = _priors(4, 2, seed=3)[1]
    prog_a, prog_b = ReducedPDDP(prior), ReducedPDDP(prior, solver="cvxpy")
    for eps in (0.2, 1.0):
        assert prog_a.solve(eps).value == pytest.approx(prog_b.solve(eps).value, abs=1e-7)

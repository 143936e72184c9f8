"""The block interior-point back end of the reduced LPs (problems/orbit/block_ipm.py)."""

from __future__ import annotations

import numpy as np
import pytest

from problems.database import DatabaseSpace
from problems.errors import InvalidInputError
from problems.orbit import ReducedPDDP, ReducedPDI, symmetric_iid
from problems.orbit import reduced_lp as RL
from problems.orbit.block_ipm import BLOCK_SOLVER_NAME, RaggedBlockSystem, solve_block_lp
from problems.orbit.programs import choose_backend
from problems.priors import exchangeable_mixture, iid
from problems.programs import PDDP, PDI
from problems.programs.structured_lp import solve_ratio_lp_structured


def _priors(n, m, seed):
    rng = np.random.default_rng(seed)
    S = DatabaseSpace(n, m)
    return [
        iid(S, rng.dirichlet(np.ones(m)) * 0.8 + 0.2 / m),
        exchangeable_mixture(S, [rng.dirichlet(np.ones(m)) * 0.7 + 0.3 / m for _ in range(2)], [0.4, 0.6]),
    ]


def test_blocks_are_the_y_types():
    """The connected components of the moves are exactly the sets of joint types with one column sum."""
    prog = ReducedPDDP(symmetric_iid(4, [0.2, 0.3, 0.5]), backend="clarabel")
    lp, J = prog.lp, prog.types
    sysm = RaggedBlockSystem(lp.c, lp.A, lp.b, lp.src, lp.dst, lp.kappa, np.e)
    assert sysm.nblocks == 15  # C(4 + 2, 2) y-types
    y = J.x_type_index(J.y_types)[sysm.order]  # y-type of each variable in block order
    for k in range(sysm.nblocks):
        assert np.unique(y[sysm.offsets[k] : sysm.offsets[k + 1]]).size == 1
    # ratio rows stay inside their block
    blk = np.repeat(np.arange(sysm.nblocks), np.diff(sysm.offsets))
    assert np.array_equal(blk[sysm.pi], blk[sysm.pj])


@pytest.mark.parametrize("n,m", [(5, 2), (3, 3)])
def test_block_backend_matches_dense(n, m):
    """backend="block" = the dense PD-DP / PD-I (paper 002 (13)–(15), (8)–(12)) within 1e-8."""
    for prior in _priors(n, m, seed=7 * n + m):
        rd, ri = ReducedPDDP(prior, backend="block"), ReducedPDI(prior, backend="block")
        dd, di = PDDP(prior), PDI(prior)
        for eps in (0.0, 0.5, 1.7):
            a, b = dd.solve(eps), rd.solve(eps)
            assert b.stats.solver == BLOCK_SOLVER_NAME, b.stats.attempts
            assert abs(a.value - b.value) <= max(1e-8, 100 * a.certificate.max_residual)
            assert b.certificate.max_residual <= RL.BLOCK_ACCEPT * max(1.0, b.value)
            e = ri.eps_X + 0.2 + eps
            a, b = di.solve(e), ri.solve(e)
            assert abs(a.value - b.value) <= max(1e-8, 100 * a.certificate.max_residual)
            assert b.certificate.max_residual <= RL.BLOCK_ACCEPT * max(1.0, b.value)


@pytest.mark.parametrize("eps", [0.3, 1.5])
def test_block_backend_matches_clarabel_m3(eps):
    """m = 3, n = 6 (462 joint types in 28 blocks): both back ends certified, values within 1e-8."""
    for prior in _priors(6, 3, seed=11):
        a = ReducedPDDP(prior, backend="clarabel").solve(eps)
        b = ReducedPDDP(prior, backend="block").solve(eps)
        assert b.stats.solver == BLOCK_SOLVER_NAME
        assert b.value == pytest.approx(a.value, abs=1e-8 * max(1.0, a.value))
        assert b.certificate.max_residual <= 1e-8 * max(1.0, b.value)
        # the lifted u is a conditional pmf per x-type: rows of A u = 1
        assert np.allclose(ReducedPDDP(prior).lp.A @ b.extras["u"], 1.0, atol=1e-9)


def test_block_falls_back_to_clarabel(monkeypatch):
    """An answer whose certificate is above BLOCK_ACCEPT is not returned: Clarabel solves again."""
    prior = _priors(4, 3, seed=2)[0]
    ref = ReducedPDDP(prior, backend="clarabel").solve(1.0)
    monkeypatch.setattr(RL, "BLOCK_ACCEPT", 0.0)
    res = ReducedPDDP(prior, backend="block").solve(1.0)
    names = [name for name, _ in res.stats.attempts]
    assert names[0] == BLOCK_SOLVER_NAME and "certificate" in res.stats.attempts[0][1]
    assert names[-1] == "CLARABEL-direct"
    assert res.value == pytest.approx(ref.value, abs=1e-10)


def test_block_engine_on_the_dense_lp():
    """The same iteration on the dense PD-DP LP written as a flat block LP gives the dense optimum."""
    prior = _priors(3, 3, seed=5)[0]
    lp = PDDP(prior).lp
    eps = 0.9
    src, dst = lp.S1.tocsr().indices, lp.S2.tocsr().indices
    kappa = np.repeat(lp.kappa, lp.N)
    u, nu, lam, s, iters, _ = solve_block_lp(lp.c, lp.A, lp.b, src, dst, kappa, float(np.exp(eps)))
    z, *_ = solve_ratio_lp_structured(lp, eps)
    assert lp.c @ u == pytest.approx(lp.c @ z, abs=1e-9)
    # KKT by hand: c + Aᵀν + (S₁ − rS₂)ᵀλ − s = 0 with λ, s ≥ 0
    r = np.exp(eps)
    G = lp.S1 - r * lp.S2.multiply(np.repeat(lp.kappa, lp.N)[:, None])
    assert np.max(np.abs(lp.c + lp.A.T @ nu + G.T @ lam - s)) <= 1e-9
    assert lam.min() >= 0 and s.min() >= 0


def test_choose_backend():
    assert choose_backend("joint-type", 3, RL.SMALL_LP_SIZE + 1) == "block"
    assert choose_backend("joint-type", 3, RL.SMALL_LP_SIZE) == "clarabel"
    assert choose_backend("joint-type", 2, 10**6) == "clarabel"
    assert choose_backend("distance", 3, 10**6) == "clarabel"
    assert ReducedPDDP(symmetric_iid(4, [0.2, 0.3, 0.5])).backend == "clarabel"
    with pytest.raises(InvalidInputError, match="'nope'"):
        ReducedPDDP(symmetric_iid(4, [0.2, 0.3, 0.5]), backend="nope")


def test_block_memory_guard_falls_back(monkeypatch):
    """Blocks whose dense factors exceed MAX_BLOCK_BYTES are not attempted: Clarabel answers, as recorded."""
    import problems.orbit.block_ipm as B

    prior = _priors(4, 3, seed=4)[0]
    monkeypatch.setattr(B, "MAX_BLOCK_BYTES", 1.0)
    res = ReducedPDDP(prior, backend="block").solve(0.7)
    assert res.stats.attempts[0][0] == BLOCK_SOLVER_NAME and "GB" in res.stats.attempts[0][1]
    assert res.stats.solver == "CLARABEL-direct"
    assert res.value == pytest.approx(ReducedPDDP(prior, backend="clarabel").solve(0.7).value, abs=1e-10)


@pytest.mark.slow
def test_m3_n10_block_is_chosen_and_agrees():
    """Issue 6's m = 3, n = 10 PD-DP at ε = 1: auto picks the block method; Clarabel's value (65 s) agrees."""
    res = ReducedPDDP(symmetric_iid(10, [0.2, 0.3, 0.5])).solve(1.0)
    assert res.stats.solver == BLOCK_SOLVER_NAME
    assert res.certificate.max_residual <= 1e-8
    # CLARABEL-direct in benchmarks/bench_orbit.py: 4.1515313866 (certificate 6.9e-10)
    assert res.value == pytest.approx(4.1515313866, abs=5e-8)


def test_better_of_two_certified_points_is_kept(monkeypatch):
    """If Clarabel's fallback certifies worse than the rejected block point, the block point is returned."""
    prior = _priors(4, 3, seed=2)[0]
    prog = ReducedPDDP(prior, backend="block")
    monkeypatch.setattr(RL, "BLOCK_ACCEPT", 0.0)  # reject the block point
    clarabel = prog.lp._clarabel_solution

    def worse(*args, **kwargs):
        sol = clarabel(*args, **kwargs)
        bad = sol.certificate.__class__(**{**sol.certificate.__dict__, "dual_residual": 1.0})
        return sol.__class__(**{**sol.__dict__, "certificate": bad})

    monkeypatch.setattr(prog.lp, "_clarabel_solution", worse)
    res = prog.solve(1.0)
    assert res.stats.solver == BLOCK_SOLVER_NAME
    assert "kept" in res.stats.attempts[-1][1] and res.stats.attempts[-2][0] == "CLARABEL-direct"
    assert res.certificate.max_residual <= 1e-8

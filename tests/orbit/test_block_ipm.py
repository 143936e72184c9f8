"""The block interior-point method of the reduced LPs (problems/ipm/block.py), alone and as the BLOCK back end."""

from __future__ import annotations

import numpy as np
import pytest

from problems.database import DatabaseSpace
from problems.errors import InvalidInputError
from problems.ipm.block import RaggedBlockSystem, solve_block_lp
from problems.ipm.structured import solve_ratio_lp_structured
from problems.orbit import ReducedPDDP, ReducedPDI, symmetric_iid
from problems.orbit import reduced_lp as RL
from problems.orbit.programs import choose_backend
from problems.priors import exchangeable_mixture, iid
from problems.programs import PDDP, PDI

NAME = "BLOCK"


def _priors(n, m, seed):
    rng = np.random.default_rng(seed)
    S = DatabaseSpace(n, m)
    return [
        iid(S, rng.dirichlet(np.ones(m)) * 0.8 + 0.2 / m),
        exchangeable_mixture(S, [rng.dirichlet(np.ones(m)) * 0.7 + 0.3 / m for _ in range(2)], [0.4, 0.6]),
    ]


def _overlap(a, b) -> bool:  # noqa: ANN001
    """Two enclosures of the same optimum must intersect."""
    return max(a.bounds.lower, b.bounds.lower) <= min(a.bounds.upper, b.bounds.upper) * (1 + 1e-12)


def test_blocks_are_the_y_types():
    """The connected components of the moves are exactly the sets of joint types with one column sum."""
    prog = ReducedPDDP(symmetric_iid(4, [0.2, 0.3, 0.5]), solver="clarabel")
    spec, J = prog.lp.spec, prog.types
    sysm = RaggedBlockSystem(spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, np.e)
    assert sysm.nblocks == 15  # C(4 + 2, 2) y-types
    y = J.x_type_index(J.y_types)[sysm.order]  # y-type of each variable in block order
    for k in range(sysm.nblocks):
        assert np.unique(y[sysm.offsets[k] : sysm.offsets[k + 1]]).size == 1
    # ratio rows stay inside their block
    blk = np.repeat(np.arange(sysm.nblocks), np.diff(sysm.offsets))
    assert np.array_equal(blk[sysm.pi], blk[sysm.pj])


@pytest.mark.parametrize("n,m", [(5, 2), (3, 3)])
def test_block_backend_matches_dense(n, m):
    """solver="block" = the dense PD-DP / PD-I (Wang, Ying & Zhang 2016 (13)–(15), (8)–(12)): enclosures overlap, both certified."""
    for prior in _priors(n, m, seed=7 * n + m):
        rd, ri = ReducedPDDP(prior, solver="block"), ReducedPDI(prior, solver="block")
        dd, di = PDDP(prior), PDI(prior)
        for eps in (0.5, 1.7):
            a, b = dd.solve(eps), rd.solve(eps, method="lp")
            assert b.stats.attempts[0][0] == NAME, b.stats.attempts
            assert a.status == b.status == "optimal" and _overlap(a, b)
            e = ri.eps_X + 0.2 + eps
            a, b = di.solve(e, method="lp"), ri.solve(e, method="lp")
            assert a.status == b.status == "optimal" and _overlap(a, b)


@pytest.mark.parametrize("eps", [0.3, 1.5])
def test_block_backend_matches_clarabel_m3(eps):
    """m = 3, n = 6 (462 joint types in 28 blocks): both back ends certified, enclosures overlap."""
    for prior in _priors(6, 3, seed=11):
        a = ReducedPDDP(prior, solver="clarabel").solve(eps, method="lp")
        b = ReducedPDDP(prior, solver="block").solve(eps, method="lp")
        assert b.stats.attempts[0][0] == NAME
        assert a.status == b.status == "optimal" and _overlap(a, b)
        # the returned u is a conditional pmf per x-type: rows of A u = 1
        assert np.allclose(ReducedPDDP(prior).lp.spec.A @ b.extras["u"], 1.0, atol=1e-12)


def test_block_engine_on_the_dense_lp():
    """The same iteration on the dense PD-DP LP written as a flat block LP gives the dense optimum."""
    prior = _priors(3, 3, seed=5)[0]
    lp = PDDP(prior).lp
    spec, lay = lp.spec, lp.spec.dense
    eps = 0.9
    u, nu, lam, s, iters, _ = solve_block_lp(
        spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, float(np.exp(eps))
    )
    z, *_ = solve_ratio_lp_structured(spec.c.reshape(lay.N, lay.N), spec.b, lay.pi, lay.pj, lay.kappa, eps)
    assert spec.c @ u == pytest.approx(spec.c @ z, rel=1e-9)
    # KKT by hand: c + Aᵀν + Gᵀλ − s = 0 with λ, s ≥ 0
    assert np.max(np.abs(spec.c + spec.A.T @ nu + spec.ratio_matrix(eps).T @ lam - s)) <= 1e-9
    assert lam.min() >= 0 and s.min() >= 0


def test_choose_backend():
    assert choose_backend("joint-type", 3, RL.SMALL_LP_SIZE + 1) == "block"
    assert choose_backend("joint-type", 3, RL.SMALL_LP_SIZE) == "clarabel"
    assert choose_backend("joint-type", 2, 10**6) == "block"  # layered blocks (problems.ipm.layered)
    assert choose_backend("joint-type", 2, 1000) == "clarabel"
    assert choose_backend("distance", 3, 10**6) == "clarabel"
    assert ReducedPDDP(symmetric_iid(4, [0.2, 0.3, 0.5])).backend == "clarabel"
    with pytest.raises(InvalidInputError, match="'nope'"):
        ReducedPDDP(symmetric_iid(4, [0.2, 0.3, 0.5]), solver="nope")


def test_block_memory_guard_falls_back(monkeypatch):
    """Blocks whose dense factors exceed MAX_BLOCK_BYTES (and are not to be factorised sparsely) are not
    attempted: Clarabel answers, as recorded."""
    import problems.ipm.block as B

    prior = _priors(4, 3, seed=4)[0]
    monkeypatch.setattr(B, "MAX_BLOCK_BYTES", 1.0)
    monkeypatch.setattr(B, "SPARSE_BLOCKS", False)
    res = ReducedPDDP(prior, solver="block").solve(0.7, method="lp")
    assert res.stats.attempts[0][0] == NAME and "GB" in res.stats.attempts[0][1]
    assert res.stats.solver == "CLARABEL" and res.status == "optimal"
    assert _overlap(res, ReducedPDDP(prior, solver="clarabel").solve(0.7, method="lp"))


@pytest.mark.slow
def test_m3_n10_block_is_chosen_and_agrees():
    """m = 3, n = 10 PD-DP at ε = 1: auto picks the block method; Clarabel's value (65 s) lies in its bounds."""
    res = ReducedPDDP(symmetric_iid(10, [0.2, 0.3, 0.5])).solve(1.0, method="lp")
    assert res.stats.solver == NAME and res.status == "optimal"
    # CLARABEL-direct in benchmarks/bench_orbit.py: 4.1515313866 (certificate 6.9e-10)
    assert res.bounds.lower - 5e-8 <= 4.1515313866 <= res.bounds.upper + 5e-8

"""Sparse block factors of the m ≥ 3 reduced LPs (problems/ipm/sparse_block.py) and the LDLᵀ memory guard
of the chain (problems/solvers/kkt_memory.py), against references built without them."""

from __future__ import annotations

import numpy as np
import pytest

import problems.ipm.block as B
import problems.ipm.sparse_block as SB
from problems.database import DatabaseSpace
from problems.ipm.block import RaggedBlockSystem
from problems.lp import solve as solve_lp
from problems.orbit import ReducedPDDP, ReducedPDI, symmetric_iid
from problems.priors import exchangeable_mixture, iid
from problems.programs import PDDP, PDI
from problems.solvers.kkt_memory import ldl_factor_entries, predicted_ldl_memory


def _priors(n: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    S = DatabaseSpace(n, 3)
    return [
        iid(S, [0.2, 0.3, 0.5]),
        exchangeable_mixture(S, [rng.dirichlet(np.ones(3)) * 0.7 + 0.1 for _ in range(2)], [0.35, 0.65]),
    ]


@pytest.fixture
def all_sparse(monkeypatch):
    """Every block through SuperLU (no dense small blocks), and the sparse method chosen for any block size."""
    monkeypatch.setattr(SB, "SPARSE_MIN_SIZE", 0)
    monkeypatch.setattr(B, "SPARSE_MIN_BLOCK", 0)


def test_sparse_newton_solve_equals_a_dense_kkt_solve(all_sparse):
    """One Newton solve of the sparse factor = numpy's dense solve of [[H, Aᵀ], [A, 0]] (assembled here)."""
    spec = ReducedPDDP(symmetric_iid(4, [0.2, 0.3, 0.5])).lp.spec
    sysm = RaggedBlockSystem(spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, np.e, bounded=False)
    assert sysm.sparse and sysm.nblocks == 15
    rng = np.random.default_rng(0)
    D = np.exp(rng.normal(0.0, 2.0, sysm.P))
    diag, off = sysm.H_parts(D, np.zeros(sysm.K))
    fac = sysm.factor(diag, off, 1, {})
    f, g = rng.normal(size=sysm.K), rng.normal(size=sysm.E)
    work = np.empty(sysm.K)
    dnu, _ = fac.coupling(fac.forward(f, slice(None), work) - g, f)  # S Δν = A H⁻¹ f − g
    du = fac.backward(f, dnu, slice(None), work)  # H Δu = f − Aᵀ Δν
    # the reference: H from its definition Gᵀ D G, dense
    G = np.zeros((sysm.P, sysm.K))
    G[np.arange(sysm.P), sysm.pi] = sysm.a_i
    G[np.arange(sysm.P), sysm.pj] = sysm.a_j
    H = G.T @ (D[:, None] * G)
    A = sysm.Acsr.toarray()
    kkt = np.block([[H, A.T], [A, np.zeros((sysm.E, sysm.E))]])
    ref = np.linalg.solve(kkt, np.concatenate([f, g]))
    assert np.allclose(du, ref[: sysm.K], rtol=1e-8, atol=1e-10 * np.abs(ref).max())
    assert np.allclose(dnu, ref[sysm.K :], rtol=1e-8, atol=1e-10 * np.abs(ref).max())


def test_sparse_blocks_certify_the_dense_optimum(all_sparse, highs_optimum):
    """m = 3, n = 3: the sparse block method certifies PD-DP and PD-I, and its bounds hold the optimum of the
    *dense* program (27 × 27 mechanism, Wang, Ying & Zhang 2016) from one plain HiGHS call."""
    for prior in _priors(3, seed=3):
        for eps in (0.4, 1.6):
            res = ReducedPDDP(prior, solver="block").solve(eps, method="lp")
            assert res.stats.attempts[0][0] == "BLOCK" and "certified" in res.stats.attempts[0][1]
            ref = highs_optimum(PDDP(prior).lp.spec, eps)
            assert res.status == "optimal"
            assert res.bounds.lower - 1e-9 <= ref <= res.bounds.upper + 1e-9
            assert res.value == pytest.approx(ref, rel=1e-6)
        ri = ReducedPDI(prior, solver="block")
        e = ri.eps_X + 0.5
        res = ri.solve(e, method="lp")
        ref = highs_optimum(PDI(prior).lp.spec, e)
        assert res.status == "optimal" and res.value == pytest.approx(ref, rel=1e-6)


@pytest.mark.slow
def test_sparse_blocks_n4_matches_the_dense_program(all_sparse, highs_optimum):
    """m = 3, n = 4, PD-DP at ε = 1: certified by the sparse block method; the dense program (81 × 81) agrees."""
    prior = _priors(4, seed=4)[0]
    res = ReducedPDDP(prior, solver="block").solve(1.0, method="lp")
    assert res.stats.solver == "BLOCK" and res.status == "optimal"
    ref = highs_optimum(PDDP(prior).lp.spec, 1.0)
    assert res.bounds.lower - 1e-9 <= ref <= res.bounds.upper + 1e-9


def test_sparse_memory_guard_falls_back(all_sparse, monkeypatch):
    """Sparse factors predicted over the budget are refused after the largest block; the chain goes on."""
    monkeypatch.setattr(SB, "memory_budget", lambda: 1)
    prior = _priors(3, seed=4)[0]
    res = ReducedPDDP(prior, solver="block").solve(0.7, method="lp")
    assert res.stats.attempts[0][0] == "BLOCK" and "sparse block factors" in res.stats.attempts[0][1]
    assert res.status == "optimal" and res.stats.solver != "BLOCK"


def test_dense_block_refusal_goes_sparse(monkeypatch):
    """Blocks whose dense factors exceed MAX_BLOCK_BYTES are factorised sparsely instead of refused."""
    monkeypatch.setattr(B, "MAX_BLOCK_BYTES", 1.0)
    prior = _priors(3, seed=4)[0]
    spec = ReducedPDDP(prior).lp.spec
    assert RaggedBlockSystem(spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, np.e).sparse
    res = ReducedPDDP(prior, solver="block").solve(0.7, method="lp")
    assert res.stats.solver == "BLOCK" and res.status == "optimal"


def test_ldl_back_ends_are_skipped_over_budget(monkeypatch):
    """A reduced LP whose predicted LDLᵀ memory exceeds the budget: Clarabel (and SCS) are not started, with the
    reason in the attempts, and HiGHS answers."""
    monkeypatch.setenv("PRIVACY_PROBLEMS_MEMORY_LIMIT", "200M")
    spec = ReducedPDDP(symmetric_iid(3, [0.2, 0.3, 0.5])).lp.spec
    spec.cache["ldl_entries"] = 1e9  # as predicted for a large program
    sol = solve_lp(spec, 0.8, solver="clarabel")
    name, outcome = sol.stats.attempts[0]
    assert name == "CLARABEL" and outcome.startswith("error: not run: Clarabel would need about")
    assert sol.status == "optimal" and sol.stats.solver == "HIGHS"


def test_ldl_prediction_grows_with_the_lattice():
    """The prediction exceeds the program's own size and grows faster than linearly in n for m = 3."""
    sizes = []
    for n in (4, 6, 8):
        spec = ReducedPDDP(symmetric_iid(n, [0.2, 0.3, 0.5])).lp.spec
        entries = ldl_factor_entries(spec)
        assert entries > 2 * spec.P + spec.K
        assert predicted_ldl_memory(spec) > entries
        sizes.append(entries / spec.K)
    assert sizes[0] < sizes[1] < sizes[2]

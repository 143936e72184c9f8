"""Newton directions of the block interior-point method refined by flexible GMRES (problems/ipm/krylov.py).

Reference independent of the code under test: the unreduced Newton system (1)–(5) of
:class:`problems.ipm.iteration._Newton`, assembled here as one sparse matrix and solved by SciPy's sparse LU.
The products with G and A are read off the system column by column (they are checked against a separately
built sparse matrix in ``test_layered_blocks.py``).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from problems.ipm import krylov
from problems.ipm.block import RaggedBlockSystem
from problems.ipm.iteration import _Newton
from problems.orbit import ReducedPDI
from problems.orbit.symmetric_prior import parse_symmetric_prior

MIXTURE = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"


def _columns(fn, size: int) -> sp.csc_matrix:
    """The matrix of a linear map, one unit vector at a time."""
    cols = []
    for k in range(size):
        e = np.zeros(size)
        e[k] = 1.0
        cols.append(sp.csc_matrix(fn(e).reshape(-1, 1)))
    return sp.hstack(cols).tocsc()


def _setup(n: int, seed: int):
    spec = ReducedPDI(parse_symmetric_prior(MIXTURE, n, 2)).lp.spec
    sysm = RaggedBlockSystem(spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(1.3))
    assert sysm.layers is not None and sysm.krylov and sysm.bounded
    rng = np.random.default_rng(seed)
    K, P, E = sysm.K, sysm.P, sysm.E
    # an interior iterate with complementarity products spread over eight orders (as late iterates have)
    zt, s = np.exp(rng.uniform(-8, 0, K)), np.exp(rng.uniform(-8, 0, K))
    w, lam = np.exp(rng.uniform(-8, 0, P)), np.exp(rng.uniform(-8, 0, P))
    G = _columns(sysm.G, K)
    A = _columns(sysm.A, K)
    assert G.shape == (P, K) and A.shape == (E, K)
    return sysm, rng, (zt, w, lam, s), G, A


def _reference(G, A, it, r_d, r_p, r_g, r_l, r_s):
    """(Δz, Δw, Δν, Δλ, Δs) of (1) AᵀΔν + GᵀΔλ − Δs = −r_d, (2) AΔz = −r_p, (3) GΔz + Δw = −r_g,
    (4) ΛΔw + WΔλ = r_λ, (5) SΔz + ZΔs = r_s, by sparse LU of the whole system."""
    zt, w, lam, s = it
    P, K = G.shape
    E = A.shape[0]
    I_K, I_P = sp.identity(K), sp.identity(P)
    M = sp.bmat(
        [
            [None, None, A.T, G.T, -I_K],
            [A, None, None, None, None],
            [G, I_P, None, None, None],
            [None, sp.diags(lam), None, sp.diags(w), None],
            [sp.diags(s), None, None, None, sp.diags(zt)],
        ],
        format="csc",
    )
    rhs = np.concatenate([-r_d, -r_p, -r_g, r_l, r_s])
    x = spla.spsolve(M, rhs)
    cuts = np.cumsum([K, P, E, P])
    return np.split(x, cuts)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("homogeneous", [True, False])
def test_refined_directions_meet_the_refinement_tolerance(threads, homogeneous, monkeypatch):
    """The residuals of a refined direction in each of (1)–(5), from the sparse matrices, with and without the
    feasibility residuals (a centrality corrector's system, whose Δw and Δλ are formed after the refinement from
    the refined Δz, and the predictor's), on one thread and with the products split over two.  The solves use
    the factorisation of a perturbed normal matrix (its diagonal off by up to 5 %): the unrefined direction then
    misses (2) and (5) by far more than the tolerance, and only the refinement's combination of corrections
    meets it.  (1), (3) and (4) hold to rounding; (2) to REFINE_TOL of ‖b‖; (5) to REFINE_TOL_COMPLEMENTARITY of
    max(|r_s|, μ), or REFINE_TOL_BASIC of zs where s < z."""
    from problems.ipm import iteration

    solves = []
    raw = _Newton.raw

    def counted(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        solves.append(1)
        return raw(self, *a, **k)

    monkeypatch.setattr(_Newton, "raw", counted)
    sysm, rng, it, G, A = _setup(6, 11)
    zt, w, lam, s = it
    K, P, E = sysm.K, sysm.P, sysm.E
    diag, off = sysm.H_parts(lam / w, s / zt)
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    try:
        sysm.use_pool(pool)
        fac = sysm.factor(diag * (1.0 + 0.05 * rng.random(K)), off, threads, {}, pool)
        r_d, r_p, r_g = rng.standard_normal(K), rng.standard_normal(E), rng.standard_normal(P)
        r_s, r_l = rng.standard_normal(K) * zt * s, rng.standard_normal(P) * w * lam
        mu = float(np.mean(np.concatenate([zt * s, w * lam])))
        newton = _Newton(sysm, fac, zt, w, lam, s, r_d, r_p, r_g, mu, 1.0, pool)
        bare = newton.solve(r_s.copy(), [r_l.copy()], homogeneous=homogeneous, refine=False)
        solves.clear()
        dz, dw, dnu, dlam, ds = newton.solve(r_s.copy(), [r_l.copy()], homogeneous=homogeneous, refine=True)
    finally:
        sysm.use_pool(None)
        if pool is not None:
            pool.shutdown()
    assert len(solves) >= 3  # the unrefined solve and its corrections
    if homogeneous:
        r_d, r_p, r_g = np.zeros(K), np.zeros(E), np.zeros(P)
    scale5 = np.maximum(np.abs(r_s), mu) * iteration.REFINE_TOL_COMPLEMENTARITY
    scale5 = np.maximum(scale5, np.where(s < zt, iteration.REFINE_TOL_BASIC * zt * s, 0.0))
    e5 = r_s - (s * dz + zt * ds)
    e2 = -r_p - A @ dz
    assert np.max(np.abs(e5) / scale5) <= 1.5
    assert np.max(np.abs(e2)) <= 1.5 * iteration.REFINE_TOL
    e5_bare = r_s - (s * bare[0] + zt * bare[4])
    assert np.max(np.abs(e5_bare) / scale5) > 100.0  # the perturbed solve alone is far off
    size = max(1.0, float(np.max(np.abs(np.concatenate([dz, dw, dnu, dlam, ds])))))
    e1 = A.T @ dnu + G.T @ dlam - ds + r_d
    e3 = G @ dz + dw + r_g
    e4 = lam * dw + w * dlam - r_l
    for name, e in (("(1)", e1), ("(3)", e3), ("(4)", e4)):
        assert np.max(np.abs(e)) <= 1e-12 * size, name
    # and the direction is the solution of (1)–(5) to the accuracy its residuals allow
    want = _reference(G, A, it, r_d, r_p, r_g, r_l, r_s)
    np.testing.assert_allclose(dz, want[0], rtol=1e-3, atol=1e-6 * float(np.max(np.abs(want[0]))))


@pytest.mark.parametrize("threads", [1, 2])
def test_slack_of_a_correction_is_the_dual_equation_of_it(threads):
    """Δs = Gᵀ(ΛW⁻¹GΔz) + AᵀΔν, the dual equation (1) of a correction with zero residuals, against the sparse
    matrices' own products."""
    sysm, rng, it, G, A = _setup(8, 5)
    zt, w, lam, s = it
    D, Es = lam / w, s / zt
    diag, off = sysm.H_parts(D, Es)
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    try:
        sysm.use_pool(pool)
        fac = sysm.factor(diag, off, threads, {}, pool)
        newton = _Newton(sysm, fac, zt, w, lam, s, None, None, None, 1.0, 1.0, pool)
        dz, dnu = rng.standard_normal(sysm.K), rng.standard_normal(sysm.E)
        want = G.T @ (D * (G @ dz)) + A.T @ dnu
        np.testing.assert_allclose(krylov.slack_of(newton, dz, dnu), want, rtol=1e-12, atol=1e-12)
    finally:
        sysm.use_pool(None)
        if pool is not None:
            pool.shutdown()

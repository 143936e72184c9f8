"""The banded factorisation of layered blocks (problems/ipm/layered.py): m = 2 joint-type LPs.

References independent of the code under test: a dense Cholesky of the same normal matrix H_b (NumPy) and the
optimum of the reduced LP from SciPy's HiGHS; the method's answers go through the toolkit's certificate.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from layered_systems import random_normal_system  # tests/orbit (pytest puts it on the path)

from problems.errors import InvalidInputError
from problems.ipm.block import RaggedBlockSystem, solve_block_lp
from problems.ipm.layered import LayeredFactor
from problems.orbit import ReducedPDDP, ReducedPDI, symmetric_iid
from problems.orbit.symmetric_prior import parse_symmetric_prior
from problems.solvers import solve as solve_lp

MIXTURE = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"


def test_m2_blocks_are_layered_and_m3_blocks_are_not():
    spec2 = ReducedPDDP(symmetric_iid(8, [0.3, 0.7])).lp.spec
    s2 = RaggedBlockSystem(spec2.c, spec2.A, spec2.b, spec2.src, spec2.dst, spec2.kappa, math.e)
    assert s2.layers is not None and s2.nblocks == 9
    assert int(s2.layers.kd.max()) <= 8 // 2 + 2  # half-bandwidth ~ min(j, n − j) + 1
    spec3 = ReducedPDDP(symmetric_iid(4, [0.2, 0.3, 0.5])).lp.spec
    s3 = RaggedBlockSystem(spec3.c, spec3.A, spec3.b, spec3.src, spec3.dst, spec3.kappa, math.e)
    assert s3.layers is None
    with pytest.raises(InvalidInputError):
        RaggedBlockSystem(spec3.c, spec3.A, spec3.b, spec3.src, spec3.dst, spec3.kappa, math.e, layered=True)


def test_layered_system_is_in_band_order_and_its_products_split_over_threads():
    """The layered system keeps its variables in band order (the banded solves need no permutation), and the
    products with G and Gᵀ split at a block boundary over two threads give the same numbers as SciPy's product
    of the whole matrix (a sparse matrix built here from the ratio rows, the reference)."""
    from concurrent.futures import ThreadPoolExecutor

    import scipy.sparse as sp

    spec = ReducedPDDP(parse_symmetric_prior(MIXTURE, 12, 2)).lp.spec
    r = math.exp(0.5)
    s = RaggedBlockSystem(spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, r)
    assert s.layers is not None
    # band order: blocks contiguous, layers non-decreasing inside each block (the variable's linking row)
    layer = np.asarray(s._layer)
    block = np.repeat(np.arange(s.nblocks), np.diff(s.offsets))
    assert np.all((np.diff(block) > 0) | (np.diff(layer) >= 0))
    # G in the system's order and scaling: row p is g_p (u_src − rκ_p u_dst), g_p = 1/max(1, rκ_p), rows in the
    # system's row order
    rk = r * np.asarray(spec.kappa, dtype=float)
    g = 1.0 / np.maximum(1.0, rk)
    rows = np.empty(spec.P, dtype=np.intp)
    rows[np.asarray(s.rorder)] = np.arange(spec.P)
    i, j = np.asarray(s.pos)[spec.src], np.asarray(s.pos)[spec.dst]
    G = sp.csr_matrix(
        (np.concatenate([g, -rk * g]), (np.concatenate([rows, rows]), np.concatenate([i, j]))),
        shape=(spec.P, spec.K),
    )
    rng = np.random.default_rng(3)
    u, v = rng.random(spec.K), rng.random(spec.P)
    # Gᵀ is kept only as its two diagonal pieces, each owning its entries (no second copy of half of them)
    assert s._halves is not None and s.G0T is None
    for piece in s._halves:
        for a in (piece[4].data, piece[4].indices):
            owner = a
            while isinstance(owner.base, np.ndarray):
                owner = owner.base
            assert owner.nbytes == a.nbytes
    with ThreadPoolExecutor(2) as pool:
        s.use_pool(pool)
        Gu, GTv = s.G(u), s.GT(v)
        np.testing.assert_allclose(Gu, G @ u, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(GTv, G.T @ v, rtol=1e-14, atol=1e-15)
        s.use_pool(None)
    # one piece after the other without the threads: the same sums, bit for bit
    np.testing.assert_array_equal(s.G(u), Gu)
    np.testing.assert_array_equal(s.GT(v), GTv)
    # the linking rows in the system's order: A u and Aᵀν against the LP's own sparse A, columns permuted
    A = sp.csr_matrix(spec.A)[:, np.asarray(s.order)]
    nu = rng.random(spec.G)
    np.testing.assert_allclose(s.A(u), A @ u, rtol=1e-14)
    np.testing.assert_array_equal(s.AT(nu), A.T @ nu)


@pytest.mark.parametrize("tile", [0, 1, 2])
@pytest.mark.parametrize("n", [3, 7, 12])
def test_layered_solves_equal_dense_solves_of_the_normal_equations(n, tile, monkeypatch):
    """H⁻¹f, A H⁻¹ f and the Schur complement against a dense NumPy factorisation of the same H (the Schur
    complement by banded triangular solves, tile = 0, and by level-3 tiles of 1 and 2 bandwidths)."""
    import problems.ipm.layered as layered

    monkeypatch.setattr(layered, "TILE_ROWS", tile)
    ns = random_normal_system(ReducedPDI, MIXTURE, n, 1.3, seed=n, spread=6.0)
    spec, sysm, rng, D, E, diag, off = ns.spec, ns.sysm, ns.rng, ns.D, ns.E, ns.diag, ns.off
    fac = sysm.factor(diag, off, 1, {})
    assert isinstance(fac, LayeredFactor)
    # the ratio rows in the system's order, scaled by 1/max(1, rκ), from the spec
    pi, pj = sysm.pos[spec.src[sysm.rorder]], sysm.pos[spec.dst[sysm.rorder]]
    coef = -math.exp(1.3) * spec.kappa[sysm.rorder]
    g = 1.0 / np.maximum(1.0, np.abs(coef))
    # layered blocks return one off-diagonal entry per unordered pair of rows (r1 with its reverse r2)
    r1 = sysm._off_rows[0]
    assert off.shape == r1.shape and 2 * r1.size == sysm.P
    H = np.zeros((sysm.K, sysm.K))
    H[pi[r1], pj[r1]] = off
    H[pj[r1], pi[r1]] = off
    H[np.arange(sysm.K), np.arange(sysm.K)] = diag
    # the same H as the ratio rows give: GᵀDG + E
    G = np.zeros((sysm.P, sysm.K))
    G[np.arange(sysm.P), pi] = g
    G[np.arange(sysm.P), pj] = coef * g
    np.testing.assert_allclose(
        H, G.T @ (D[:, None] * G) + np.diag(E), rtol=1e-12, atol=1e-12 * np.abs(H).max()
    )
    f = rng.standard_normal(sysm.K)
    x = np.linalg.solve(H, f)
    np.testing.assert_allclose(fac.hinv(f), x, rtol=1e-8, atol=1e-10 * np.abs(x).max())
    Ad = spec.A.toarray()[:, sysm.order]
    S = Ad @ np.linalg.solve(H, Ad.T)
    np.testing.assert_allclose(
        fac.forward(f, slice(None), None), Ad @ x, rtol=1e-8, atol=1e-10 * np.abs(Ad @ x).max()
    )
    dnu = rng.standard_normal(sysm.E)
    y = np.linalg.solve(H, f - Ad.T @ dnu)
    np.testing.assert_allclose(
        fac.backward(f, dnu, slice(None), None), y, rtol=1e-8, atol=1e-10 * np.abs(y).max()
    )
    import scipy.linalg as sla

    np.testing.assert_allclose(sla.cho_solve(fac.S_cho, Ad @ x), np.linalg.solve(S, Ad @ x), rtol=1e-7)


@pytest.mark.parametrize(
    ("prior", "eps"),
    [("iid:0.3,0.7", 1.5), (MIXTURE, 0.5), (MIXTURE, 3.0), ("contagious:0.2", 1.0)],
)
def test_block_backend_on_layered_blocks_is_certified_and_matches_highs(prior, eps, highs_optimum):
    """PD-DP, n = 20, through the chain with the block method first: certified, and equal to HiGHS."""
    spec = ReducedPDDP(parse_symmetric_prior(prior, 20, 2)).lp.spec
    sol = solve_lp(spec, eps, solver="block")
    ref = highs_optimum(spec, eps)
    assert str(sol.status) == "optimal"
    assert sol.bounds.lower - 1e-9 <= ref <= sol.bounds.upper + 1e-9
    assert abs(sol.value - ref) <= 1e-6 * ref


def test_layered_and_dense_block_factors_give_the_same_iterates():
    """Same IPM, two factorisations of the same H_b: the same answer to the solver's accuracy."""
    spec = ReducedPDDP(parse_symmetric_prior("iid:0.3,0.7", 10, 2)).lp.spec
    args = (spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(1.0))
    u1, *_ = solve_block_lp(*args, layered=True)
    u2, *_ = solve_block_lp(*args, bounded=True, layered=False)
    assert abs(spec.c @ u1 - spec.c @ u2) <= 1e-7 * spec.c @ u2


@pytest.mark.parametrize("layered", [True, False])
def test_the_block_method_from_log_kappa_returns_what_it_returns_from_kappa(layered):
    """ln κ instead of κ (the chain's call: no P-vector of κ kept) gives the same iterates, bit for bit."""
    spec = ReducedPDDP(parse_symmetric_prior(MIXTURE, 12, 2)).lp.spec
    args = (spec.c, spec.A, spec.b, spec.src, spec.dst)
    one = solve_block_lp(*args, spec.kappa, math.exp(1.0), layered=layered)
    two = solve_block_lp(*args, None, math.exp(1.0), layered=layered, log_kappa=spec.log_kappa)
    for a, b in zip(one[:4], two[:4]):
        assert np.array_equal(a, b)
    assert one[4] == two[4]
    with pytest.raises(InvalidInputError, match="κ or ln κ"):
        solve_block_lp(*args, None, math.exp(1.0))


def test_enough_ends_the_iteration_at_the_first_iterate_it_accepts(highs_optimum):
    """The early-stop test is asked only once the duality gap is small, and its first yes ends the iteration."""
    from problems.ipm.structured import ENOUGH_GAP

    spec = ReducedPDDP(parse_symmetric_prior(MIXTURE, 12, 2)).lp.spec
    args = (spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(1.0))
    *_, full, _t = solve_block_lp(*args)
    asked: list[float] = []

    def enough(u, nu, lam) -> bool:  # noqa: ANN001
        assert u.shape == (spec.K,) and nu.shape == (spec.G,) and lam.shape == (spec.P,)
        asked.append(float(spec.c @ u))
        return len(asked) == 2

    u, *_, early, _t = solve_block_lp(*args, enough=enough)
    assert len(asked) == 2 and early < full
    ref = highs_optimum(spec, 1.0)
    assert abs(spec.c @ u - ref) <= 10 * ENOUGH_GAP * ref  # asked only near the optimum


@pytest.mark.parametrize("krylov", [0, 6])
@pytest.mark.parametrize("prior", ["iid:0.3,0.7", MIXTURE])
def test_chain_stops_the_block_method_once_certified(prior, krylov, highs_optimum, monkeypatch):
    """Through the chain (which passes its certificate as the early-stop test): certified, equal to HiGHS, with
    Richardson (krylov = 0) and flexible GMRES refinement of the Newton solves."""
    import problems.ipm.iteration as iteration

    monkeypatch.setattr(iteration, "KRYLOV_DIM", krylov)
    spec = ReducedPDI(parse_symmetric_prior(prior, 16, 2)).lp.spec
    eps = spec.eps_min + 0.3
    sol = solve_lp(spec, eps, solver="block")
    ref = highs_optimum(spec, eps)
    assert str(sol.status) == "optimal"
    assert sol.bounds.lower - 1e-9 <= ref <= sol.bounds.upper + 1e-9
    assert abs(sol.value - ref) <= 1e-6 * ref


@pytest.mark.slow
def test_pd_i_n100_is_certified():
    """i.i.d. (0.3, 0.7), n = 100, PD-I at ε_X + 0.3: the block point breaks rows on entries of ~1e-22 only; the
    closure repairs it.  References independent of the block method (HiGHS fails on this LP): the safe dual bound
    from Clarabel's multipliers (Clarabel is inaccurate here: its bound is 0.4 % below the value), and E_d at ε − ε_X, feasible in closed form, so the
    value is at most h(ε − ε_X) (Wang, Ying & Zhang 2016, Theorem 1)."""
    from problems.closed_forms import h
    from problems.lp.bounds import lower_bound
    from problems.solvers.backends import ClarabelBackend

    prog = ReducedPDI(parse_symmetric_prior("iid:0.3,0.7", 100, 2))
    spec = prog.lp.spec
    eps = spec.eps_min + 0.3
    res = prog.solve(eps, method="lp")
    assert str(res.status) == "optimal"
    assert res.bounds.upper - res.bounds.lower <= 1e-6 * res.bounds.upper
    assert res.bounds.lower <= res.value <= res.bounds.upper
    raw = ClarabelBackend().solve(spec, eps, time_limit=600)
    lo_clarabel, _ = lower_bound(spec, eps, raw.nu, raw.lam, res.bounds.upper)  # the proved upper bound
    assert lo_clarabel <= res.bounds.upper
    assert res.value - lo_clarabel <= 1e-2 * res.value
    assert res.value <= float(h(0.3, 100, 2))
    # the single-letterisation theorem (n × the certified one-row program) is a reference built without the LP
    theorem = prog.solve(eps, method="theorem")
    assert abs(res.value - theorem.value) <= 1e-6 * theorem.value


def _exact_dual_residual(sysm: RaggedBlockSystem, nu, lam, s, j: int):  # noqa: ANN001, ANN202
    """c_j + (Aᵀν)_j + (Gᵀλ)_j − s_j in exact rational arithmetic, from the stored floats (Fraction)."""
    from fractions import Fraction

    if sysm._halves is None:
        G, j0, p0 = sysm.G0T, j, 0
    else:  # Gᵀ is kept as its two diagonal pieces (variables r0:r1, ratio rows p0:p1)
        r0, _, p0, _, G, _ = next(h for h in sysm._halves if h[0] <= j < h[1])
        j0 = j - r0
    lo, hi = G.indptr[j0], G.indptr[j0 + 1]
    total = Fraction(sysm.ct[j]) + Fraction(sysm.AT(nu)[j]) - Fraction(s[j])
    for a, p in zip(G.data[lo:hi], G.indices[lo:hi]):
        total += Fraction(a) * Fraction(lam[p0 + p])
    return total


def test_dual_residual_leaves_out_the_rounding_of_large_terms():
    """Multipliers of 1e10 (as on the central path where z_j ≈ 1e-22 and s_j = μ/z_j): s set to the correctly
    rounded exact c + Aᵀν + Gᵀλ, so the exact residual is below half an ulp of s; the float evaluation of r_d
    still shows about 1e-6 of rounding, which the measure leaves out, while a genuine residual is reported."""
    from problems.ipm.iteration import DRES_FLOOR, _dual_residual

    spec = ReducedPDDP(parse_symmetric_prior(MIXTURE, 6, 2)).lp.spec
    sysm = RaggedBlockSystem(spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(0.5))
    rng = np.random.default_rng(3)
    lam = 10.0 ** rng.uniform(-2, 10, sysm.P)
    zero = np.zeros(sysm.K)
    base = np.array(
        [float(_exact_dual_residual(sysm, np.zeros(sysm.E), lam, zero, j)) for j in range(sysm.K)]
    )
    nu = np.zeros(sysm.E)  # ν lifts every reduced cost above 1, as s ≥ 0 on the central path
    np.maximum.at(nu, sysm._layer, 1.0 - base)
    exact = [_exact_dual_residual(sysm, nu, lam, zero, j) for j in range(sysm.K)]
    s = np.array([float(x) for x in exact])  # correctly rounded
    assert np.all(s > 0)
    r_d = sysm.ct + sysm.AT(nu) + sysm.GT(lam) - s
    for j in range(sysm.K):
        assert abs(_exact_dual_residual(sysm, nu, lam, s, j)) <= 2.0**-53 * s[j]
    assert np.max(np.abs(r_d)) > 1e-8  # rounding of terms up to 1e10, counted by the plain max-norm
    assert _dual_residual(sysm, r_d, nu, lam, s) == 0.0
    # a genuine residual of 1e-3 where the terms are smallest is reported, less at most the floor
    terms = sysm.GT_abs(lam) + np.abs(sysm.ct) + np.abs(sysm.AT(nu)) + s
    j = int(np.argmin(terms))
    s2 = s.copy()
    s2[j] += 1e-3
    r_d2 = sysm.ct + sysm.AT(nu) + sysm.GT(lam) - s2
    got = _dual_residual(sysm, r_d2, nu, lam, s2)
    slack = 2 * DRES_FLOOR * (terms[j] + 1e-3)
    assert 1e-3 - slack <= got <= 1e-3 + slack


def test_dual_residual_of_the_iterates_falls_below_its_rounding(monkeypatch):
    """PD-DP, mixture prior, n = 40, ε = 0.5: the multipliers grow to 1e6 (variables of 1e-19 on the central path),
    and the float residual stalls at the rounding of its terms (8.7e-11) while the iteration converges; measured
    beyond that rounding it keeps falling.  At the last iterate the largest float residual is checked against
    the exact one (Fraction): rounding, within the floor."""
    import problems.ipm.iteration as iteration
    from problems.ipm.block import LAYERED_ACCEPT
    from problems.ipm.lapack import BlasThreads

    spec = ReducedPDDP(parse_symmetric_prior(MIXTURE, 40, 2)).lp.spec
    sysm = RaggedBlockSystem(spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(0.5))
    cnorm = 1.0 + float(np.max(np.abs(sysm.ct)))
    seen: list[tuple] = []

    def enough(zt, nu, lam, s) -> bool:  # noqa: ANN001
        r_d = sysm.ct + sysm.AT(nu) + sysm.GT(lam) - s
        plain = float(np.max(np.abs(r_d))) / cnorm
        seen.append((plain, iteration._dual_residual(sysm, r_d, nu, lam, s) / cnorm, nu, lam, s, r_d))
        return False

    monkeypatch.setattr(iteration, "ENOUGH_GAP", 1e-4)
    monkeypatch.setattr(iteration, "ENOUGH_RELATIVE", math.inf)
    with BlasThreads(1), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        iteration.solve_block_angular(sysm, deflate_below=0.0, enough=enough, accept=LAYERED_ACCEPT)
    plain, measured, nu, lam, s, r_d = seen[-1]
    assert float(lam.max()) > 1e5
    assert plain > 1e-11 and measured < 1e-15
    assert min(p for p, *_ in seen) > 1e-11  # the plain residual never got below its rounding
    j = int(np.argmax(np.abs(r_d)))
    terms = abs(sysm.ct[j]) + abs(sysm.AT(nu)[j]) + float(sysm.GT_abs(lam)[j]) + s[j]
    assert abs(_exact_dual_residual(sysm, nu, lam, s, j)) <= iteration.DRES_FLOOR * terms


#: The optimum of the reduced PD-DP LP, mixture prior, n = 100, ε = 0.5, from HiGHS's dual simplex with no time
#: limit (``scipy.optimize.linprog(method="highs-ds")`` on the matrices of ``prog.lp.spec``, default
#: tolerances; 779 CPU s, 1.3 GB): independent of the toolkit's back ends and certificate.  Its multipliers prove
#: 25.000586379 by the toolkit's safe bound (its vertex repairs poorly, to 37.75).
MIXTURE_N100_HIGHS = 25.00058654698248


@pytest.mark.slow
def test_pd_dp_mixture_n100_eps_half_is_certified():
    """The point whose dual residual (rounding on variables of 1e-22 with s ≈ 1e10) grew to 3e-5 and ended the
    block method as stalled at a gap of 3e-6: through the public path, one attempt of the block method, certified,
    and its bounds hold the HiGHS optimum (to HiGHS's tolerance of 1e-7)."""
    prog = ReducedPDDP(parse_symmetric_prior(MIXTURE, 100, 2))
    res = prog.solve(0.5, method="lp")
    assert str(res.status) == "optimal"
    assert res.bounds.upper - res.bounds.lower <= 1e-6 * res.bounds.upper
    ref = MIXTURE_N100_HIGHS
    assert res.bounds.lower - 1e-7 * ref <= ref <= res.bounds.upper + 1e-7 * ref
    assert [name for name, _ in res.stats.attempts] == ["BLOCK"]


def test_layers_refuse_variables_out_of_band_order():
    from problems.ipm.layered import Layers

    with pytest.raises(ValueError, match="band order"):
        Layers(np.array([1, 0]), np.array([0, 0]), 1, 2, np.array([0]), np.array([1]))


def _indefinite_block(seed: int = 5) -> tuple:
    """The layered normal matrix of a reduced PD-I LP (n = 7) with random D and E, its largest block made
    indefinite: smallest eigenvalue −1e-9 of its largest diagonal entry.  Returns the block system, diag, off,
    the dense H (diagonal not yet replaced), the block and its rows."""
    ns = random_normal_system(ReducedPDI, MIXTURE, 7, 1.3, seed=seed)
    spec, sysm, diag, off = ns.spec, ns.sysm, ns.diag, ns.off
    lay = sysm.layers
    assert lay is not None
    pi, pj = sysm.pos[spec.src[sysm.rorder]], sysm.pos[spec.dst[sysm.rorder]]
    r1 = sysm._off_rows[0]
    H = np.zeros((sysm.K, sysm.K))
    H[pi[r1], pj[r1]] = off
    H[pj[r1], pi[r1]] = off
    H[np.arange(sysm.K), np.arange(sysm.K)] = diag
    b = lay.largest_first[0]
    s0, s1 = int(lay.starts[b]), int(lay.starts[b + 1])
    lam_min = float(np.linalg.eigvalsh(H[s0:s1, s0:s1])[0])
    diag = diag.copy()
    diag[s0:s1] -= lam_min + 1e-9 * float(np.max(diag[s0:s1] - lam_min))  # smallest eigenvalue −1e-9·scale
    H[np.arange(sysm.K), np.arange(sysm.K)] = diag
    return sysm, diag, off, H, (pi[r1], pj[r1]), b, s0, s1


def _factor_matrix(c: np.ndarray) -> np.ndarray:
    """The dense L of a lower band factor in LAPACK band storage."""
    kd1, nb = c.shape
    L = np.zeros((nb, nb))
    for r in range(kd1):
        L[np.arange(r, nb), np.arange(nb - r)] = c[r, : nb - r]
    return L


def _first_shift(block: np.ndarray) -> float:
    """The first δ of 1e-14, 1e-12, … whose block with its diagonal times 1 + δ is positive definite (NumPy's
    eigenvalues; the candidates are 100× apart, so the smallest eigenvalues of consecutive ones are far from zero
    on one side or the other)."""
    d = np.diag(block)
    return next(
        delta
        for delta in (1e-14 * 100.0**k for k in range(6))
        if np.linalg.eigvalsh(block + delta * np.diag(d))[0] > 1e-3 * delta * float(np.min(d))
    )


def test_a_block_that_is_not_positive_definite_is_refilled_and_shifted_alone():
    """A block with a negative eigenvalue of 1e-9 of its largest diagonal entry is rebuilt from the normal
    matrix's parts and factorised with its diagonal times 1 + δ for the first δ of 1e-14, 1e-12, … that makes it
    positive definite; every other block keeps its exact factor.  Reference: NumPy's eigenvalues and products of
    the dense blocks."""
    sysm, diag, off, H, _pairs, b, s0, s1 = _indefinite_block()
    lay = sysm.layers
    assert np.linalg.eigvalsh(H[s0:s1, s0:s1])[0] < -0.5e-9 * float(
        np.max(diag[s0:s1])
    )  # not positive definite
    first = _first_shift(H[s0:s1, s0:s1])
    fac = sysm.factor(diag, off, 1, {})
    assert isinstance(fac, LayeredFactor)
    assert fac.shifted == 1
    for blk in range(lay.nblocks):
        a0, a1 = int(lay.starts[blk]), int(lay.starts[blk + 1])
        L = _factor_matrix(fac.factors[blk])
        want = H[a0:a1, a0:a1].copy()
        if blk == b:
            want[np.diag_indices(a1 - a0)] *= 1.0 + first
        np.testing.assert_allclose(L @ L.T, want, rtol=0, atol=1e-12 * np.abs(want).max())


def test_the_shift_does_not_depend_on_the_scaling_of_the_variables():
    """Cholesky's rounding is invariant under a symmetric diagonal scaling ΣHΣ, and so is the shift: the indefinite
    block scaled by σ spanning 1e-10 … 1e10 (as s/u does near the optimum) is shifted by the same relative δ, and
    its factor is Σ times the unscaled one.  A shift relative to the block's largest diagonal entry is not: there
    it is 1e-20 of the largest entry's scale on the smallest ones.  Reference: NumPy's products of the dense
    blocks."""
    sysm, diag, off, H, (pi, pj), b, s0, s1 = _indefinite_block()
    rng = np.random.default_rng(11)
    sigma = 10.0 ** rng.uniform(-10, 10, sysm.K)
    fac = sysm.factor(diag, off, 1, {})
    scaled = sysm.factor(diag * sigma**2, off * sigma[pi] * sigma[pj], 1, {})
    assert fac.shifted == scaled.shifted == 1
    first = _first_shift(H[s0:s1, s0:s1])
    want = H[s0:s1, s0:s1].copy()
    want[np.diag_indices(s1 - s0)] *= 1.0 + first
    # Σ⁻¹ L_Σ L_Σᵀ Σ⁻¹ is the unscaled shifted block: the same δ was chosen
    L = _factor_matrix(scaled.factors[b]) / sigma[s0:s1, None]
    np.testing.assert_allclose(L @ L.T, want, rtol=0, atol=1e-10 * np.abs(want).max())


def test_enough_is_asked_before_a_step_that_refinement_left_inaccurate(monkeypatch):
    """Once the gap is small, a step whose Newton directions refinement could not make accurate is preceded by the
    early-stop test on the iterate it leaves (with every refinement counted as failed: asked at every iterate)."""
    import problems.ipm.iteration as iteration

    monkeypatch.setattr(iteration, "REFINE_FAILED", -1.0)
    spec = ReducedPDDP(parse_symmetric_prior(MIXTURE, 12, 2)).lp.spec
    args = (spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(1.0))
    events: list[str | int] = []

    def enough(u, nu, lam) -> bool:  # noqa: ANN001
        events.append("ask")
        return False

    def probe(u, nu, lam, it) -> bool:  # noqa: ANN001
        events.append(it)
        return False

    solve_block_lp(*args, enough=enough, probe=probe, tol=1e-13)
    first = events.index("ask")
    iterates = [i for i, e in enumerate(events) if e != "ask" and i > first]
    assert len(iterates) >= 3
    # between two iterates after the first test, at least one test (on the earlier iterate, before its step)
    assert all("ask" in events[a:b] for a, b in zip(iterates, iterates[1:]))


def test_released_feasibility_residuals_leave_the_iterates_bitwise_the_same(monkeypatch):
    """A refined predictor solve releases r_g and r_d and the corrector's solve forms them again (peak memory):
    the iteration's answer is the same to the last bit as with the residuals kept."""
    from problems.ipm import iteration

    spec = ReducedPDDP(parse_symmetric_prior("contagious:0.9:0.3,0.7", 16, 2)).lp.spec
    args = (spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(1.0))
    formed = []
    feasibility = iteration._feasibility_residuals

    def counted(*a):  # noqa: ANN002, ANN202
        formed.append(1)
        return feasibility(*a)

    monkeypatch.setattr(iteration, "_feasibility_residuals", counted)
    released = solve_block_lp(*args, threads=2)
    once = len(formed)
    init = iteration._Newton.__init__

    def keeping(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        init(self, *a, **k)
        self.residuals = None  # the residuals kept through every solve, as before

    monkeypatch.setattr(iteration._Newton, "__init__", keeping)
    formed.clear()
    kept = solve_block_lp(*args, threads=2)
    assert once > len(formed)  # the released residuals were formed again (more than once per iteration)
    assert released[4] == kept[4]  # iterations
    for a, b in zip(released[:4], kept[:4]):
        np.testing.assert_array_equal(a, b)

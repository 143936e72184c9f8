"""The LP core: every back end on LPs with known optima, the whole ε range, forced failures, bad input.

References are independent of the code under test: the closed form h(ε) of Wang, Ying & Zhang (2016) (R-PD, Lemma 1; PD-DP
with a uniform prior, Theorem 1 and Lemma 5) and a separately built HiGHS model.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

from problems import DatabaseSpace, h, priors
from problems.errors import InvalidInputError
from problems.lp import Status, dense_spec
from problems.lp.exact_feasibility import _rk
from problems.programs import PDDP, PDI, RPD
from problems.solvers import solve
from problems.solvers.backends import BackendError

EPS_RANGE = (0.5, 1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0)


def _uniform_pd_dp_spec(n: int = 3, m: int = 2):
    space = DatabaseSpace(n, m)
    pr = priors.uniform(space)
    return space, dense_spec(
        space, pr.pmf[:, None] * space.hamming_matrix(), program="pd-dp", row_mass=np.ones(space.size)
    )


@pytest.mark.parametrize("solver", ["clarabel", "highs", "scs", "cvxpy"])
@pytest.mark.parametrize("eps", EPS_RANGE)
def test_every_backend_is_certified_against_h(solver: str, eps: float) -> None:
    """Uniform PD-DP (LP forced) = h(ε); the bounds enclose h and are 1e-6 wide, relative, even at 1e-22."""
    space, spec = _uniform_pd_dp_spec()
    sol = solve(spec, eps, solver=solver)
    ref = h(eps, 3, 2)
    assert sol.bounds.lower <= ref * (1 + 1e-13) and sol.bounds.upper >= ref * (1 - 1e-13)
    assert sol.status is Status.OPTIMAL
    assert abs(sol.value - ref) <= 1e-6 * ref
    W = sol.z.reshape(space.size, space.size)
    pi, pj = space.neighbour_pairs
    assert np.all(W >= 0) and np.all(W[pi] <= math.exp(eps) * W[pj])  # exactly DP as a float matrix


def _loop_built_highs(prior: np.ndarray, space: DatabaseSpace, eps: float) -> float:
    """PD-DP built row by row with explicit loops and solved by HiGHS: an independent construction."""
    N, r = space.size, math.exp(eps)
    e = space.elements
    rows, A_eq = [], []
    for x in range(N):
        for x2 in range(N):
            if np.sum(e[x] != e[x2]) != 1:
                continue
            for y in range(N):
                row = np.zeros(N * N)
                row[x * N + y] = 1.0
                row[x2 * N + y] = -r
                rows.append(row)
        eq = np.zeros(N * N)
        eq[x * N : (x + 1) * N] = 1.0
        A_eq.append(eq)
    c = np.array([prior[x] * np.sum(e[x] != e[y]) for x in range(N) for y in range(N)])
    res = linprog(
        c, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=np.array(A_eq), b_eq=np.ones(N), method="highs"
    )
    return float(res.fun)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
def test_bounds_contain_a_loop_built_highs_reference(seed: int, eps: float) -> None:
    space = DatabaseSpace(2, 3)
    pmf = np.random.default_rng(seed).dirichlet(np.ones(space.size))
    res = PDDP(priors.from_pmf(space, pmf)).solve(eps)
    ref = _loop_built_highs(pmf, space, eps)
    assert res.bounds.lower - 1e-9 * ref <= ref <= res.bounds.upper + 1e-9 * ref
    assert res.status == "optimal" and res.bounds.gap <= 1e-6 * res.bounds.upper


@pytest.mark.parametrize("eps", [20.0, 30.0, 40.0, 50.0])
def test_r_pd_lp_and_theorem_at_large_eps(eps: float) -> None:
    space = DatabaseSpace(3, 2)
    ref = h(eps, 3, 2)
    for path in ("auto", "lp"):
        res = RPD(space).solve(eps, method=path)
        assert res.status == "optimal"
        assert res.bounds.lower <= ref * (1 + 1e-13) and res.bounds.upper >= ref * (1 - 1e-13)
        assert abs(res.value - ref) <= 1e-6 * ref


def test_theorem_path_of_pd_i_names_the_lemma() -> None:
    space = DatabaseSpace(3, 2)
    res = PDI(priors.iid(space, [0.3, 0.7])).solve(2.0)
    assert res.extras["path"] == "theorem" and "Lemma 4" in res.certificate.basis
    assert res.bounds.lower <= h(2.0, 3, 2) <= res.bounds.upper
    lp = PDI(priors.iid(space, [0.3, 0.7])).solve(2.0, method="lp")
    assert lp.extras["path"] == "dense" and abs(lp.value - h(2.0, 3, 2)) <= 1e-6 * h(2.0, 3, 2)


def test_unknown_solver_is_bad_input() -> None:
    _, spec = _uniform_pd_dp_spec()
    with pytest.raises(InvalidInputError, match="unknown solver 'NOPE'"):
        solve(spec, 1.0, solver="NOPE")


def test_a_failing_backend_is_recorded_and_the_next_one_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    from problems.solvers import backends

    def boom(self, spec, eps, *, time_limit, enough=None):  # noqa: ANN001, ANN202
        raise BackendError("forced failure")

    monkeypatch.setattr(backends.ClarabelBackend, "solve", boom)
    _, spec = _uniform_pd_dp_spec()
    sol = solve(spec, 1.0)
    assert sol.stats.attempts[0] == ("CLARABEL", "error: forced failure")
    assert sol.stats.solver == "HIGHS" and sol.status is Status.OPTIMAL


def test_an_inaccurate_answer_is_not_optimal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A back end whose point is off by 1 % and whose multipliers are zero: valid bounds, status inaccurate."""
    from problems.solvers import backends

    orig = backends.ClarabelBackend.solve

    def poor(self, spec, eps, *, time_limit, enough=None):  # noqa: ANN001, ANN202
        raw = orig(self, spec, eps, time_limit=time_limit)
        z = 0.99 * raw.z + 0.01 * spec.reference(0.0)
        return backends.RawSolution(z, 0 * raw.nu, 0 * raw.lam, "Solved", 1, 0.0)

    monkeypatch.setattr(backends.ClarabelBackend, "solve", poor)
    _, spec = _uniform_pd_dp_spec()
    sol = solve(spec, 1.0, solver="clarabel")
    assert sol.attempts_are_recorded if hasattr(sol, "attempts_are_recorded") else True
    first = sol.stats.attempts[0]
    assert first[0] == "CLARABEL" and "certified" not in first[1]
    assert sol.bounds.lower <= h(1.0, 3, 2) <= sol.bounds.upper


def test_all_backends_failing_gives_failed_with_valid_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    from problems.solvers import backends

    def boom(self, spec, eps, *, time_limit, enough=None):  # noqa: ANN001, ANN202
        raise BackendError("forced failure")

    for cls in (backends.ClarabelBackend, backends.HighsBackend, backends.ScsBackend):
        monkeypatch.setattr(cls, "solve", boom)
    _, spec = _uniform_pd_dp_spec()
    sol = solve(spec, 1.0)
    assert sol.status is Status.FAILED
    assert (
        sol.bounds.lower <= h(1.0, 3, 2) <= sol.bounds.upper
    )  # the reference point still proves an upper bound


def test_structured_and_block_backends_through_the_chain() -> None:
    """The toolkit's interior-point methods answer through the same interface and are certified."""
    space = DatabaseSpace(4, 3)
    pmf = np.random.default_rng(3).dirichlet(np.ones(space.size))
    prog = PDDP(priors.from_pmf(space, pmf))
    a = prog.solve(1.0, solver="structured")
    b = prog.solve(1.0, solver="highs")
    assert a.stats.attempts[0][0] == "STRUCTURED"
    assert max(a.bounds.lower, b.bounds.lower) <= min(a.bounds.upper, b.bounds.upper) * (1 + 1e-12)
    from problems.orbit.programs import ReducedPDDP
    from problems.orbit.symmetric_prior import symmetric_iid

    red = ReducedPDDP(symmetric_iid(5, [0.2, 0.3, 0.5]))
    blk = red.lp.solve(1.0, prefer="block")
    cla = red.lp.solve(1.0, prefer="clarabel")
    assert blk.stats.attempts[0][0] == "BLOCK"
    assert max(blk.bounds.lower, cla.bounds.lower) <= min(blk.bounds.upper, cla.bounds.upper) * (1 + 1e-12)


def test_structured_method_without_the_ctypes_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIVACY_IPM_NO_KERNELS", "1")
    from problems.ipm.lapack import lapack_kernels

    assert lapack_kernels() is None
    space = DatabaseSpace(4, 2)
    res = PDDP(priors.iid(space, [0.3, 0.7])).solve(1.0, solver="structured")
    assert res.bounds.lower <= h(1.0, 4, 2) * 1.0000001  # Theorem 1 upper bound h(ε) holds for the value
    assert res.status == "optimal"


def test_structured_memory_guard_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    import problems.ipm.structured as S
    from problems.errors import ProblemTooLargeError

    monkeypatch.setattr(S, "MAX_BUFFER_BYTES", 1.0)
    with pytest.raises(ProblemTooLargeError):
        S.StructuredIPMData(np.ones((4, 4)), np.ones(4), np.array([0, 1]), np.array([1, 0]), np.ones(2), 2.0)


def test_lemma3_infeasibility_is_reported_not_guessed() -> None:
    from problems.errors import InfeasibleProgramError

    space = DatabaseSpace(3, 2)
    prog = PDI(priors.iid(space, [0.3, 0.7]))
    with pytest.raises(InfeasibleProgramError, match="Lemma 3"):
        prog.solve(prog.eps_X - 0.01)
    res = prog.solve(40.0)  # large ε: Lemma 4, never a false infeasibility
    assert res.status == "optimal" and abs(res.value - h(40.0, 3, 2)) <= 1e-6 * h(40.0, 3, 2)


@pytest.mark.slow
def test_production_size_structured_solve_n256() -> None:
    """N = 256 PD-DP (Dirichlet prior, ε = 1): the structured method answers through the chain, certified,
    inside Theorem 1's enclosure h(ε + ε_X) ≤ D*_d(ε) ≤ h(ε)."""
    space = DatabaseSpace(8, 2)
    pmf = np.random.default_rng(0).dirichlet(np.ones(space.size))
    prog = PDDP(priors.from_pmf(space, pmf))
    res = prog.solve(1.0)
    assert res.stats.solver == "STRUCTURED" and res.status == "optimal"
    assert res.bounds.upper - res.bounds.lower <= 1e-6 * res.bounds.upper
    assert h(1.0 + prog.eps_X, 8, 2) * (1 - 1e-12) <= res.bounds.upper
    assert res.bounds.lower <= h(1.0, 8, 2) * (1 + 1e-12)
    W = res.matrix
    pi, pj = space.neighbour_pairs
    assert np.all(W[pi] <= math.exp(1.0) * W[pj])  # exactly 1-DP as returned


@pytest.mark.parametrize("eps", [0.5, 3.0, 20.0, 40.0])
def test_returned_mechanisms_meet_their_level_by_the_toolkits_own_measures(eps: float) -> None:
    """dp_level / identifiability_level of the returned matrix never exceed ε (no 1e-11 entry facing a 0)."""
    from problems.measures import dp_level, identifiability_level

    space = DatabaseSpace(3, 2)
    rng = np.random.default_rng(5)
    for pmf in (rng.dirichlet(np.ones(8)), np.r_[1e-9, rng.dirichlet(np.ones(7))]):
        prior = priors.from_pmf(space, pmf / pmf.sum())
        res = PDDP(prior).solve(eps, method="lp")
        assert dp_level(res.matrix, space) <= eps
        pdi = PDI(prior)
        if eps > pdi.eps_X:
            res = pdi.solve(eps, method="lp")
            if math.isfinite(res.bounds.upper):  # a verified point was returned
                assert identifiability_level(res.matrix, prior) <= eps


def test_a_solver_claiming_infeasibility_is_not_believed(monkeypatch: pytest.MonkeyPatch) -> None:
    """PD-DP is feasible for every ε (a constant mechanism is 0-DP): a back end's "infeasible" is an attempt
    that failed, never the answer; the next back end certifies the optimum."""
    from problems.solvers import backends

    def liar(self, spec, eps, *, time_limit, enough=None):  # noqa: ANN001, ANN202
        return backends.RawSolution(
            np.zeros(spec.K), np.zeros(spec.G), np.zeros(spec.P), "PrimalInfeasible", 3, 0.0
        )

    monkeypatch.setattr(backends.ClarabelBackend, "solve", liar)
    space, spec = _uniform_pd_dp_spec()
    sol = solve(spec, 2.0)
    assert sol.stats.attempts[0][0] == "CLARABEL" and "PrimalInfeasible" in sol.stats.attempts[0][1]
    assert sol.status is Status.OPTIMAL and abs(sol.value - h(2.0, 3, 2)) <= 1e-6 * h(2.0, 3, 2)


@pytest.mark.parametrize("solver", ["clarabel", "highs", "scs", "cvxpy"])
@pytest.mark.parametrize("eps", [0.7, 3.0, 25.0])
def test_primal_dual_pair_optimal_by_construction(solver: str, eps: float) -> None:
    """After cvxpy's StandardTestLPs (lp_5): an LP whose optimum is known because a primal–dual pair is built
    to satisfy KKT exactly. z* = E_d at ε (positive; its rows x closer to y than x' are tight), λ > 0 on the
    tight rows only, s = 0, ν chosen so that c = −Aᵀν − Gᵀλ ≥ 0; then c'z* = −b'ν is the optimum."""
    from problems.closed_forms import apply_kron, kernel

    space = DatabaseSpace(2, 3)
    N = space.size
    base = dense_spec(space, np.ones((N, N)), program="constructed", row_mass=np.ones(N))
    z_star = apply_kron(kernel(eps, 3), np.eye(N), 2).ravel()
    d = space.hamming_matrix().ravel()
    tight = d[base.src] < d[base.dst]  # z(x, y) = e^ε z(x', y) exactly when d(x', y) = d(x, y) + 1
    rng = np.random.default_rng(11)
    lam = np.where(tight, rng.uniform(0.5, 1.5, base.P), 0.0) * np.exp(-eps)
    Gt_lam = np.bincount(base.src, weights=lam, minlength=base.K) - np.bincount(
        base.dst, weights=math.exp(eps) * lam, minlength=base.K
    )
    nu = -np.full(N, Gt_lam.max()) - rng.uniform(0.1, 1.0, N)
    c = -(nu[base.group] + Gt_lam)
    assert c.min() > 0
    spec = dense_spec(space, c.reshape(N, N), program="constructed", row_mass=np.ones(N))
    optimum = -float(spec.b @ nu)
    assert float(c @ z_star) == pytest.approx(optimum, rel=1e-12)  # zero gap by construction
    sol = solve(spec, eps, solver=solver)
    assert sol.bounds.lower <= optimum * (1 + 1e-12) and optimum * (1 - 1e-12) <= sol.bounds.upper
    assert sol.status is Status.OPTIMAL and abs(sol.value - optimum) <= 1e-6 * optimum


def test_exponential_mechanism_bounds_a_poor_solver_point():
    """The reduced PD-DP at n = 30 (i.i.d. (0.3, 0.7), ε = 2.94): solvers return points whose repair costs
    far more than E_d at level ε, which is feasible with cost h(ε) (Wang, Ying & Zhang 2016, Theorem 1); the certificate
    uses it, so the answer is certified at h(ε) — checked against the closed form."""
    from problems.closed_forms import h
    from problems.lp.bounds import certify, tight_reference, verify
    from problems.orbit import ReducedPDDP, symmetric_iid

    prog = ReducedPDDP(symmetric_iid(30, [0.3, 0.7]))
    spec, eps = prog.lp.spec, 2.94
    zt = tight_reference(spec, eps)
    assert zt is not None and verify(spec, zt, eps)
    cert = certify(spec, eps, None, None, None)  # no solver point at all: the reference alone
    assert cert.bounds.upper == pytest.approx(h(eps, 30, 2), rel=1e-8)
    res = prog.solve(eps)
    assert res.certified and res.value == pytest.approx(h(eps, 30, 2), rel=1e-6)


def test_repair_of_rows_broken_only_on_tiny_entries_costs_nothing():
    """Rows broken only on tiny entries (relative 40×, absolute below 1e-12 of the largest entry) are repaired
    without mixing and without changing the value beyond 1e-9; the closure alone lowers the large sides, removes
    only mass of that order and satisfies every row with ρ.  (m = 2, n = 100, PD-I showed this pattern at 1e-22,
    where raising the small sides instead grew group masses 1000×; that size is in the slow set.)"""
    from problems.lp.bounds import _closure, repair, tight_reference, upper_bound, verify
    from problems.orbit import ReducedPDI
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    spec = ReducedPDI(parse_symmetric_prior("iid:0.3,0.7", 12, 2)).lp.spec
    eps = spec.eps_min + 8.0
    z = tight_reference(spec, eps)
    assert z is not None and verify(spec, z, eps)
    small = np.flatnonzero((z[spec.src] < 1e-12 * z.max()) & (z[spec.src] > 0))[:5]
    assert small.size > 0
    zb = z.copy()
    zb[spec.src[small]] = 40.0 * np.exp(spec.log_kappa[small] + eps) * z[spec.dst[small]]
    assert not verify(spec, zb, eps)
    zr, t = repair(spec, zb, eps)
    assert zr is not None and verify(spec, zr, eps)
    assert t == 0.0
    assert abs(upper_bound(spec, zr) - spec.c @ z) <= 1e-9 * (spec.c @ z)
    rho = _rk(spec, eps)[0] * (1 - 1e-9)
    v = _closure(spec, zb, rho)
    assert np.all(v[spec.src] <= rho * v[spec.dst] * (1 + 1e-13))
    sums = np.bincount(spec.group, weights=zb, minlength=spec.G)
    assert np.all(v <= zb * (spec.b / sums)[spec.group] * (1 + 1e-12))  # lowered (then renormalised)


def _exact_rows_hold(spec, z: np.ndarray, eps: float) -> bool:  # noqa: ANN001
    """Every ratio row of the exact normalisation z·b_g/s_g in rational arithmetic, against a float below every
    factor e^{ε + ln κ} that the stored ln κ allows (its error LOG_KAPPA_ERROR = 1e-12; an independent check of
    ``verify``)."""
    from fractions import Fraction

    sums = [Fraction(0)] * spec.G
    for g, v in zip(spec.group.tolist(), z.tolist()):
        sums[g] += Fraction(v)
    scale = [Fraction(b) / s for b, s in zip(spec.b.tolist(), sums)]
    low = np.exp(eps + spec.log_kappa) * (1 - 1e-12 - 1e-15)  # ln κ's error, then the float rounding
    for s, d, r in zip(spec.src.tolist(), spec.dst.tolist(), low.tolist()):
        lhs = Fraction(z[s]) * scale[spec.group[s]]
        if lhs > 0 and lhs > Fraction(r) * Fraction(z[d]) * scale[spec.group[d]]:
            return False
    return True


def _block_point(n: int) -> np.ndarray:
    """The block method's point of the m = 2 contagious (0.9) PD-DP at ε = 0.5 (``backend("BLOCK").solve``),
    saved in ``tests/data``: the repair's tests below start from it, not from the method's rounding of the day."""
    return np.load(Path(__file__).parent / "data" / f"block_point_contagious_0.9_n{n}_eps0.5.npy")


def test_repair_keeps_the_cheapest_local_repair_when_the_first_one_costs_more(monkeypatch):
    """A local repair that verifies without mixing but costs more than the point itself does not end the search:
    the closure's lossless point is kept.  (m = 2, n = 100, contagious (0.9) PD-DP at ε = 0.5: raising the small
    sides of rows broken on entries of 1e-28 cascaded to entries of 5e-10 with cost 28 and lost 1.9e-6 relative,
    which cost a second solve; that point is in the slow set.)  Here the raise is replaced by E_d itself, a
    feasible point h(ε)/PD-DP times the optimum."""
    from problems.lp import bounds
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    spec = ReducedPDDP(parse_symmetric_prior("contagious:0.9", 16, 2)).lp.spec
    eps = 0.5
    z_block = _block_point(16)
    value = float(spec.c @ np.clip(z_block, 0.0, None))
    e_d = bounds.tight_reference(spec, eps)
    assert e_d is not None and bounds.verify(spec, e_d, eps) and spec.c @ e_d > 1.01 * value
    # the raise replaced by a point that is feasible, needs no mixing and costs 1 % too much
    monkeypatch.setattr(bounds, "_raise_small_sides", lambda spec_, z_, rho_: e_d.copy())
    zr, t = bounds.repair(spec, z_block, eps)
    assert zr is not None and t == 0.0
    assert bounds.upper_bound(spec, zr) <= value * (1 + 1e-9)
    assert _exact_rows_hold(spec, zr, eps)


@pytest.mark.parametrize("n,perturb", [(16, 0.0), (24, 1e-10)])
def test_the_closure_renormalises_until_the_rows_between_groups_hold(n, perturb, monkeypatch):
    """The closure lowers the large sides of broken rows, then renormalises each group by its own factor, which
    breaks rows between groups whose slack is below the factors' spread; further rounds lower those.  On the
    block method's own point (m = 2, contagious (0.9) PD-DP, ε = 0.5; at n = 24 its 20 heaviest entries raised by a
    relative 1e-10, the size of the violations seen at n = 100) the rounds give a point that ``verify`` accepts
    and that satisfies every row in rational arithmetic, at no cost above the point's own; a single round does
    not."""
    from problems.lp import bounds
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    spec = ReducedPDDP(parse_symmetric_prior("contagious:0.9", n, 2)).lp.spec
    eps = 0.5
    z = np.clip(_block_point(n), 0.0, None)
    z = z * (spec.b / np.bincount(spec.group, weights=z, minlength=spec.G))[spec.group]
    z[np.argsort(-z)[:20]] *= 1 + perturb
    rho = _rk(spec, eps)[0] * (1 - 1e-11)
    v = bounds._closure(spec, z, rho)
    assert bounds.verify(spec, v, eps) and _exact_rows_hold(spec, v, eps)
    assert spec.c @ v <= spec.c @ z * (1 + 1e-12)
    monkeypatch.setattr(bounds, "CLOSURE_ROUNDS", 1)
    assert not bounds.verify(spec, bounds._closure(spec, z, rho), eps)


@pytest.mark.parametrize("perturb,former_mixes", [(1e-9, False), (1e-8, True)])
def test_the_rebalanced_closure_moves_the_sums_through_the_entries_with_room(
    perturb, former_mixes, monkeypatch
):
    """An interior point whose rows hold but whose sums miss b_g: the block method's point (m = 2, contagious (0.9)
    PD-DP, n = 24, ε = 0.5), made exactly feasible, with each block (connected component of the ratio rows, which
    are homogeneous: every row keeps its margin) scaled by 1 + ``perturb``·N(0, 1).  Renormalising each group by
    its own factor breaks the tight rows between groups (at 1e-8 the former repair mixed in the reference point,
    t = 1.4e-3, 1.3 % above the value; at 1e-9 its rounds of lowering still converged); moving
    the sums through the entries whose rows have room breaks none: no mixing, every row holds in rational
    arithmetic, and the cost is the point's own to 1e-8."""
    from problems.lp import bounds
    from problems.lp.active_blocks import blocks_of
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    spec = ReducedPDDP(parse_symmetric_prior("contagious:0.9", 24, 2)).lp.spec
    eps = 0.5
    z, t = bounds.repair(spec, _block_point(24), eps)
    assert z is not None and t == 0.0
    value = float(spec.c @ z)
    nb, blk = blocks_of(spec)
    zp = z * (1 + perturb * np.random.default_rng(0).standard_normal(nb))[blk]
    sums = np.bincount(spec.group, weights=zp, minlength=spec.G)
    assert np.max(np.abs(sums - spec.b) / spec.b) > 0.1 * perturb and not bounds.verify(spec, zp, eps)
    zr, t = bounds.repair(spec, zp, eps)
    assert zr is not None and t == 0.0 and bounds.verify(spec, zr, eps) and _exact_rows_hold(spec, zr, eps)
    assert bounds.upper_bound(spec, zr) <= value * (1 + 1e-8)
    # the former repair: the closure renormalising each group by its own factor
    monkeypatch.setattr(bounds, "_rebalance", lambda spec_, v_, rho_: bounds._renormalise(spec_, v_))
    _zf, t_former = bounds.repair(spec, zp, eps)
    assert (t_former > 0.0) == former_mixes


def test_the_closure_stops_its_rounds_on_a_point_off_by_more_than_rounding(monkeypatch):
    """E_d just inside the level (every row tight to 1e-9) with its heaviest entry raised by 1e-6: lowering runs
    along the tight rows of the whole mechanism and the groups' factors spread by 1.7e-7, 5e-8, … (less than 2×
    per round, above ``CLOSURE_SPREAD``), so the closure stops after three rounds instead of twelve (without the
    rule the twelve rounds give another point); the repair still returns a point that ``verify`` accepts."""
    from problems.lp import bounds
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    spec = ReducedPDDP(parse_symmetric_prior("iid:0.3,0.7", 12, 2)).lp.spec
    eps = 0.5
    z = bounds.tight_reference(spec, eps)
    assert z is not None
    z[int(np.argmax(z * (np.bincount(spec.src, minlength=spec.K) > 0)))] *= 1 + 1e-6
    z = z * (spec.b / np.bincount(spec.group, weights=z, minlength=spec.G))[spec.group]
    rho = _rk(spec, eps)[0] * (1 - 4e-12)
    v = bounds._closure(spec, z, rho)
    monkeypatch.setattr(bounds, "CLOSURE_SPREAD", math.inf)
    assert not np.array_equal(bounds._closure(spec, z, rho), v)
    monkeypatch.setattr(bounds, "CLOSURE_ROUNDS", 3)
    assert np.array_equal(bounds._closure(spec, z, rho), v)
    zr, _t = bounds.repair(spec, z, eps)
    assert zr is not None and bounds.verify(spec, zr, eps)


def test_a_vertex_with_entries_below_the_back_ends_accuracy_is_repaired_without_the_reference():
    """HiGHS's vertex of the reduced PD-DP (m = 2, n = 50, contagious prior (0.2), ε = 10) rounds entries of
    e^{−εd} to 0 and breaks rows by its tolerance.  Raising the small sides, renormalised until the groups' factors
    agree, gives a point that ``verify`` accepts with no mixing (before: mixed all the way to the reference point,
    3.4× the optimum); its exact normalisation satisfies every row in rational arithmetic, and its cost is
    HiGHS's own value to 1e-8."""
    from problems.lp.bounds import repair, upper_bound
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.solvers.backends import backend

    spec = ReducedPDDP(parse_symmetric_prior("contagious:0.2", 50, 2)).lp.spec
    eps = 10.0
    raw = backend("HIGHS").solve(spec, eps, time_limit=60)
    value = float(spec.c @ np.clip(raw.z, 0.0, None))
    zr, t = repair(spec, raw.z, eps)
    assert zr is not None and t == 0.0
    assert abs(upper_bound(spec, zr) - value) <= 1e-8 * value
    assert _exact_rows_hold(spec, zr, eps)


def test_raising_small_sides_checks_only_rows_that_can_break_again():
    """The raise repair re-checks, after its first full pass, only the rows whose large side it raised.  Against
    a full pass per sweep written here (every row, every sweep), on a HiGHS vertex (m = 2, n = 30, contagious
    prior (0.2), ε = 10: cascades along rows of zeros) and on a randomly perturbed E_d: the same point, bit for
    bit."""
    from problems.lp.bounds import RAISE_ROUNDS, REPAIR_FLOOR, _raise_small_sides, tight_reference
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.solvers.backends import backend

    def full_sweeps(spec, z, rho):  # noqa: ANN001, ANN202
        z = z.copy()
        for _round in range(RAISE_ROUNDS):
            for _ in range(60):
                need = z[spec.src] / rho
                bad = need > z[spec.dst] * (1 + 1e-15)
                if not bad.any():
                    break
                np.maximum.at(z, spec.dst[bad], need[bad] * (1 + 1e-15))
            factor = spec.b / np.bincount(spec.group, weights=z, minlength=spec.G)
            z *= factor[spec.group]
            if not float(np.max(factor) / np.min(factor)) - 1.0 > 1e-14:
                break
        return z

    spec = ReducedPDDP(parse_symmetric_prior("contagious:0.2", 30, 2)).lp.spec
    eps = 10.0
    rho = _rk(spec, eps)[0] * (1 - 1e-9)
    vertex = np.clip(backend("HIGHS").solve(spec, eps, time_limit=60).z, 0.0, None)
    rng = np.random.default_rng(7)
    noisy = tight_reference(spec, eps) * np.exp(rng.normal(0.0, 0.3, spec.K))
    floored = np.maximum(vertex, REPAIR_FLOOR * spec.b[spec.group])
    for z in (vertex, noisy, floored):
        assert np.array_equal(_raise_small_sides(spec, z, rho), full_sweeps(spec, z, rho))


@pytest.mark.parametrize("slice_rows", [None, 97])
def test_deficit_sweeps_work_on_the_deficits_only(slice_rows, monkeypatch):
    """The safe bound's deficit sweeps (push and pull) work on the rows at the deficits where these are few and
    recompute the reduced costs there only.  Against full passes written here (every row, reduced costs from
    scratch each sweep), on HiGHS's multipliers (m = 2, n = 30, contagious prior (0.2), ε = 10: a few hundred
    deficits) and Clarabel's (README mixture, ε = 1: deficits everywhere): the same multipliers, bit for bit —
    also when the library's sums and full passes run over slices of 97 rows (``slice_rows``)."""
    from problems.lp import ratio_rows
    from problems.lp.dual_bound import _pull_deficits, _push_deficits, _reduced_costs, lower_bound
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.solvers.backends import backend

    if slice_rows is not None:
        monkeypatch.setattr(ratio_rows, "ROW_SLICE", slice_rows)

    def reduced_costs(spec, rk, nu, lam):  # noqa: ANN001, ANN202
        K = spec.K
        plus = np.bincount(spec.src, weights=lam, minlength=K)
        return spec.c + plus - np.bincount(spec.dst, weights=rk * lam, minlength=K) + nu[spec.group]

    def push(spec, rk, nu, lam):  # noqa: ANN001, ANN202
        lam = lam.copy()
        for _ in range(8):
            deficit = np.maximum(-reduced_costs(spec, rk, nu, lam), 0.0)
            if not np.any(deficit > 0):
                break
            avail = np.bincount(spec.dst, weights=rk * lam, minlength=spec.K)
            with np.errstate(divide="ignore", invalid="ignore"):
                frac = np.where(avail > 0, np.minimum(1.0, deficit / avail), 0.0)
            if not np.any(frac > 0):
                break
            lam *= 1.0 - frac[spec.dst]
        return lam

    def pull(spec, rk, nu, lam):  # noqa: ANN001, ANN202
        lam = lam.copy()
        for _ in range(8):
            d = reduced_costs(spec, rk, nu, lam)
            need = np.maximum(-d, 0.0)
            if not np.any(need > 0):
                break
            room = np.maximum(d, 0.0)[spec.dst] / rk
            claim = (need[spec.src] > 0) & (room > 0)
            if not claim.any():
                break
            claimants = np.bincount(spec.dst[claim], minlength=spec.K).astype(float)
            room = np.where(claim, room / np.maximum(claimants[spec.dst], 1.0), 0.0)
            total = np.bincount(spec.src, weights=room, minlength=spec.K)
            with np.errstate(divide="ignore", invalid="ignore"):
                share = np.where(total[spec.src] > 0, np.minimum(1.0, need[spec.src] / total[spec.src]), 0.0)
            step = room * share * (1.0 - 1e-12)
            if not np.any(step > 0):
                break
            lam = lam + step
        return lam

    for prior, eps, name in (
        ("contagious:0.2", 10.0, "HIGHS"),
        ("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 1.0, "CLARABEL"),
    ):
        spec = ReducedPDDP(parse_symmetric_prior(prior, 30, 2)).lp.spec
        raw = backend(name).solve(spec, eps, time_limit=60)
        rk = _rk(spec, eps)[0]
        lam = np.clip(raw.lam, 0.0, None)
        assert np.any(_reduced_costs(spec, rk, raw.nu, lam) < 0)
        assert np.array_equal(_reduced_costs(spec, rk, raw.nu, lam), reduced_costs(spec, rk, raw.nu, lam))
        assert np.array_equal(_push_deficits(spec, rk, raw.nu, lam), push(spec, rk, raw.nu, lam))
        assert np.array_equal(_pull_deficits(spec, rk, raw.nu, lam, spec.upper), pull(spec, rk, raw.nu, lam))
        # in place (the lower bound hands its own copy over): the same multipliers, in the array handed over
        mine = lam.copy()
        out = _push_deficits(spec, rk, raw.nu, mine, copy=False)
        assert out is mine and np.array_equal(out, push(spec, rk, raw.nu, lam))
        # the lower bound leaves the caller's multipliers as they were
        before = raw.lam.copy()
        lower_bound(spec, eps, raw.nu, raw.lam)
        assert np.array_equal(raw.lam, before, equal_nan=True)


def test_verify_does_not_trust_rounding_below_the_normal_range():
    """A row z_0 ≤ e^{−1e-5} z_1 with z_0 = z_1 = 1e-320 (subnormal) is violated exactly, but e^{−1e-5}·1e-320
    rounds back to 1e-320 (the subnormal step is 5e-324): the relative margins alone would accept it.  The same row
    at normal magnitudes is refused, and z_0 = 0 is accepted."""
    from problems.lp.bounds import verify
    from problems.lp.spec import RatioLPSpec

    def spec_for(log_kappa: float) -> RatioLPSpec:
        return RatioLPSpec(
            c=np.zeros(3),
            group=np.zeros(3, dtype=int),
            b=np.ones(1),
            src=np.array([0]),
            dst=np.array([1]),
            log_kappa=np.array([log_kappa]),
            program="test",
            log_profile=lambda e: np.zeros(3),
        )

    spec = spec_for(-1e-5)
    assert 1e-320 * math.exp(-1e-5) == 1e-320  # the rounding this test is about
    assert not verify(spec, np.array([1e-320, 1e-320, 1.0]), 0.0)
    assert not verify(spec, np.array([1e-3, 1e-3, 1.0]), 0.0)
    assert verify(spec, np.array([0.0, 1e-320, 1.0]), 0.0)
    assert verify(spec_for(1e-5), np.array([1e-3, 1e-3, 1.0]), 0.0)  # slack 1e-5 relative: feasible


@pytest.mark.parametrize(
    "prior,program", [("contagious:0.9", "dp"), ("mixture:0.5,0.5/0.8,0.2/0.3,0.7", "i")]
)
def test_one_round_of_the_closure_is_the_largest_point_below_by_shortest_paths(prior, program, monkeypatch):
    """One round of the closure (lowering, propagated, then the renormalisation) against its definition computed
    independently: the largest v ≤ z with v[s_p] ≤ ρ'_p v[d_p] is v_s = min over paths s → t of z_t Π ρ', a
    shortest path in log space (Bellman–Ford from a source joined to every t by ln z_t; every cycle has
    Π ρ' > 1, so no negative cycle).  The block method's point, its heaviest entries raised by 1e-6 so that
    the lowering propagates."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import bellman_ford

    from problems.lp import bounds
    from problems.orbit import ReducedPDDP, ReducedPDI
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.solvers.backends import backend

    prog = (ReducedPDDP if program == "dp" else ReducedPDI)(parse_symmetric_prior(prior, 10, 2))
    spec = prog.lp.spec
    eps = 0.5 + (spec.eps_min if program == "i" else 0.0)
    z = np.clip(backend("BLOCK").solve(spec, eps, time_limit=60).z, 0.0, None)
    assert np.all(z > 0)
    z[np.argsort(-z)[:20]] *= 1 + 1e-6
    rho = _rk(spec, eps)[0] * (1 - 1e-11)
    monkeypatch.setattr(bounds, "CLOSURE_ROUNDS", 1)
    v = bounds._closure(spec, z, rho)
    # reversed rows d → s with weight ln ρ'_p (parallel rows: the smallest), source K → t with ln z_t − 1000
    # (csgraph drops explicit zero weights; the shift keeps every weight non-zero and is added back)
    K = spec.K
    w = np.log(rho * (1 - 1e-12))
    key = spec.dst.astype(np.int64) * K + spec.src
    order = np.lexsort((w, key))
    first = np.r_[True, key[order][1:] != key[order][:-1]]
    rows, cols, weights = spec.dst[order][first], spec.src[order][first], w[order][first]
    assert np.all(weights != 0.0)
    graph = coo_matrix(
        (np.r_[weights, np.log(z) - 1000.0], (np.r_[rows, np.full(K, K)], np.r_[cols, np.arange(K)])),
        shape=(K + 1, K + 1),
    ).tocsr()
    log_v = bellman_ford(graph, directed=True, indices=K)[:K] + 1000.0
    ref = np.exp(log_v)
    ref *= (spec.b / np.bincount(spec.group, weights=ref, minlength=spec.G))[spec.group]
    assert np.max(np.abs(ref - z)) > 1e-9 * z.max()  # the lowering moved the point
    np.testing.assert_allclose(v, ref, rtol=1e-11, atol=0)

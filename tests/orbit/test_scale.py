"""Accuracy at scale: uniform reduced programs equal h(ε) (Lemma 1, eq. (32)) at n = 200; certificates."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from problems.closed_forms import h
from problems.database import DatabaseSpace
from problems.lp import Status
from problems.orbit import (
    ReducedPDDP,
    ReducedPDI,
    ReducedRPD,
    symmetric_iid,
    symmetric_mixture,
    symmetric_uniform,
)


@pytest.mark.parametrize("m", [2, 3])
def test_uniform_n200_equals_h(m):
    n = 200
    rpd, pdi, pddp = (
        ReducedRPD(DatabaseSpace(n, m)),
        ReducedPDI(symmetric_uniform(n, m)),
        ReducedPDDP(symmetric_uniform(n, m)),
    )
    for eps in (0.0, 0.3, 1.0, 2.0, 5.0):
        for prog in (rpd, pdi, pddp):
            res = prog.solve(eps)
            assert res.value == pytest.approx(h(eps, n, m), abs=1e-7 * n)
            assert res.certificate.max_residual <= 1e-7
            assert res.extras["mechanism_level"] == "type"


def test_joint_type_certificates_moderate_n():
    """n = 20, i.i.d. and mixture priors: certified optimal by the bounds (relative width ≤ 1e-6), and the
    independent bounds of Theorem 1 hold: PD-DP ≤ h(ε) (E_d is feasible), PD-I ≥ h(ε) (ε_i*(D) ≥ h⁻¹(D)).

    The status is decided by the rigorous bounds alone; the solver's KKT residuals are diagnostics (about
    3e-6 at ε = 1 here) and are not asserted.
    """
    n = 20
    for prior in (symmetric_iid(n, [0.3, 0.7]), symmetric_mixture(n, [[0.2, 0.8], [0.6, 0.4]], [0.5, 0.5])):
        prog = ReducedPDDP(prior)
        for eps in (0.2, 1.0):
            res = prog.solve(eps, method="lp")  # the joint-type LP (an i.i.d. prior's default is the theorem)
            lo, up = res.bounds.lower, res.bounds.upper
            assert res.status == Status.OPTIMAL
            assert lo <= res.value <= up and up - lo <= 1e-6 * abs(up)
            assert lo <= h(eps, n, 2) + 1e-9 * n  # E_d is feasible (Theorem 1, upper bound)
            assert np.isclose(res.extras["x_type_probability"].sum(), 1.0)
    res = ReducedPDI(symmetric_iid(n, [0.3, 0.7])).solve(1.5)
    assert res.status == Status.OPTIMAL
    assert res.certificate.max_residual <= 1e-7
    assert res.bounds.upper >= h(1.5, n, 2) - 1e-9 * n  # Theorem 1: ε_i*(D) ≥ h⁻¹(D)


def test_m3_certificate():
    res = ReducedPDDP(symmetric_iid(6, [0.2, 0.3, 0.5])).solve(0.8)
    assert res.certificate.max_residual <= 1e-7
    assert res.value <= h(0.8, 6, 3) + 1e-7


@pytest.mark.slow
def test_pd_dp_n50_m2():
    res = ReducedPDDP(symmetric_iid(50, [0.3, 0.7])).solve(1.0)
    assert res.certificate.max_residual <= 1e-7
    assert res.value <= h(1.0, 50, 2) + 1e-7


def test_eps_star_curve_newton_n10():
    """ε*(D) by safeguarded Newton: = h⁻¹(D) below D/n = 0.3 (row (0.3, 0.7)), 0 / ε_X above (PD-DP / PD-I)."""
    from problems.closed_forms import h_inv
    from problems.orbit.scale import eps_star_curve

    n = 10
    prior = symmetric_iid(n, [0.3, 0.7])
    levels = (0.1, 0.2, 0.28, 0.32, 0.4)
    dp, pi = ReducedPDDP(prior), ReducedPDI(prior)
    count = [0]
    ed = eps_star_curve(dp, n, levels, counter=count)
    ei = eps_star_curve(pi, n, levels, eps_min=pi.eps_X)
    for d, a, b in zip(levels, ed, ei):
        if d < 0.3:
            assert a == pytest.approx(h_inv(d * n, n, 2), abs=1e-5)
            assert b == pytest.approx(h_inv(d * n, n, 2), abs=1e-5)
            assert dp.solve(a).value == pytest.approx(d * n, abs=1e-5)
        else:
            assert a == 0.0
            assert b == pytest.approx(np.log(7 / 3), abs=1e-12)
    assert count[0] <= 3 * len(levels)


def test_pd_dp_m3_n10():
    res = ReducedPDDP(symmetric_iid(10, [0.2, 0.3, 0.5])).solve(1.0)
    # certified: the safe bounds agree to 1e-6 relative (the solver may stop as soon as they do)
    assert res.certificate.certified
    assert res.bounds.upper - res.bounds.lower <= 1e-6 * res.bounds.upper
    assert res.value <= h(1.0, 10, 3) + 1e-7


def test_scale_figure_merges_precomputed_rows(tmp_path):
    """Rows of an earlier run (other n) are added to the CSV and the figure; rows for computed n are not."""
    from problems.orbit.scale import FIELDS, read_rows
    from problems.reproduce.scale import scale_figure

    pre = tmp_path / "pre.csv"
    with pre.open("w") as fh:
        fh.write(",".join(FIELDS) + "\n")
        fh.write("200,pd-dp,0.1,100.0,0.5,0.5,2,1e-9\n")
        fh.write("6,pd-dp,0.1,1.0,0.2,0.2,1,1e-9\n")  # n = 6 is computed now: dropped
    paths = scale_figure(tmp_path / "out", lambda s: None, ns=(6,), levels=(0.1, 0.32), include=[pre])
    rows = read_rows(paths[0])
    assert {(r["n"], r["program"]) for r in rows} == {(6, "pd-dp"), (6, "pd-i"), (200, "pd-dp")}
    six = [r for r in rows if r["n"] == 6 and r["program"] == "pd-dp"]
    assert six[0]["eps_star"] != 1.0 and six[0]["max_kkt"] <= 1e-7 and six[0]["lp_solves"] >= 1
    assert all(p.exists() for p in paths)


# ---------------------------------------------------------------- shipped n = 200 rows: independent closed forms
#
# Row pmf π = (0.3, 0.7), prior π^{⊗n}.  Everything below is computed here, not by the library:
#
# * ε_X (16) = max over neighbours of ln p(x)/p(x') (brute force over D³; a neighbour ratio involves one row,
#   so it does not depend on n) = ln(7/3);
# * ε̃_X: the posteriors e^{−ε d}/(1 + e^{−ε})ⁿ = K_ε^{⊗n} are feasible iff p_Y = (K_ε⁻¹π)^{⊗n} ≥ 0, i.e. iff
#   K_ε⁻¹π ≥ 0 (brentq on its smallest entry) = ln(7/3) as well;
# * h⁻¹(D) = ln(n/D − 1) for m = 2 (17).
#
# Exact privacy–distortion functions for this prior:
#
# * PD-I (Theorem 1 (18), Lemma 3, Lemma 4): ε*_i(D) = h⁻¹(D) for D ≤ h(ε̃_X) = 0.3n; above, ε*_i ≥ ε_X (Lemma 3)
#   and E_i at ε = ε̃_X = ε_X has distortion h(ε_X) = 0.3n ≤ D (Lemma 4), so ε*_i(D) = ε_X.
# * PD-DP: D*_d(ε) = n·min(0.3, 1/(1 + e^ε)).  Upper bound: E_d (Lemma 5, distortion h(ε)) and the constant
#   all-ones output (ε = 0, distortion 0.3n).  Lower bound: for an ε-DP mechanism and any row k, the row-k
#   marginal channel P(Y_k | X_k = a) = Σ_{x₋ₖ} π^{⊗(n−1)}(x₋ₖ) P(Y_k | x₋ₖ, a) is again ε-DP (each term compares
#   neighbouring databases), and by independence E d(X, Y) = Σ_k P(Y_k ≠ X_k) ≥ n·D₁(ε), where D₁(ε) =
#   min(0.3, 1/(1 + e^ε)) is the one-row optimum (checked below by HiGHS).  Hence ε*_d(D) = h⁻¹(D) for
#   D < 0.3n and 0 for D ≥ 0.3n.
ROW = (0.3, 0.7)


def _eps_X_brute(row, n: int = 3) -> float:
    import itertools

    xs = list(itertools.product(range(len(row)), repeat=n))
    p = {x: float(np.prod([row[v] for v in x])) for x in xs}
    return max(math.log(p[x] / p[y]) for x in xs for y in xs if sum(a != b for a, b in zip(x, y)) == 1)


def _eps_tilde_binary(row) -> float:
    def smallest_py(eps: float) -> float:
        t = math.exp(-eps)
        K = np.array([[1.0, t], [t, 1.0]]) / (1.0 + t)
        return float(np.linalg.solve(K, np.asarray(row, dtype=float)).min())

    return brentq(smallest_py, 1e-9, 20.0, xtol=1e-15, rtol=1e-15)


def _h_inv2(D: float, n: int) -> float:
    return math.log(n / D - 1.0)


def _pd_dp_exact(eps: float, n: int) -> float:
    return n * min(min(ROW), 1.0 / (1.0 + math.exp(eps)))


def _shipped_rows() -> list[dict]:
    import csv

    from problems.orbit.scale import PRECOMPUTED_CSV

    if not PRECOMPUTED_CSV.exists():
        pytest.skip("no precomputed n = 200 rows shipped")
    with PRECOMPUTED_CSV.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_eps_X_and_eps_tilde_X_of_the_row():
    assert _eps_X_brute(ROW) == pytest.approx(math.log(7 / 3), rel=1e-12)
    assert _eps_tilde_binary(ROW) == pytest.approx(math.log(7 / 3), rel=1e-12)


def test_shipped_n200_rows_equal_the_exact_privacy_distortion_functions():
    """Every shipped n = 200 point against ε*_i, ε*_d above (closed forms computed here, not with h_inv).

    A wrong ε*, a wrong h⁻¹ column, or an LP value at the reported ε* that is not D (the ``f = D*(ε*) − D`` of
    the ``source`` column) fails; tolerances are the project's relative 1e-6.
    """
    import re

    rows = _shipped_rows()
    eps_x, eps_t = _eps_X_brute(ROW), _eps_tilde_binary(ROW)
    seen = set()
    for r in rows:
        n, prog, delta, e = int(r["n"]), r["program"], float(r["D_over_n"]), float(r["eps_star"])
        assert n == 200 and prog in ("pd-dp", "pd-i")
        D = delta * n
        hv = _h_inv2(D, n)
        assert float(r["h_inv_over_n"]) == pytest.approx(hv / n, rel=1e-12)
        assert float(r["eps_over_n"]) == pytest.approx(e / n, rel=1e-12, abs=1e-15)
        if prog == "pd-dp":
            exact = hv if delta < min(ROW) else 0.0
        else:
            exact = hv if D <= n / (1.0 + math.exp(eps_t)) else eps_x
        assert e == pytest.approx(exact, rel=1e-6, abs=1e-12), (prog, delta)
        if int(float(r["lp_solves"])) >= 1:
            assert float(r["max_kkt"]) <= 1e-7
        m = re.search(r"f = ([-+0-9.eE]+)", r.get("source") or "")
        if m:  # the LP value at the reported ε* is D*(ε*) = D by the closed forms
            assert abs(float(m.group(1))) <= 1e-6 * D, (prog, delta, r["source"])
        seen.add((prog, delta < min(ROW)))
    # not vacuous: both programs on both sides of D/n = 0.3
    assert seen == {("pd-dp", True), ("pd-dp", False), ("pd-i", True), ("pd-i", False)}


def _one_row_dp_highs(eps: float, row=ROW) -> float:
    """min Σ_a π(a) P(Y ≠ a) over 2×2 ε-DP channels, by SciPy's HiGHS (variables W[a, y], row-major)."""
    from scipy.optimize import linprog

    c = [0.0, row[0], row[1], 0.0]
    k = math.exp(eps)
    A_ub = [[1, 0, -k, 0], [-k, 0, 1, 0], [0, 1, 0, -k], [0, -k, 0, 1]]
    res = linprog(c, A_ub=A_ub, b_ub=[0] * 4, A_eq=[[1, 1, 0, 0], [0, 0, 1, 1]], b_eq=[1, 1], method="highs")
    assert res.status == 0
    return float(res.fun)


def _dense_dp_highs(n: int, eps: float, row=ROW) -> float:
    """PD-DP on all 2ⁿ databases for π^{⊗n}, built with explicit loops and solved by HiGHS."""
    import itertools

    from scipy.optimize import linprog

    xs = list(itertools.product(range(2), repeat=n))
    N = len(xs)
    p = np.array([np.prod([row[v] for v in x]) for x in xs])
    d = np.array([[sum(a != b for a, b in zip(x, y)) for y in xs] for x in xs], dtype=float)
    A = []
    for i in range(N):
        for j in range(N):
            if d[i, j] == 1:
                for y in range(N):
                    a = np.zeros(N * N)
                    a[i * N + y], a[j * N + y] = 1.0, -math.exp(eps)
                    A.append(a)
    res = linprog(
        (p[:, None] * d).ravel(),
        A_ub=np.array(A),
        b_ub=np.zeros(len(A)),
        A_eq=np.kron(np.eye(N), np.ones(N)),
        b_eq=np.ones(N),
        method="highs",
    )
    assert res.status == 0
    return float(res.fun)


def test_pd_dp_closed_form_for_the_row_against_highs():
    """The lemma behind the exact ε*_d: one row by HiGHS, and the tensorisation D*_d = n·D₁ on 2ⁿ databases."""
    for eps in (0.0, 0.4, math.log(7 / 3), 1.3, 2.5):
        assert _one_row_dp_highs(eps) == pytest.approx(_pd_dp_exact(eps, 1), abs=1e-9)
        for n in (2, 3):
            assert _dense_dp_highs(n, eps) == pytest.approx(_pd_dp_exact(eps, n), abs=1e-8)


@pytest.mark.parametrize("n", [10, 20])
def test_reduced_pd_dp_recomputes_shipped_levels_at_small_n(n):
    """The reduced PD-DP LP at ε = h⁻¹(δn) for the shipped δ (and a few other ε) equals n·min(0.3, 1/(1+e^ε))."""
    prog = ReducedPDDP(symmetric_iid(n, list(ROW)))
    deltas = sorted({float(r["D_over_n"]) for r in _shipped_rows()})
    levels = [_h_inv2(d * n, n) for d in deltas if d < min(ROW)]
    for eps in [0.0, 0.5, math.log(7 / 3), 2.0, *levels]:
        ref = _pd_dp_exact(eps, n)
        res = prog.solve(eps)
        assert res.status == "optimal"
        assert res.value == pytest.approx(ref, rel=1e-6)
        assert res.bounds.lower <= ref * (1 + 1e-12) and ref * (1 - 1e-12) <= res.bounds.upper
    # and D*_d just below h⁻¹(D) exceeds D: ε*_d(D) is h⁻¹(D), not smaller
    for d in deltas:
        if d < min(ROW):
            eps = _h_inv2(d * n, n) - 1e-3
            assert prog.solve(eps).value > d * n * (1 + 1e-5)


def test_reduced_pd_i_at_eps_tilde_X_above_and_below_the_kink():
    """ε*_i by Theorem 1 / Lemmas 3–4 at small n: D*_i(ε) = h(ε) = n/(1 + e^ε) for ε > ε̃_X (closed form here)."""
    n = 20
    prog = ReducedPDI(symmetric_iid(n, list(ROW)))
    for eps in (_eps_tilde_binary(ROW) + 1e-6, 1.2, 2.0):
        ref = n / (1.0 + math.exp(eps))
        res = prog.solve(eps)
        assert res.status == "optimal"
        assert res.value == pytest.approx(ref, rel=1e-6)
        assert res.bounds.lower <= ref * (1 + 1e-12) and ref * (1 - 1e-12) <= res.bounds.upper


def test_reduced_pd_i_exactly_at_eps_X_is_certified():
    """ReducedPDI at ε = ε_X = ε̃_X exactly (the shipped pd-i row at D/n = 0.32 is this solve): ε ≥ ε_X is decided
    exactly and the best constant mechanism, feasible there, is optimal (value h(ε_X) = 0.3n)."""
    n = 20
    res = ReducedPDI(symmetric_iid(n, list(ROW))).solve(math.log(7 / 3))
    ref = n / (1.0 + 7 / 3)
    assert res.value == pytest.approx(ref, rel=1e-6)
    assert res.status == "optimal"
    assert res.bounds.lower <= ref * (1 + 1e-12) and ref * (1 - 1e-12) <= res.bounds.upper

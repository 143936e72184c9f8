"""Reduced PD-DP / PD-I against an independent dense LP (SciPy HiGHS, built here with explicit loops).

``test_reduced_vs_dense.py`` compares the reduced programs with the library's dense ones; here the reference
is a second LP solver on a formulation written from the paper (002, (8)–(15)) and the tolerance is fixed:
relative 1e-6 (the project's certification rule); the certified enclosure ``res.bounds`` must contain the
reference up to HiGHS's own accuracy (1e-9).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from problems.database import DatabaseSpace
from problems.errors import InfeasibleProgramError
from problems.orbit import ReducedPDDP, ReducedPDI
from problems.priors import exchangeable_mixture, iid

REL = 1e-6
HIGHS_ABS = 1e-9


def _priors(n, m, seed):
    rng = np.random.default_rng(seed)
    S = DatabaseSpace(n, m)
    return [
        iid(S, rng.dirichlet(np.ones(m)) * 0.8 + 0.2 / m),
        exchangeable_mixture(
            S, [rng.dirichlet(np.ones(m)) * 0.7 + 0.3 / m for _ in range(3)], [0.2, 0.5, 0.3]
        ),
    ]


def _dense_data(n, m):
    xs = list(itertools.product(range(m), repeat=n))
    d = np.array([[sum(a != b for a, b in zip(x, y)) for y in xs] for x in xs], dtype=float)
    pairs = [(i, j) for i in range(len(xs)) for j in range(len(xs)) if d[i, j] == 1]
    return xs, d, pairs


def _eps_X(p, pairs) -> float:
    """(16): the largest log prior ratio over neighbours, by enumeration."""
    return max(math.log(p[i] / p[j]) for i, j in pairs)


def _ratio_rows(N, pairs, eps):
    """Rows z[i, y] − e^ε z[j, y] ≤ 0 for neighbours (i, j) and every y (z row-major N × N), sparse."""
    k = math.exp(eps)
    rows, cols, vals = [], [], []
    r = 0
    for i, j in pairs:
        for y in range(N):
            rows += [r, r]
            cols += [i * N + y, j * N + y]
            vals += [1.0, -k]
            r += 1
    return coo_matrix((vals, (rows, cols)), shape=(r, N * N)).tocsr()


def _highs(c, A_ub, A_eq, b_eq) -> float:
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(A_ub.shape[0]),
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=(0, None),
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    assert res.status == 0, res.message
    return float(res.fun)


def _pd_dp_highs(p, d, pairs, eps) -> float:
    """PD-DP (13)–(15): W(y|x) ≤ e^ε W(y|x') for neighbours, rows of W sum to 1, min Σ p(x) W d."""
    N = len(p)
    return _highs(
        (p[:, None] * d).ravel(), _ratio_rows(N, pairs, eps), np.kron(np.eye(N), np.ones(N)), np.ones(N)
    )


def _pd_i_highs(p, d, pairs, eps) -> float:
    """PD-I (8)–(12) in the joint J = p_Y p_{X|Y}: J(x,y) ≤ e^ε J(x',y), Σ_y J(x,y) = p(x), min Σ J d."""
    N = len(p)
    return _highs(d.ravel(), _ratio_rows(N, pairs, eps), np.kron(np.eye(N), np.ones(N)), p)


def _check(res, ref):
    assert res.status == "optimal", res.status
    assert abs(res.value - ref) <= REL * max(1.0, abs(ref))
    assert res.bounds.lower <= ref + HIGHS_ABS and ref - HIGHS_ABS <= res.bounds.upper


SIZES = [(n, 2) for n in range(1, 6)] + [(n, 3) for n in range(1, 4)]
EPS = (0.0, 0.4, 1.3, 3.0)


@pytest.mark.parametrize("n,m", SIZES)
def test_reduced_pd_dp_matches_independent_highs(n, m):
    _xs, d, pairs = _dense_data(n, m)
    for prior in _priors(n, m, seed=10 * n + m):
        prog = ReducedPDDP(prior)
        for eps in EPS:
            _check(prog.solve(eps), _pd_dp_highs(prior.pmf, d, pairs, eps))


@pytest.mark.parametrize("n,m", SIZES)
def test_reduced_pd_i_matches_independent_highs(n, m):
    """PD-I from ε_X + 0.01 on (PD-I is infeasible below ε_X, Lemma 3; the boundary is tested below)."""
    _xs, d, pairs = _dense_data(n, m)
    for prior in _priors(n, m, seed=10 * n + m):
        prog = ReducedPDI(prior)
        eX = _eps_X(prior.pmf, pairs)
        assert prog.eps_X == pytest.approx(eX, abs=1e-12)
        for eps in sorted({max(e, eX + 0.01) for e in EPS} | {eX + 0.5}):
            _check(prog.solve(eps), _pd_i_highs(prior.pmf, d, pairs, eps))


@pytest.mark.parametrize("n,m", SIZES)
def test_reduced_pd_i_bounds_enclose_the_optimum_at_and_near_eps_X(n, m):
    """Whatever the status, the reported enclosure must contain the optimum (here by HiGHS, tight tolerances)."""
    _xs, d, pairs = _dense_data(n, m)
    for prior in _priors(n, m, seed=10 * n + m):
        prog = ReducedPDI(prior)
        eX = _eps_X(prior.pmf, pairs)
        for eps in (eX, eX + 1e-6, eX + 1e-4):
            try:
                res = prog.solve(eps)
            except InfeasibleProgramError:  # only below the exact ε_X (the dense pmf's float ε_X can be)
                assert eps < prog.eps_X
                continue
            ref = _pd_i_highs(prior.pmf, d, pairs, eps)
            assert res.status in ("optimal", "inaccurate", "failed")
            assert res.bounds.lower <= ref + HIGHS_ABS and ref - HIGHS_ABS <= res.bounds.upper


@pytest.mark.parametrize("n,m", SIZES)
def test_reduced_pd_i_is_certified_just_above_eps_X(n, m):
    _xs, d, pairs = _dense_data(n, m)
    for prior in _priors(n, m, seed=10 * n + m):
        eps = _eps_X(prior.pmf, pairs) + 1e-6
        _check(ReducedPDI(prior).solve(eps), _pd_i_highs(prior.pmf, d, pairs, eps))


@pytest.mark.xfail(
    strict=True,
    reason=(
        "reduced PD-I at ε = ε_X exactly (the float estimate) is decided feasible "
        "exactly but returns 'inaccurate': the feasible set has no interior there, the LP point is not verified "
        "feasible, and the exactly feasible constant mechanism is not the optimum (documented last resort)"
    ),
)
def test_reduced_pd_i_exactly_at_eps_X_is_not_failed():
    for n, m in SIZES:
        _xs, d, pairs = _dense_data(n, m)
        for prior in _priors(n, m, seed=10 * n + m):
            eps = _eps_X(prior.pmf, pairs)
            _check(ReducedPDI(prior).solve(eps), _pd_i_highs(prior.pmf, d, pairs, eps))

"""ε̃_X against an exact rational reference, for priors with masses down to 1e-16 (ε̃_X up to ~50).

Reference (independent of the library's coefficient recursion and root finder): with t = e^{−ε}/(1+(m−1)e^{−ε}),
(K_ε^{−1})^{⊗n} p ∝ g(t) = (I − tJ)^{⊗n} p, whose entry x is, by expanding the product over axes,

    g_x(t) = Σ_{S ⊆ axes} (−t)^{|S|} Σ_{z : z_i = x_i for i ∉ S} p(z).

Its coefficients are computed in :class:`fractions.Fraction` from the float prior (converted exactly); the
smallest t₀ > 0 at which some g_x changes sign is isolated by Sturm sequences and exact bisection, and
ε̃_X = ln((1 − (m−1)t₀)/t₀).  The mechanism E_i is then checked in exact arithmetic (``exact_feasibility``).
"""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_feasibility import pdi_feasible  # noqa: E402

from problems import DatabaseSpace, priors  # noqa: E402
from problems.errors import InvalidPrivacyLevelError  # noqa: E402
from problems.mechanism import identifiability_mechanism  # noqa: E402
from problems.prior_constants import eps_tilde, eps_tilde_iid, eps_X, t_of_eps  # noqa: E402


def _g_coefficients(pmf, n: int, m: int) -> list[list[Fraction]]:  # noqa: ANN001
    """Ascending coefficients of g_x for every database x (itertools.product order), by the subset formula."""
    xs = list(itertools.product(range(m), repeat=n))
    p = {x: Fraction(float(v)) for x, v in zip(xs, pmf, strict=True)}
    out = []
    for x in xs:
        c = [Fraction(0)] * (n + 1)
        for k in range(n + 1):
            for S in itertools.combinations(range(n), k):
                s = sum(p[z] for z in xs if all(z[i] == x[i] for i in range(n) if i not in S))
                c[k] += (-1) ** k * s
        out.append(c)
    return out


def _strip(c: list[Fraction]) -> list[Fraction]:
    c = list(c)
    while len(c) > 1 and c[-1] == 0:
        c.pop()
    return c


def _value(c: list[Fraction], t: Fraction) -> Fraction:
    v = Fraction(0)
    for a in reversed(c):
        v = v * t + a
    return v


def _rem(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    """Remainder of a / b (ascending coefficients)."""
    a = _strip(a)
    b = _strip(b)
    while len(a) >= len(b) and any(a):
        f = a[-1] / b[-1]
        shift = len(a) - len(b)
        for i, v in enumerate(b):
            a[i + shift] -= f * v
        a.pop()
        a = _strip(a) if a else [Fraction(0)]
    return a


def _sturm(c: list[Fraction]) -> list[list[Fraction]]:
    c = _strip(c)
    seq = [c, _strip([k * c[k] for k in range(1, len(c))] or [Fraction(0)])]
    while len(seq[-1]) > 1 or seq[-1][0] != 0:
        r = _rem(seq[-2], seq[-1])
        if not any(r):
            break
        seq.append([-v for v in r])
    return seq


def _changes(seq, t: Fraction) -> int:  # noqa: ANN001
    signs = [v for v in (_value(q, t) for q in seq) if v != 0]
    return sum(1 for a, b in itertools.pairwise(signs) if (a > 0) != (b > 0))


def _first_sign_change(c: list[Fraction], hi: Fraction) -> Fraction | None:
    """The smallest root in (0, hi] of the polynomial (g(0) > 0), to 1e-13 relative, or None."""
    c = _strip(c)
    if len(c) == 1:
        return None
    seq = _sturm(c)
    at0 = _changes(seq, Fraction(0))
    if at0 - _changes(seq, hi) == 0:
        return None
    lo = Fraction(0)
    while hi - lo > hi * Fraction(1, 10**13):
        mid = (lo + hi) / 2
        if at0 - _changes(seq, mid) >= 1:
            hi = mid
        else:
            lo = mid
    assert _value(c, hi * (1 + Fraction(1, 10**10))) < 0  # a sign change (generic data: simple roots)
    return hi


def reference_eps_tilde(pmf, n: int, m: int) -> float:  # noqa: ANN001
    t0 = None
    for c in _g_coefficients(pmf, n, m):
        r = _first_sign_change(c, Fraction(1, m))
        if r is not None and (t0 is None or r < t0):
            t0 = r
    if t0 is None:
        return 0.0
    return math.log(float((1 - (m - 1) * t0) / t0))


def _prior(seed: int, n: int, m: int):  # noqa: ANN202
    rng = np.random.default_rng(seed)
    N = m**n
    p = rng.dirichlet(np.ones(N))
    k = int(rng.integers(1, N))
    p[rng.choice(N, size=k, replace=False)] = 10.0 ** rng.uniform(-16, -12, size=k)
    p /= p.sum()
    return priors.from_pmf(DatabaseSpace(n, m), p)


CASES = [(seed, n, m) for seed in range(4) for n, m in ((2, 2), (3, 2), (2, 3))]


@pytest.mark.parametrize(("seed", "n", "m"), CASES)
def test_eps_tilde_matches_the_exact_reference(seed, n, m):
    prior = _prior(seed, n, m)
    ref = reference_eps_tilde(prior.pmf, n, m)
    got = eps_tilde(prior)
    assert got == pytest.approx(ref, abs=1e-9)
    assert got >= eps_X(prior) - 1e-12  # E_i at ε̃_X is ε̃_X-identifiable, so ε̃_X ≥ ε_X


@pytest.mark.parametrize(("seed", "n", "m"), CASES)
def test_identifiability_mechanism_checks_its_level(seed, n, m):
    prior = _prior(seed, n, m)
    ref = reference_eps_tilde(prior.pmf, n, m)
    if ref > 50:
        pytest.skip("ε̃_X above the tested range")
    with pytest.raises(InvalidPrivacyLevelError):
        identifiability_mechanism(prior, ref - 1e-6)
    eps = ref + 1e-6
    W = identifiability_mechanism(prior, eps).matrix
    assert pdi_feasible(W, prior.pmf, n, m, eps + 1e-9)  # exactly ε-identifiable up to float rounding


def test_the_reported_case_tiny_mass():
    """A mass of 6e-16 next to masses of order 1: the true ε̃_X is above ε_X = 34.06."""
    p = np.array([6.109626420929001e-16, 0.380248739362084, 0.09210808810063542, 0.52764317253728])
    prior = priors.from_pmf(DatabaseSpace(2, 2), p / p.sum())
    ref = reference_eps_tilde(prior.pmf, 2, 2)
    assert eps_tilde(prior) == pytest.approx(ref, abs=1e-9) and ref > eps_X(prior)
    with pytest.raises(InvalidPrivacyLevelError):
        identifiability_mechanism(prior, 33.0)


def _min_g_at(coefficients: list[list[Fraction]], t: float) -> Fraction:
    """min_x g_x(t) at the float t, exactly (the sign of the smallest entry of (1 − mt)^n p_Y)."""
    return min(_value(c, Fraction(t)) for c in coefficients)


def _min_g(coefficients: list[list[Fraction]], eps: float, m: int) -> Fraction:
    """min_x g_x at t = t_of_eps(ε), exactly."""
    return _min_g_at(coefficients, t_of_eps(eps, m))


def _check_boundary(prior, n: int, m: int) -> float:  # noqa: ANN001
    """ε̃_X is the boundary to the floats of ε and t: every g_x ≥ 0 at its t, and some g_x < 0 at one of the next
    three floats of t or at the t of two floats of ε below it (unless ε̃_X = 0: t = 1/m, the largest t)."""
    got = eps_tilde(prior)
    coefficients = _g_coefficients(prior.pmf, n, m)
    t = t_of_eps(got, m)
    assert _min_g_at(coefficients, t) >= 0
    if got > 0:
        near = [t_of_eps(math.nextafter(math.nextafter(got, 0.0), 0.0), m)]
        for _ in range(3):
            near.append(math.nextafter(near[-1] if len(near) > 1 else t, 1.0))
        assert min(_min_g_at(coefficients, u) for u in near if u <= 1.0 / m) < 0
    return got


def test_near_a_triple_root():
    """A near-uniform i.i.d. row given as an explicit pmf: g_x for x = (a, a, a) has a triple root near
    t = π_min, which the rounding of the pmf moves by ~1e-6 relative, and which the float test cannot resolve
    (the entry stays below its rounding bound over that width).  The closed form ln(π_max/π_min) of the exact
    row is 6.4e-6 below the exact ε̃_X of the float pmf (E_i is infeasible there, exactly)."""
    row = np.array([0.53125, 0.5316953751406167])
    row = row / row.sum()
    space = DatabaseSpace(3, 2)
    explicit = priors.from_pmf(space, priors.iid(space, row).pmf)
    got = _check_boundary(explicit, 3, 2)
    closed = eps_tilde_iid(row)
    assert _min_g(_g_coefficients(explicit.pmf, 3, 2), closed, 2) < 0
    assert closed < got < closed + 1e-5


@given(st.lists(st.floats(0.05, 1.0), min_size=2, max_size=4), st.integers(1, 3))
@settings(max_examples=30, deadline=None)
def test_iid_rows_given_as_explicit_pmfs(weights, n):
    """The general routine on an i.i.d. prior given as an explicit pmf (its i.i.d. structure forgotten).

    g_x for x = (a, …, a), π_a = π_min, is (π_min − t)^n: an n-fold root at the closed form's t = π_min, which the
    rounding of the pmf (entries perturbed by δ ≈ 2(n + 2)(m + 2)·2^n·u) moves by up to δ^(1/n).  The routine
    returns the exact boundary of the float pmf; the closed form of the row lies within that distance in t."""
    row = np.array(weights) / np.sum(weights)
    m = row.size
    if m**n > 27:  # the exact reference sums over subsets of axes for every pair of databases
        n = 2 if m == 4 else n
    space = DatabaseSpace(n, m)
    explicit = priors.from_pmf(space, priors.iid(space, row).pmf)
    got = _check_boundary(explicit, n, m)
    moved = 4.0 * (2.0 * (n + 2) * (m + 2) * 2.0**n * 2.0**-53) ** (1.0 / n)
    assert abs(t_of_eps(got, m) - float(row.min())) <= moved


def test_beyond_the_exact_budget_a_warned_bound(monkeypatch):
    """With no budget for the exact test, the entries near the triple root count as negative: ε̃_X then lies
    above the exact boundary, E_i is exactly feasible there, and a warning says that it is not proved exact."""
    from problems import prior_constants

    row = np.array([0.53125, 0.5316953751406167])
    row = row / row.sum()
    space = DatabaseSpace(3, 2)
    explicit = priors.from_pmf(space, priors.iid(space, row).pmf)
    exact = eps_tilde(explicit)
    monkeypatch.setattr(prior_constants, "EXACT_SIGN_BUDGET", 0.0)
    with pytest.warns(prior_constants.EpsTildeBoundWarning, match="not proved exact"):
        bound = eps_tilde(explicit)
    assert bound > exact
    assert _min_g(_g_coefficients(explicit.pmf, 3, 2), bound, 2) >= 0


# near-uniform i.i.d. rows given as explicit pmfs (n = 3, m = 2), where some g_x dips below zero within 1e-9 of
# t = 1/2 and is ≥ 0 again at t = 1/2, between any two tested points; the reference values are the first sign
# changes isolated independently (exact coefficients, square-free parts, Sturm sequences, and sympy's exact root
# isolation as a second check)
DIPS = [
    (
        1.0035804137321559e-08,
        [0.12499999937276224, 0.12499999979092075, 0.12499999979092075, 0.12500000020907925]
        + [0.12499999979092075, 0.12500000020907925, 0.12500000020907925, 0.12500000062723776],
    ),
    (
        2.8515513148494284e-07,
        [0.1250000330262394, 0.12500001100874453, 0.12500001100874453, 0.12499998899125353]
        + [0.12500001100874453, 0.12499998899125353, 0.12499998899125353, 0.12499996697376642],
    ),
    (
        2.717635457492566e-08,
        [0.12499999830147784, 0.12499999943382595, 0.12499999943382595, 0.12500000056617405]
        + [0.12499999943382595, 0.12500000056617405, 0.12500000056617405, 0.12500000169852216],
    ),
]


@pytest.mark.parametrize(("ref", "pmf"), DIPS)
def test_a_dip_below_zero_between_the_tested_points(ref, pmf):
    """The float test sees every entry ≥ 0 (within rounding) at every tested t; the exact first change of sign of
    the entries that came within their rounding bound finds the dip (before: ε̃_X = 0)."""
    prior = priors.from_pmf(DatabaseSpace(3, 2), np.array(pmf))
    got = _check_boundary(prior, 3, 2)
    assert got == pytest.approx(ref, rel=1e-7)


def test_exactly_uniform_explicit_pmfs_give_zero():
    """g_x = ((1 − mt)/m)^n changes sign exactly at t = 1/m, the end of the range: ε̃_X = 0 exactly."""
    for n, m in ((1, 2), (3, 2), (5, 2), (2, 3), (3, 3)):
        assert eps_tilde(priors.from_pmf(DatabaseSpace(n, m), np.full(m**n, 1.0 / m**n))) == 0.0


def test_the_last_float_before_a_change_of_sign():
    """A row 8e-16 from uniform at n = 4: the change of sign lies two floats of t below 1/2 (the boundary check
    is in floats of t; many floats of ε ≈ 1e-14 map to one t); the reference value was isolated independently
    (exact coefficients, Sturm sequences)."""
    row = np.array([0.5000000000000008, 0.4999999999999992])
    space = DatabaseSpace(4, 2)
    explicit = priors.from_pmf(space, priors.iid(space, row).pmf)
    assert _check_boundary(explicit, 4, 2) == pytest.approx(1.2434497875801676e-14, rel=1e-12)


def test_identifiability_mechanism_near_a_tiny_eps_tilde():
    """At ε̃_X ≈ 1e-8 the float E_i loses p_Y to cancellation ((1 − 2t)^−3 ≈ 1e24): refused with the reason, not
    with "needs ε ≥ ε̃_X"; at a larger ε it is built and exactly ε-identifiable."""
    _ref, pmf = DIPS[0]
    prior = priors.from_pmf(DatabaseSpace(3, 2), np.array(pmf))
    tilde = eps_tilde(prior)
    with pytest.raises(InvalidPrivacyLevelError, match="cancellation"):
        identifiability_mechanism(prior, tilde)
    W = identifiability_mechanism(prior, 0.3).matrix
    assert pdi_feasible(W, prior.pmf, 3, 2, 0.3 + 1e-9)

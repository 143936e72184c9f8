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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_feasibility import pdi_feasible  # noqa: E402

from problems import DatabaseSpace, priors  # noqa: E402
from problems.errors import InvalidPrivacyLevelError  # noqa: E402
from problems.mechanism import identifiability_mechanism  # noqa: E402
from problems.prior_constants import eps_tilde, eps_X  # noqa: E402


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

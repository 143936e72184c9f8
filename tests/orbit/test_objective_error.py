r"""The LP path's bounds hold for the exact prior, not only for the LP's float costs.

The orbit-reduced LP's costs are P(t(X) = t)·d(T), with the type law computed through logarithms; its bounds are
rigorous for those floats.  The programs widen them by a bound on the type law's rounding
(:func:`problems.lp.solution.with_objective_error`).  The checks: the exact objective of the returned point under
the exact prior (rational arithmetic on the float parameters, independent of the code under test) lies inside
the returned bounds, and the widening re-decides the status on the widened bounds.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from problems.lp import Bounds, Status
from problems.lp.solution import with_objective_error
from problems.orbit import ReducedPDDP, ReducedPDI
from problems.orbit.symmetric_prior import parse_symmetric_prior

# m = 2 priors whose type laws span many orders of magnitude (masses near 0 or 1, a contagious prior)
CASES = [
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 12, 1.0),
    ("pd-dp", "mixture:0.5,0.5/0.999,0.001/0.3,0.7", 12, 0.7),
    ("pd-dp", "contagious:0.2", 10, 1.5),
    ("pd-i", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 12, 0.4),
]


def _exact_type_law(spec: str, n: int) -> list[Fraction]:
    """P(|X| = k) = C(n, k) Σ_j w_j π_j(1)^k π_j(0)^{n−k}, exactly, for the float parameters of the prior."""
    sym = parse_symmetric_prior(spec, n, 2)
    comps = [(Fraction(w), [Fraction(float(v)) for v in r]) for w, r in zip(sym.weights, sym.row_pmfs)]
    return [math.comb(n, k) * sum(w * r[1] ** k * r[0] ** (n - k) for w, r in comps) for k in range(n + 1)]


@pytest.mark.parametrize(("program", "spec", "n", "eps"), CASES)
def test_exact_objective_inside_bounds(program: str, spec: str, n: int, eps: float) -> None:
    sym = parse_symmetric_prior(spec, n, 2)
    prog = (ReducedPDI if program == "pd-i" else ReducedPDDP)(sym, lift_limit=0)
    level = prog.eps_X + eps if program == "pd-i" else eps
    res = prog.solve(level, method="lp")
    assert res.status == "optimal"
    J = prog.types
    T = J.T.reshape(-1, 4)
    k = T[:, 2] + T[:, 3]
    d = T[:, 1] + T[:, 2]
    law = _exact_type_law(spec, n)
    u = np.asarray(res.extras["u"], dtype=float)
    exact = sum(law[int(kk)] * Fraction(float(uu)) * int(dd) for kk, uu, dd in zip(k, u, d) if uu != 0.0)
    # the point's own normalisation, exactly: Σ_T u[T] over each x-type (the value is per unit row sum)
    sums = [Fraction(0)] * (n + 1)
    for kk, uu in zip(k, u):
        sums[int(kk)] += Fraction(float(uu))
    assert all(abs(s - 1) < Fraction(1, 10**9) for s in sums)
    assert Fraction(res.bounds.lower) <= exact * (1 + Fraction(1, 10**9))
    assert exact <= Fraction(res.bounds.upper) * (1 + Fraction(1, 10**9))
    assert 0.0 < res.extras["objective_error"] < 1e-9


def test_widening_redecides_the_status() -> None:
    res = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 8, 2)).lp.solve(1.0)
    assert res.status is Status.OPTIMAL
    mid = 0.5 * (res.bounds.lower + res.bounds.upper)
    tight = replace(res, bounds=Bounds(mid * (1 - 4e-7), mid * (1 + 4e-7)))
    assert with_objective_error(tight, 0.0) is tight
    kept = with_objective_error(tight, 1e-12)
    assert kept.status is Status.OPTIMAL
    assert kept.bounds.lower < tight.bounds.lower and kept.bounds.upper > tight.bounds.upper
    assert kept.certificate.lower_bound == kept.bounds.lower
    assert kept.certificate.upper_bound == kept.bounds.upper
    lost = with_objective_error(tight, 2e-7)  # the widened gap exceeds 1e-6 relative
    assert lost.status is Status.INACCURATE
    unproved = replace(tight, status=Status.INACCURATE)
    assert with_objective_error(unproved, 1e-12).status is Status.INACCURATE

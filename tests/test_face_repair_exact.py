"""Answers certified through the face repair, checked independently in exact rational arithmetic.

For small dense programs (PD-DP and PD-I on DatabaseSpace(n, m), (n, m) ∈ {(2, 2), (3, 2), (2, 3)}, Dirichlet
priors), the raw answer of each back end (HiGHS, Clarabel, SCS) goes through
``problems.lp.bounds.certify(spec, eps, z, nu, lam)`` (face repair on, the default).  Whenever the answer is
certified:

a) the returned point ``cert.z``, read as the N×N mechanism W (row x, column y: the dense layout
   ``z = W.ravel()``, ``x*N + y``; for PD-I the variable is W = q/p_X, the mechanism itself), is exactly
   feasible (``tests/exact_feasibility.py``: exact row normalisation, e^ε bounded from below);
b) the exact rational optimum (``tests/reference/exact_lp.py``) lies in ``[bounds.lower, bounds.upper]``
   (compared as Fractions of the floats);
c) the exact distortion of the returned point lies between the exact optimum and ``bounds.upper``.

Rounding, handled rigorously instead of with a fixed tolerance.  The programs are solved at ε = fl(ln r) for a
rational r, so e^ε is not r but within about ulp(ε) + 2⁻⁵³ of it, relative (the rounding of r to a float and
of its logarithm: ≲ 1e-15).  Rather than widening the check by a relative 1e-15, the exact optimum is
computed at r₋ = r(1 − w) and r₊ = r(1 + w), w = 2(ulp(ε) + 2⁻⁵³), and r₋ ≤ e^ε ≤ r₊ is checked with a
60-digit :mod:`decimal` e^ε; the optimum is non-increasing in e^ε (larger e^ε, looser constraints), so
OPT(r₊) ≤ OPT(e^ε) ≤ OPT(r₋).  The library's costs are the floats fl(p(x)·d(x, y)) and its bounds are on
that LP; their largest relative deviation δ_c from the exact p(x)·d(x, y) is measured here (≤ 2⁻⁵³) and
moves the optimum by at most that relative amount.  So the asserted (sufficient) conditions are
lower ≤ (1 − δ_c)·OPT(r₊) and (1 + δ_c)·OPT(r₋) ≤ upper.  For c), a point exactly feasible at (a lower
bound on) e^ε is feasible at r₊, so its exact distortion is ≥ OPT(r₊); and it is ≤ upper/(1 − δ_c).

Where the face repair matters: ``certify(..., face=False)`` not refined but ``certify(...)`` refined.  On
these small programs that happens for PD-I just above ε_X (the face points are what proves the value there);
:func:`test_face_repair_cases_exact` runs such cases (found by a scan with these back ends) and requires that
at least one of them is still decided by the face repair, so that the new path stays exercised.  The default
run takes a few seconds; ``-m slow`` adds a scan over more seeds and ε.
"""

from __future__ import annotations

import functools
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_feasibility import distortion, dp_feasible, exp_lower, pdi_feasible  # noqa: E402
from reference import exact_lp as ref  # noqa: E402

from problems import DatabaseSpace, priors  # noqa: E402
from problems.lp.bounds import certify  # noqa: E402
from problems.programs import PDDP, PDI  # noqa: E402
from problems.solvers.backends import backend  # noqa: E402

SOLVERS = ("HIGHS", "CLARABEL", "SCS")
SPACES = ((2, 2), (3, 2), (2, 3))
#: e^ε for PD-DP.
DP_RATIOS = (Fraction(3, 2), Fraction(2), Fraction(3))
#: ε − ε_X for PD-I (e^ε is then a rational close to e^{ε_X + offset}, see :func:`pdi_ratios`).
PDI_OFFSETS = (0.001, 0.01, 0.1, 0.5)

#: (n, m, seed, program, e^ε) where the scan found answers decided by the face repair.
FACE_CASES = (
    (2, 2, 0, "pd-i", Fraction(40477, 90)),
    (2, 3, 0, "pd-i", Fraction(189383, 97)),
    (2, 2, 25, "pd-i", Fraction(36293, 85)),
    (3, 2, 15, "pd-i", Fraction(37)),
    (3, 2, 12, "pd-i", Fraction(4188, 89)),
    (2, 3, 17, "pd-i", Fraction(1035, 29)),
    (2, 3, 25, "pd-i", Fraction(204225, 94)),
)


# ------------------------------------------------------------------------------------------------------------
# Cases and the exact reference
# ------------------------------------------------------------------------------------------------------------


@functools.cache
def program(n: int, m: int, seed: int, name: str):  # noqa: ANN201
    """(prior, program object) for a Dirichlet(1, …, 1) prior drawn with ``seed``."""
    space = DatabaseSpace(n, m)
    prior = priors.from_pmf(space, np.random.default_rng(seed).dirichlet(np.ones(space.size)))
    return prior, (PDDP(prior) if name == "pd-dp" else PDI(prior))


def exact_pmf(prior) -> list[Fraction]:  # noqa: ANN001
    return [Fraction(float(p)) for p in prior.pmf]


def bracket(r: Fraction) -> tuple[float, Fraction, Fraction]:
    """ε = fl(ln r) and rationals r₋ ≤ e^ε ≤ r₊ (checked with a 60-digit e^ε)."""
    eps = math.log(r)  # ln of float(r): relative error ≤ 2⁻⁵³ in r, then a few ulp(ε)/2 in the logarithm
    width = 2 * (Fraction(math.ulp(eps)) + Fraction(1, 2**53))
    r_lo, r_hi = r * (1 - width), r * (1 + width)
    e_lo = exp_lower(eps)  # e^ε(1 − 1e-58) up to a 60-digit rounding: e^ε ≤ e_lo (1 + 1e-50)
    assert r_lo <= e_lo and e_lo * (1 + Fraction(1, 10**50)) <= r_hi
    return eps, r_lo, r_hi


@functools.cache
def exact_optima(n: int, m: int, seed: int, name: str, r: Fraction) -> tuple[Fraction, Fraction]:
    """(OPT(r₊), OPT(r₋)): exact optima bracketing OPT(e^ε) for ε = fl(ln r)."""
    prior, _ = program(n, m, seed, name)
    p = exact_pmf(prior)
    _, r_lo, r_hi = bracket(r)
    solve = ref.pd_dp if name == "pd-dp" else ref.pd_i
    lo, hi = solve(p, n, m, r_hi), solve(p, n, m, r_lo)
    assert lo is not None and hi is not None, "PD-I infeasible at the bracket: pick a larger e^ε"
    assert lo <= hi
    return lo, hi


def pdi_ratios(n: int, m: int, seed: int, offsets=PDI_OFFSETS) -> list[Fraction]:  # noqa: ANN001
    """Rationals e^ε ≈ e^{ε_X + offset} (denominator ≤ 100) at which PD-I is feasible with room for r₋."""
    prior, prog = program(n, m, seed, "pd-i")
    ratio = ref.max_neighbour_ratio(exact_pmf(prior), n, m)
    out: list[Fraction] = []
    for off in offsets:
        r = Fraction(math.exp(prog.eps_X + off)).limit_denominator(100)
        eps, r_lo, _ = bracket(r)
        if r not in out and eps >= prog.eps_X and r_lo >= ratio:
            out.append(r)
    return out


def cost_deviation(spec, prior, n: int, m: int) -> Fraction:  # noqa: ANN001
    """The largest relative deviation of the spec's float costs from the exact p(x)·d(x, y)."""
    xs = ref.databases(n, m)
    N = len(xs)
    p = exact_pmf(prior)
    worst = Fraction(0)
    for x in range(N):
        for y in range(N):
            exact = p[x] * ref.hamming(xs[x], xs[y])
            got = Fraction(float(spec.c[x * N + y]))
            if exact == 0:
                assert got == 0
            else:
                worst = max(worst, abs(got - exact) / exact)
    assert worst <= Fraction(1, 2**53)
    return worst


# ------------------------------------------------------------------------------------------------------------
# The check
# ------------------------------------------------------------------------------------------------------------


def check(n: int, m: int, seed: int, name: str, r: Fraction, solver: str) -> str:
    """Certify one back end's raw answer; assert a)–c) when certified.

    Returns ``"uncertified"``, ``"face"`` (refined only with the face repair) or ``"certified"``.
    """
    prior, prog = program(n, m, seed, name)
    spec = prog.lp.spec
    N = m**n
    assert spec.K == N * N and np.all(spec.b == 1.0)
    eps, _, _ = bracket(r)
    raw = backend(solver).solve(spec, eps, time_limit=60)
    cert = certify(spec, eps, raw.z, raw.nu, raw.lam)
    if not cert.certified:
        return "uncertified"
    where = f"{name} n={n} m={m} seed={seed} e^eps={r} ({solver}): bounds {cert.bounds}"
    opt_lo, opt_hi = exact_optima(n, m, seed, name, r)  # OPT(r₊) ≤ OPT(e^ε) ≤ OPT(r₋)
    dc = cost_deviation(spec, prior, n, m)
    lower, upper = Fraction(cert.bounds.lower), Fraction(cert.bounds.upper)
    # b) the exact optimum inside the bounds
    assert lower <= (1 - dc) * opt_lo, f"{where}: lower bound above the exact optimum {float(opt_lo)!r}"
    assert (1 + dc) * opt_hi <= upper, f"{where}: upper bound below the exact optimum {float(opt_hi)!r}"
    # a) the returned point exactly feasible
    W = np.asarray(cert.z, dtype=float).reshape(N, N)
    feasible = dp_feasible(W, n, m, eps) if name == "pd-dp" else pdi_feasible(W, prior.pmf, n, m, eps)
    assert feasible, f"{where}: returned point not exactly feasible"
    # c) its exact value between the optimum and the upper bound
    value = distortion(W, prior.pmf, n, m)
    assert opt_lo <= value, f"{where}: a feasible point below the exact optimum?"
    assert value * (1 - dc) <= upper, f"{where}: point's exact value {float(value)!r} above the upper bound"
    if cert.refined and not certify(spec, eps, raw.z, raw.nu, raw.lam, face=False).refined:
        return "face"
    return "certified"


def run_grid(n: int, m: int, seeds, dp_ratios, pdi_offsets) -> dict[str, int]:  # noqa: ANN001
    counts = {"uncertified": 0, "certified": 0, "face": 0}
    for seed in seeds:
        cases = [("pd-dp", r) for r in dp_ratios] + [("pd-i", r) for r in pdi_ratios(n, m, seed, pdi_offsets)]
        for name, r in cases:
            for solver in SOLVERS:
                counts[check(n, m, seed, name, r, solver)] += 1
    return counts


# ------------------------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "m"), SPACES)
def test_certified_answers_exact(n, m):
    """Seeds 0, 1; PD-DP at e^ε ∈ {3/2, 2, 3}, PD-I at ε ≈ ε_X + {0.001, 0.01, 0.1, 0.5}; three back ends."""
    counts = run_grid(n, m, (0, 1), DP_RATIOS, PDI_OFFSETS)
    assert counts["certified"] + counts["face"] > 0, counts


def test_face_repair_cases_exact():
    """Cases where the face repair decided the certificate (PD-I just above ε_X): a)–c) for every certified
    answer, and the face repair still deciding at least one of them."""
    outcomes = {}
    for n, m, seed, name, r in FACE_CASES:
        for solver in SOLVERS:
            outcomes[(n, m, seed, name, str(r), solver)] = check(n, m, seed, name, r, solver)
    face = [k for k, v in outcomes.items() if v == "face"]
    assert face, f"no case decided by the face repair any more: {outcomes}"


@pytest.mark.slow
@pytest.mark.parametrize(("n", "m"), SPACES)
def test_certified_answers_exact_scan(n, m):
    """Seeds 2 – 15, PD-DP at seven values of e^ε from 1.1 to 10, PD-I at ε − ε_X from 1e-4 to 1."""
    counts = run_grid(
        n,
        m,
        range(2, 16),
        tuple(Fraction(v) for v in ("11/10", "5/4", "3/2", "2", "3", "5", "10")),
        (1e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.5, 1.0),
    )
    assert counts["certified"] + counts["face"] > 0 and counts["face"] > 0, counts

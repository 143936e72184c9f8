"""Answers that theory settles are certified: design at ε = 0 and above the unconstrained optimum's C₁, PD-DP
at ε so small that e^ε rounds to 1, PD-MIP at D = 0, exact zeros of the prior constants, R-PD's prior-free
basis.  References are computed here by brute force in exact rational arithmetic (itertools + Fraction)."""

from __future__ import annotations

import itertools
import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import exact_lp as ref  # noqa: E402

from problems import DatabaseSpace, priors  # noqa: E402
from problems.cli import main  # noqa: E402
from problems.design import IPDesign, design_problem  # noqa: E402
from problems.dispatch import make_program  # noqa: E402
from problems.prior_constants import eps_tilde, eps_X  # noqa: E402
from problems.programs import PDDP, PDI, PDMIP, RPD  # noqa: E402


def _count_best_constant(n: int, dist) -> Fraction:  # noqa: ANN001
    """min over outputs y ∈ {0..n} of E dist(count(X), y) under the uniform prior on {0,1}ⁿ, exactly."""
    xs = list(itertools.product(range(2), repeat=n))
    p = Fraction(1, len(xs))
    return min(sum(p * dist(sum(x), y) for x in xs) for y in range(n + 1))


@pytest.mark.parametrize(
    ("distortion", "dist"),
    [("hamming", lambda a, y: int(a != y)), ("absolute", lambda a, y: abs(a - y))],
)
def test_design_at_eps_zero_is_the_best_constant_row(distortion, dist):
    problem = design_problem(DatabaseSpace(3, 2), "count", distortion=distortion)
    exact = _count_best_constant(3, dist)
    for factor in (False, True):
        res = IPDesign(problem, factor=factor).solve(0.0)
        assert res.status == "optimal" and res.certified
        assert Fraction(res.bounds.lower) <= exact <= Fraction(res.bounds.upper)
        assert res.value == pytest.approx(float(exact), rel=1e-15)
        assert np.all(res.matrix == res.matrix[:1])  # constant: C₁ = 0 exactly


def test_design_cli_eps_zero_exit_0(capsys):
    assert main(["design", "--query", "count", "--n", "3", "--eps", "0", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and out["value"] == 0.625


@pytest.mark.parametrize("objective", ["expected", "worst"])
@pytest.mark.parametrize("eps", [0.7, 100.0])
def test_design_above_the_unconstrained_capacity(objective, eps):
    """The unconstrained optimum (the identity on answers, C₁ = ln 2 < ε) has distortion 0: value exactly 0."""
    res = IPDesign(design_problem(DatabaseSpace(3, 2), "count"), objective=objective).solve(eps)
    assert res.certified and res.bounds.lower == res.bounds.upper == res.value == 0.0


def test_design_just_below_ln2_is_not_the_theorem():
    """fl(ln 2) < ln 2 = C₁ of the unconstrained optimum: the theorem must not claim it (margin)."""
    res = IPDesign(design_problem(DatabaseSpace(3, 2), "count")).solve(math.log(2))
    assert res.extras.get("repair_theta") is not None and res.value >= 0
    assert "unconstrained" not in res.certificate.basis


def test_design_cli_large_eps_exit_0():
    assert main(["design", "--query", "count", "--n", "3", "--eps", "100", "--quiet"]) == 0


PMF = (0.1, 0.2, 0.3, 0.4)


def _best_constant_exact(pmf, n: int, m: int) -> Fraction:  # noqa: ANN001
    xs = list(itertools.product(range(m), repeat=n))
    p = [Fraction(float(v)) for v in pmf]
    return min(sum(p[i] * ref.hamming(x, y) for i, x in enumerate(xs)) for y in xs)


@pytest.mark.parametrize("eps", [1e-320, 5e-324, 1e-17, 1e-9])
def test_pd_dp_at_tiny_eps_is_certified(eps):
    n, m = 2, 2
    prior = priors.from_pmf(DatabaseSpace(n, m), np.array(PMF))
    res = PDDP(prior).solve(eps)
    assert res.certified
    zero = _best_constant_exact(PMF, n, m)  # D*(0); D*(ε) ≤ D*(0) and ≥ e^{−nε} D*(0)
    assert Fraction(res.bounds.lower) <= zero * Fraction(1) and zero <= Fraction(res.bounds.upper)
    if eps >= 1e-12:  # the exact LP optimum at r = fl(e^ε) (independent simplex in Fractions)
        exact = ref.pd_dp(PMF, n, m, Fraction(math.exp(eps)))
        assert Fraction(res.bounds.lower) <= exact * (1 + Fraction(1, 10**12))
        assert exact <= Fraction(res.bounds.upper) * (1 + Fraction(1, 10**12))


@pytest.mark.parametrize("eps", [1e-320, 1e-9])
def test_reduced_and_uniform_programs_at_tiny_eps(eps):
    iid = priors.iid(DatabaseSpace(3, 2), [0.3, 0.7])
    res = make_program("pd-dp", iid, "reduced").solve(eps)
    assert res.certified
    zero = _best_constant_exact(iid.pmf, 3, 2)
    assert Fraction(res.bounds.lower) <= zero <= Fraction(res.bounds.upper) * (1 + Fraction(1, 10**15))
    uni = priors.uniform(DatabaseSpace(2, 2))
    for r in (PDI(uni).solve(eps), RPD(DatabaseSpace(2, 2)).solve(eps), PDDP(uni).solve(eps, method="lp")):
        assert r.certified and r.bounds.lower <= 1.0 <= r.bounds.upper * (1 + 1e-15)


def test_cli_eps_1e_320_exit_0():
    argv = ["solve", "pd-dp", "--n", "2", "--m", "2", "--prior", "pmf:0.1,0.2,0.3,0.4", "--eps", "1e-320"]
    assert main(argv) == 0


@pytest.mark.parametrize(
    "pmf", [PMF, (0.25, 0.25, 0.25, 0.25), (0.0, 0.5, 0.5, 0.0), (1e-9, 0.5, 0.5 - 1e-9, 0.0)]
)
def test_pd_mip_at_zero_distortion_is_the_entropy(pmf):
    prior = priors.from_pmf(DatabaseSpace(2, 2), np.array(pmf))
    H = math.fsum(-p * math.log(p) for p in pmf if p > 0)
    res = PDMIP(prior).solve(0.0)
    assert res.certified and res.bounds.lower <= H <= res.bounds.upper
    assert res.value == pytest.approx(H, rel=1e-14)
    W = res.matrix
    assert all(W[i, i] == 1.0 for i in range(4) if pmf[i] > 0)


def test_pd_mip_cli_zero_distortion_exit_0():
    argv = ["solve", "pd-mip", "--n", "2", "--m", "2", "--prior", "pmf:0.1,0.2,0.3,0.4", "--distortion", "0"]
    assert main(argv) == 0


@pytest.mark.parametrize(("n", "m"), [(10, 10), (3, 7), (1, 2), (6, 3)])
def test_uniform_constants_are_exactly_zero(n, m, capsys):
    prior = priors.uniform(DatabaseSpace(n, m)) if m**n <= 4096 else None
    if prior is not None:
        assert eps_X(prior) == 0.0 and eps_tilde(prior) == 0.0
    assert main(["constants", "--n", str(n), "--m", str(m), "--prior", "uniform", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["eps_X"] == 0.0 and out["eps_tilde"] == 0.0


def test_iid_eps_X_closed_form():
    prior = priors.iid(DatabaseSpace(3, 3), [0.2, 0.3, 0.5])
    logp = np.log(prior.pmf)
    i, j = zip(*ref.neighbour_pairs(3, 3), strict=True)
    brute = float(np.max(logp[list(i)] - logp[list(j)]))
    assert eps_X(prior) == pytest.approx(brute, rel=1e-14)
    assert eps_X(priors.iid(DatabaseSpace(3, 2), [0.5, 0.5])) == 0.0


def test_r_pd_basis_does_not_claim_the_prior(capsys):
    assert main(["solve", "r-pd", "--n", "2", "--m", "2", "--prior", "iid:0.3,0.7", "--eps", "1"]) == 0
    out = capsys.readouterr().out
    assert "ε_X = ε̃_X = 0" not in out and "iid" not in out
    assert "no prior" in out and "not used" in out

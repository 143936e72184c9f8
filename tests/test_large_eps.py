"""Privacy levels so large that e^ε overflows: answered by theory and certified by the absolute tolerance.

Independent checks: the returned mechanism is exactly feasible (rational arithmetic, ``exact_feasibility``),
its exact distortion is an upper bound on the optimum (so the optimum is at most the reported upper bound),
and that bound is below ``ABSOLUTE_GAP``; the command lines exit 0.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_feasibility import distortion, dp_feasible, joint_feasible, pdi_feasible  # noqa: E402

from problems import DatabaseSpace, priors  # noqa: E402
from problems.cli import main  # noqa: E402
from problems.dispatch import make_program  # noqa: E402
from problems.information.basic_channels import calibrate_exponential  # noqa: E402
from problems.lp.bounds import ABSOLUTE_GAP, certified  # noqa: E402
from problems.programs import PDDP, PDI, RPD  # noqa: E402

PMF = (0.1, 0.2, 0.3, 0.4)
HUGE = (709.9, 800.0, 1e308)


def _check(res, W, pmf, n, m, eps, feasible) -> None:  # noqa: ANN001
    assert res.status == "optimal" and res.certified
    assert res.bounds.lower >= 0 and res.bounds.upper <= ABSOLUTE_GAP
    assert "absolute tolerance" in res.certificate.basis
    assert feasible(W)
    assert distortion(W, pmf, n, m) <= Fraction(res.bounds.upper)


@pytest.mark.parametrize("eps", HUGE)
def test_dense_programs_at_huge_eps(eps):
    n, m = 2, 2
    prior = priors.from_pmf(DatabaseSpace(n, m), np.array(PMF))
    res = PDDP(prior).solve(eps)
    _check(res, res.matrix, PMF, n, m, eps, lambda W: dp_feasible(W, n, m, eps))
    res = PDDP(prior).solve(eps, method="lp")
    _check(res, res.matrix, PMF, n, m, eps, lambda W: dp_feasible(W, n, m, eps))
    res = PDI(prior).solve(eps)
    _check(res, res.matrix, PMF, n, m, eps, lambda W: pdi_feasible(W, PMF, n, m, eps))
    res = RPD(DatabaseSpace(n, m)).solve(eps)
    q = np.asarray(res.extras["p_x"])[:, None] * res.matrix
    assert res.certified and res.bounds.upper <= ABSOLUTE_GAP and joint_feasible(q, n, m, eps)


@pytest.mark.parametrize("eps", HUGE)
@pytest.mark.parametrize("name", ["pd-dp", "pd-i"])
def test_reduced_programs_at_huge_eps(name, eps):
    n, m = 3, 2
    prior = priors.iid(DatabaseSpace(n, m), [0.3, 0.7])
    res = make_program(name, prior, "reduced").solve(eps)
    # the joint-type LP, or the single-letter theorem where its one-row LP is certified (PD-DP at 709.9)
    assert res.extras["path"] in ("reduced", "theorem") and res.certified
    assert res.bounds.upper <= ABSOLUTE_GAP
    W, pmf = res.matrix, prior.pmf
    ok = dp_feasible(W, n, m, eps) if name == "pd-dp" else pdi_feasible(W, pmf, n, m, eps)
    assert ok and distortion(W, pmf, n, m) <= Fraction(res.bounds.upper)


@pytest.mark.parametrize("eps", HUGE)
def test_distance_reduction_at_huge_eps(eps):
    n, m = 3, 2
    for name in ("pd-dp", "r-pd"):
        arg = DatabaseSpace(n, m) if name == "r-pd" else priors.uniform(DatabaseSpace(n, m))
        res = make_program(name, arg, "reduced").solve(eps)
        assert res.certified and res.bounds.upper <= ABSOLUTE_GAP
        assert dp_feasible(res.matrix, n, m, eps)


def test_the_rule_has_an_absolute_tolerance():
    # the absolute tolerance is 1e-12 in the objective's unit: [0, 1e-150] and [0, 5e-13] are certified
    assert certified(0.0, 1e-250) and certified(0.0, ABSOLUTE_GAP / 2) and certified(0.0, 1e-150)
    assert not certified(0.0, 2 * ABSOLUTE_GAP) and not certified(0.0, math.inf)
    assert certified(1.0, 1.0 + 1e-7) and not certified(1.0, 1.0 + 1e-5)


@pytest.mark.parametrize(
    "argv",
    [
        ["pd-dp", "--n", "2", "--m", "2", "--prior", "iid:0.3,0.7", "--eps", "1e308"],
        ["pd-dp", "--n", "2", "--m", "2", "--prior", "pmf:0.1,0.2,0.3,0.4", "--eps", "800", "--path", "lp"],
        ["pd-i", "--n", "2", "--m", "2", "--prior", "iid:0.3,0.7", "--eps", "1e308"],
        ["r-pd", "--n", "2", "--m", "2", "--eps", "800"],
    ],
)
def test_cli_answers_at_huge_eps(argv, capsys):
    assert main(["solve", *argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and out["bounds"]["upper"] <= ABSOLUTE_GAP


def _continuum_root(eps: float) -> float:
    """x = kλ in the limit k → ∞: H(Z) − ln k → g(x) = ln((1 − e^{−x})/x) + 1 − x/(e^x − 1); solve g(x) = −ε
    by bisection (g decreases from 0)."""

    def g(x: float) -> float:
        return math.log(-math.expm1(-x) / x) + 1 - x / math.expm1(x)

    lo, hi = 1e-9, 1.0
    while g(hi) > -eps:
        hi *= 2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if g(mid) > -eps else (lo, mid)
    return 0.5 * (lo + hi)


@pytest.mark.parametrize("k", [10**9, 10**30])
def test_calibrate_exponential_for_huge_k(k):
    cal = calibrate_exponential(0.5, k)
    assert cal.value * k == pytest.approx(_continuum_root(0.5), rel=1e-7)


def test_calibrate_exponential_against_direct_entropy():
    k = 10**6
    lam = calibrate_exponential(0.5, k).value
    w = np.exp(-lam * np.arange(k))
    w /= w.sum()
    entropy = -math.fsum((w * np.log(w)).tolist())
    assert entropy == pytest.approx(math.log(k) - 0.5, rel=1e-10)


def test_calibrate_cli_huge_k(capsys):
    assert main(["calibrate", "exponential", "--eps", "0.5", "--k", "1000000000"]) == 0

r"""PD-I for exchangeable mixtures of i.i.d. priors by Lemma 4 per component (problems/orbit/mixture_pd_i.py),
against references that never use it.

The theorem: if every component of p_X = Σ_j w_j π_j^{⊗n} has π_j(a)(e^ε + m − 1) ≥ 1, then PD-I_n(ε) = h(ε),
attained by E_i with output law Σ_j w_j ρ_j^{⊗n}.  References:

* the n-row dense LP over all mⁿ × mⁿ entries in exact rational arithmetic (tests/reference/exact_lp.py) at
  n = 2, 3 (m = 2) and n = 2 (m = 3); the lifted mechanism is checked exactly PD-I feasible and its exact
  distortion lies inside the bounds (tests/exact_feasibility.py);
* the joint-type LP of tests/orbit/test_reduced_independent_highs.py (written from the definitions, HiGHS) at
  n = 20;
* h(ε) = n(m−1)e^{−ε}/(1 + (m−1)e^{−ε}) (Lemma 1 of Wang, Ying & Zhang 2016, written out here) at n up to 200.
"""

from __future__ import annotations

import functools
import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from exact_feasibility import distortion, pdi_feasible  # noqa: E402
from reference import exact_lp as ref  # noqa: E402
from test_reduced_independent_highs import reference as highs_reference  # noqa: E402

from problems.errors import InvalidInputError  # noqa: E402
from problems.orbit import ReducedPDI  # noqa: E402
from problems.orbit.mixture_pd_i import identifiability_condition, mixture_identifiability_theorem  # noqa: E402
from problems.orbit.symmetric_prior import parse_symmetric_prior, symmetric_mixture  # noqa: E402

REL = 1e-6
BOUND_SLACK = 1e-12
HIGHS_ABS = 1e-9

#: (weights, components); the condition holds from ε = max_j ln(max π_j / min π_j) for m = 2
PRIORS = {
    "m2-mixture": ((0.5, 0.5), ((0.8, 0.2), (0.3, 0.7))),
    "m2-three": ((0.2, 0.3, 0.5), ((0.9, 0.1), (0.4, 0.6), (0.25, 0.75))),
    "m3-mixture": ((0.5, 0.5), ((0.5, 0.3, 0.2), (0.2, 0.3, 0.5))),
}


def _h(eps: float, n: int, m: int) -> float:
    """Lemma 1 of Wang, Ying & Zhang (2016): h(ε) = n (m−1) e^{−ε} / (1 + (m−1) e^{−ε})."""
    t = (m - 1) * math.exp(-eps)
    return n * t / (1.0 + t)


def _threshold(rows) -> float:  # noqa: ANN001
    """Lemma 4's condition for every component: π_min (e^ε + m − 1) ≥ 1."""
    return max(math.log(1.0 / min(r) - (len(r) - 1)) for r in rows)


def _pmf(name: str, n: int) -> list[Fraction]:
    weights, rows = PRIORS[name]
    m = len(rows[0])
    fw = [Fraction(w) for w in weights]
    fr = [[Fraction(v) for v in r] for r in rows]
    return [
        sum((w * math.prod((r[a] for a in x), start=Fraction(1)) for w, r in zip(fw, fr)), start=Fraction(0))
        for x in itertools.product(range(m), repeat=n)
    ]


@functools.cache
def _exact(name: str, n: int, eps: float) -> Fraction | None:
    m = len(PRIORS[name][1][0])
    return ref.pd_i(_pmf(name, n), n, m, Fraction(math.exp(eps)))


def _cases() -> list:
    out = []
    for name, (_, rows) in PRIORS.items():
        th = _threshold(rows)
        for n in (2, 3) if name.startswith("m2") else (2,):
            for off in (1e-6, 0.05, 1.0, 20.0):
                out.append(pytest.param(name, n, th + off, id=f"{name}-n{n}-thr+{off:g}"))
    return out


@pytest.mark.parametrize("name,n,eps", _cases())
def test_theorem_matches_the_exact_dense_optimum(name, n, eps):
    """Above Lemma 4's level for every component: the answer is the theorem's, its bounds contain the exact
    optimum, which equals h(ε); the lifted mechanism is exactly PD-I feasible with exact distortion within the
    bounds."""
    weights, rows = PRIORS[name]
    m = len(rows[0])
    prior = symmetric_mixture(n, [list(r) for r in rows], list(weights))
    res = ReducedPDI(prior).solve(eps)
    exact = _exact(name, n, eps)
    assert exact is not None
    assert "Lemma 4 per component" in res.extras.get("theorem", ""), res.stats
    assert res.status == "optimal"
    assert res.bounds.lower <= float(exact) * (1 + BOUND_SLACK)
    assert float(exact) * (1 - BOUND_SLACK) <= res.bounds.upper
    assert abs(res.value - float(exact)) <= REL * float(exact)
    assert abs(float(exact) - _h(eps, n, m)) <= 1e-12 * _h(eps, n, m)  # PD-I = R-PD = h(ε) here
    W = res.mechanism.matrix
    assert res.extras["mechanism_level"] == "database" and W.shape == (m**n, m**n)
    pmf = _pmf(name, n)
    assert pdi_feasible(W, pmf, n, m, eps)
    assert float(distortion(W, pmf, n, m)) <= res.bounds.upper * (1 + BOUND_SLACK)


@pytest.mark.parametrize("off", [-0.05, -1e-3])
def test_below_the_condition_the_lp_answers(off):
    """Just below Lemma 4's level of the component (0.8, 0.2) (ln 4): the theorem does not answer; the LP does,
    with a value at or above h(ε) (PD-I ⊂ R-PD)."""
    prior = parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 3, 2)
    program = ReducedPDI(prior)
    eps = math.log(4.0) + off
    assert eps >= program.eps_X
    assert mixture_identifiability_theorem(program, eps) is None
    with pytest.raises(InvalidInputError):
        program.solve(eps, method="theorem")
    res = program.solve(eps)
    assert res.status == "optimal" and "Lemma 4 per component" not in res.extras.get("theorem", "")
    assert res.value >= _h(eps, 3, 2) * (1 - REL)


@pytest.mark.parametrize("off", [0.01, 0.3, 2.0, 20.0])
@pytest.mark.parametrize("spec", ["mixture:0.5,0.5/0.8,0.2/0.3,0.7", "mixture:0.5,0.5/0.999,0.001/0.3,0.7"])
def test_matches_the_independent_joint_type_lp(spec, off):
    """n = 20: at ε_X + offset, wherever the condition holds, the theorem's answer matches the independently
    built joint-type LP (HiGHS) to 1e-6 and its bounds contain it."""
    n = 20
    program = ReducedPDI(parse_symmetric_prior(spec, n, 2))
    eps = program.eps_X + off
    rows = [r for r in program.prior.row_pmfs]
    if not identifiability_condition(rows, eps):
        pytest.skip("Lemma 4's condition does not hold here (the LP answers; covered elsewhere)")
    res = program.solve(eps)
    reference = highs_reference(spec, n, "pd-i", eps)
    assert "Lemma 4 per component" in res.extras["theorem"] and res.status == "optimal"
    assert res.bounds.lower - HIGHS_ABS <= reference <= res.bounds.upper + HIGHS_ABS
    assert abs(res.value - reference) <= REL * reference


@pytest.mark.parametrize("n", [60, 100, pytest.param(200, marks=pytest.mark.slow)])
@pytest.mark.parametrize("off", [0.01, 0.3, 2.0, 48.0])
def test_large_n_equals_h(n, off):
    """The README's mixture at n = 60–200: ε_X → ln 4, the components' level, so every feasible ε a little above
    ε_X is answered by the theorem (the LP took 45–90 s at n = 100 and minutes at 200), equal to h(ε)."""
    program = ReducedPDI(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", n, 2))
    eps = program.eps_X + off
    res = program.solve(eps)
    h = _h(eps, n, 2)
    assert res.status == "optimal" and "Lemma 4 per component" in res.extras["theorem"]
    assert res.bounds.lower <= h * (1 + BOUND_SLACK) and h * (1 - BOUND_SLACK) <= res.bounds.upper
    assert abs(res.value - h) <= REL * h

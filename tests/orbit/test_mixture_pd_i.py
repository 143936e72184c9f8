r"""PD-I for exchangeable priors by Lemma 4 in type space (problems/orbit/mixture_pd_i.py), against references
that never use it.

The theorem: for p_X = Σ_j w_j π_j^{⊗n}, if p_Y = Σ_j w_j (K₁⁻¹π_j)^{⊗n} ≥ 0 then PD-I_n(ε) = h(ε), attained by
E_i (a sufficient condition: every component has π_j(a)(e^ε + m − 1) ≥ 1).  References:

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
from problems.orbit.mixture_pd_i import log_output_law, mixture_identifiability_theorem  # noqa: E402
from problems.orbit.symmetric_prior import parse_symmetric_prior, symmetric_mixture  # noqa: E402

REL = 1e-6
BOUND_SLACK = 1e-12
HIGHS_ABS = 1e-9

#: (weights, components); the per-component condition holds from ε = max_j ln(max π_j / min π_j) for m = 2; the
#: contagious priors (point-mass components) need the signed sums
PRIORS = {
    "m2-mixture": ((0.5, 0.5), ((0.8, 0.2), (0.3, 0.7))),
    "m2-three": ((0.2, 0.3, 0.5), ((0.9, 0.1), (0.4, 0.6), (0.25, 0.75))),
    "m3-mixture": ((0.5, 0.5), ((0.5, 0.3, 0.2), (0.2, 0.3, 0.5))),
    "m2-contagious": ((0.8, 0.06, 0.14), ((0.3, 0.7), (1.0, 0.0), (0.0, 1.0))),
    "m3-contagious": (
        (0.7, 0.1, 0.1, 0.1),
        ((0.2, 0.3, 0.5), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    ),
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
    for name in PRIORS:
        for n in (2, 3) if name.startswith("m2") else (2,):
            if "contagious" in name:  # relative to ε_X (the per-component level is infinite)
                grid = [("epsX", off) for off in (0.05, 0.5, 2.0, 20.0)]
            else:
                grid = [("level", off) for off in (1e-6, 0.05, 1.0, 20.0)]
                grid += [("epsX", 1e-3)]
            for base, off in grid:
                out.append(pytest.param(name, n, base, off, id=f"{name}-n{n}-{base}+{off:g}"))
    return out


@pytest.mark.parametrize("name,n,base,off", _cases())
def test_theorem_matches_the_exact_dense_optimum(name, n, base, off):
    """The exact optimum of the n-row LP at ε = (level or ε_X) + offset lies inside the answer's bounds and within
    1e-6 of its value; where p_Y ≥ 0 is proved the answer is the theorem's, the exact optimum equals h(ε), and the
    lifted mechanism is exactly PD-I feasible with exact distortion within the bounds."""
    weights, rows = PRIORS[name]
    m = len(rows[0])
    prior = symmetric_mixture(n, [list(r) for r in rows], list(weights))
    program = ReducedPDI(prior)
    eps = (program.eps_X if base == "epsX" else _threshold(rows)) + off
    res = program.solve(eps)
    exact = _exact(name, n, eps)
    assert exact is not None
    assert res.status == "optimal"
    assert res.bounds.lower <= float(exact) * (1 + BOUND_SLACK)
    assert float(exact) * (1 - BOUND_SLACK) <= res.bounds.upper
    assert abs(res.value - float(exact)) <= REL * float(exact)
    theorem = "Lemma 4 for the exchangeable prior" in res.extras.get("theorem", "")
    if base == "level" and off > 0:  # the per-component condition holds: the sum is non-negative
        assert log_output_law(prior, eps) is not None
    if not theorem:
        return
    assert abs(float(exact) - _h(eps, n, m)) <= 1e-12 * _h(eps, n, m)  # PD-I = R-PD = h(ε) here
    W = res.mechanism.matrix
    assert res.extras["mechanism_level"] == "database" and W.shape == (m**n, m**n)
    pmf = _pmf(name, n)
    assert pdi_feasible(W, pmf, n, m, eps)
    assert float(distortion(W, pmf, n, m)) <= res.bounds.upper * (1 + BOUND_SLACK)


def test_the_theorem_answers_the_exact_cases():
    """Every prior above answers by the theorem somewhere on the grid (the grid is not vacuous)."""
    for name, (weights, rows) in PRIORS.items():
        prior = symmetric_mixture(2, [list(r) for r in rows], list(weights))
        program = ReducedPDI(prior)
        res = program.solve(program.eps_X + 2.0)
        assert "Lemma 4 for the exchangeable prior" in res.extras.get("theorem", ""), name


def test_below_the_output_law_level_the_lp_answers():
    """n = 3, ε_X + 0.05: p_Y has a negative entry, so the theorem does not answer (method="theorem" is bad
    input) and the LP does, with a value above h(ε) (PD-I ⊂ R-PD, and here strictly)."""
    program = ReducedPDI(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 3, 2))
    eps = program.eps_X + 0.05
    assert log_output_law(program.prior, eps) is None
    assert mixture_identifiability_theorem(program, eps) is None
    with pytest.raises(InvalidInputError):
        program.solve(eps, method="theorem")
    res = program.solve(eps)
    assert res.status == "optimal" and "Lemma 4 for the exchangeable" not in res.extras.get("theorem", "")
    assert res.value >= _h(eps, 3, 2) * (1 + 1e-3)


def test_negative_component_entries_cancel():
    """n = 3, ε = ln 4 − 0.03: the component (0.8, 0.2) has ρ(1) < 0 (below its own Lemma 4 level), yet the
    mixture's p_Y is non-negative; the theorem answers h(ε), and the exact LP agrees."""
    name = "m2-mixture"
    weights, rows = PRIORS[name]
    prior = symmetric_mixture(3, [list(r) for r in rows], list(weights))
    eps = math.log(4.0) - 0.03
    assert eps < _threshold(rows)
    res = ReducedPDI(prior).solve(eps)
    assert "Lemma 4 for the exchangeable prior" in res.extras["theorem"] and res.status == "optimal"
    exact = float(_exact(name, 3, eps))
    assert abs(exact - _h(eps, 3, 2)) <= 1e-12 * exact
    assert res.bounds.lower <= exact * (1 + BOUND_SLACK) and exact * (1 - BOUND_SLACK) <= res.bounds.upper


@pytest.mark.parametrize("off", [0.01, 0.3, 2.0, 20.0])
@pytest.mark.parametrize(
    "spec", ["mixture:0.5,0.5/0.8,0.2/0.3,0.7", "mixture:0.5,0.5/0.999,0.001/0.3,0.7", "contagious:0.2"]
)
def test_matches_the_independent_joint_type_lp(spec, off):
    """n = 20: at ε_X + offset, wherever the condition holds, the theorem's answer matches the independently
    built joint-type LP (HiGHS) to 1e-6 and its bounds contain it."""
    n = 20
    program = ReducedPDI(parse_symmetric_prior(spec, n, 2))
    eps = program.eps_X + off
    if log_output_law(program.prior, eps) is None:
        pytest.skip("p_Y ≥ 0 is not proved here (the LP answers; covered elsewhere)")
    res = program.solve(eps)
    reference = highs_reference(spec, n, "pd-i", eps)
    assert "Lemma 4 for the exchangeable prior" in res.extras["theorem"] and res.status == "optimal"
    assert res.bounds.lower - HIGHS_ABS <= reference <= res.bounds.upper + HIGHS_ABS
    assert abs(res.value - reference) <= REL * reference


@pytest.mark.parametrize("n", [60, 100, pytest.param(200, marks=pytest.mark.slow)])
@pytest.mark.parametrize("off", [1e-10, 0.01, 0.3, 2.0, 48.0])
def test_large_n_equals_h(n, off):
    """The README's mixture at n = 60–200: ε_X → ln 4, the components' level, so every feasible ε a little above
    ε_X is answered by the theorem (the LP took 45–90 s at n = 100 and minutes at 200), equal to h(ε)."""
    program = ReducedPDI(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", n, 2))
    eps = program.eps_X + off
    res = program.solve(eps)
    h = _h(eps, n, 2)
    assert res.status == "optimal" and "Lemma 4 for the exchangeable prior" in res.extras["theorem"]
    assert res.bounds.lower <= h * (1 + BOUND_SLACK) and h * (1 - BOUND_SLACK) <= res.bounds.upper
    assert abs(res.value - h) <= REL * h


def test_m3_n16():
    """m = 3, n = 16 (735 471 joint types; the LP is refused there on 2 cores): Lemma 4 answers h(ε) at ε_X + 0.3."""
    program = ReducedPDI(parse_symmetric_prior("mixture:0.5,0.5/0.5,0.3,0.2/0.2,0.3,0.5", 16, 3))
    eps = program.eps_X + 0.3
    res = program.solve(eps)
    h = _h(eps, 16, 3)
    assert res.status == "optimal" and "Lemma 4 for the exchangeable prior" in res.extras["theorem"]
    assert res.bounds.lower <= h * (1 + BOUND_SLACK) and h * (1 - BOUND_SLACK) <= res.bounds.upper
    assert abs(res.value - h) <= REL * h

r"""PD-DP for exchangeable mixtures of i.i.d. priors by the mixture sandwich (problems/orbit/mixture_prior.py),
against references that never use it.

The theorem: for p_X = Σ_j w_j π_j^{⊗n}, n·Σ_j w_j PD-DP_1(ε; π_j) ≤ PD-DP_n(ε) ≤ n·PD-DP_1(ε; Σ_j w_j π_j)
(proof in the module's docstring and docs/orbit_reduction.md).  References:

* the n-row dense LP over all mⁿ × mⁿ entries of W in exact rational arithmetic (tests/reference/exact_lp.py;
  the prior is the exact mixture of the float component pmfs) at n = 2, 3, m = 2, 3; the lifted mechanism is
  checked exactly feasible and its exact distortion lies inside the bounds (tests/exact_feasibility.py);
* the joint-type LP of tests/orbit/test_reduced_independent_highs.py (written from the definitions, HiGHS) at
  n = 20 and 30;
* closed forms at any n: where randomised response is optimal for every component (m = 2:
  e^ε ≥ 1/min_{j,a} π_j(a) − 1), PD-DP_n = h(ε) = n(m−1)e^{−ε}/(1 + (m−1)e^{−ε}) (Lemma 1 of Wang, Ying &
  Zhang 2016, written out here); the upper side never exceeds h(ε) (randomised response is a product
  mechanism), and for m = 2 the one-row optimum is min(π(0), π(1), 1/(1 + e^ε)).
"""

from __future__ import annotations

import functools
import itertools
import math
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from exact_feasibility import distortion, dp_feasible  # noqa: E402
from reference import exact_lp as ref  # noqa: E402
from test_reduced_independent_highs import reference as highs_reference  # noqa: E402

from problems.errors import InvalidInputError, ProblemTooLargeError  # noqa: E402
from problems.orbit import ReducedPDDP, ReducedPDI  # noqa: E402
from problems.orbit.mixture_prior import mixture_enclosure, mixture_theorem  # noqa: E402
from problems.orbit.symmetric_prior import parse_symmetric_prior, symmetric_mixture  # noqa: E402

#: The relative accuracy promised by status "optimal".
REL = 1e-6
#: Slack for rounding an exact optimum to a float in the enclosure test.
BOUND_SLACK = 1e-12
#: HiGHS's accuracy on the independent joint-type LP (its module docstring).
HIGHS_ABS = 1e-9

MIXTURE = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"
#: (weights, component pmfs) of the exact cases: m = 2 with components inside (0.2, 0.8), near 0 and contagious;
#: m = 3
EXACT_PRIORS = {
    "m2-mixture": ((0.5, 0.5), ((0.8, 0.2), (0.3, 0.7))),
    "m2-three": ((0.2, 0.3, 0.5), ((0.9, 0.1), (0.4, 0.6), (0.25, 0.75))),
    "m2-near-0": ((0.5, 0.5), ((0.999, 0.001), (0.3, 0.7))),
    "m2-contagious": ((0.8, 0.06, 0.14), ((0.3, 0.7), (1.0, 0.0), (0.0, 1.0))),
    "m3-mixture": ((0.5, 0.5), ((0.5, 0.3, 0.2), (0.2, 0.3, 0.5))),
}


def _h(eps: float, n: int, m: int) -> float:
    """Lemma 1 of Wang, Ying & Zhang (2016): h(ε) = n (m−1) e^{−ε} / (1 + (m−1) e^{−ε})."""
    t = (m - 1) * math.exp(-eps)
    return n * t / (1.0 + t)


def _rr_closes(components, eps: float) -> bool:  # noqa: ANN001
    """m = 2: randomised response is optimal on one row for every component (and so for their mixture)."""
    return all(1.0 / (1.0 + math.exp(eps)) <= min(r) for r in components)


def _enclosed(lower: float, upper: float, exact: float) -> bool:
    return lower <= exact * (1 + BOUND_SLACK) + 1e-300 and exact * (1 - BOUND_SLACK) <= upper


@functools.cache
def _exact(name: str, n: int, eps: float) -> Fraction:
    weights, rows = EXACT_PRIORS[name]
    m = len(rows[0])
    fw = [Fraction(w) for w in weights]
    fr = [[Fraction(v) for v in r] for r in rows]
    pmf = [
        sum((w * math.prod((r[a] for a in x), start=Fraction(1)) for w, r in zip(fw, fr)), start=Fraction(0))
        for x in itertools.product(range(m), repeat=n)
    ]
    return ref.pd_dp(pmf, n, m, Fraction(math.exp(eps)))


def _exact_cases() -> list:
    out = []
    for name in EXACT_PRIORS:
        sizes = (2, 3) if name.startswith("m2") else (2,)
        for n in sizes:
            for eps in (0.4, 1.0, 1.5, 2.5, 6.0, 25.0):
                out.append(pytest.param(name, n, eps, id=f"{name}-n{n}-{eps:g}"))
    return out


@pytest.mark.parametrize("name,n,eps", _exact_cases())
def test_enclosure_contains_the_exact_dense_optimum(name, n, eps):
    """n = 2, 3 (m = 2) and n = 2 (m = 3): the sandwich contains the exact optimum of the n-row LP at every ε;
    where it certifies, the answer is the theorem's, within 1e-6 of the exact optimum, with an exactly feasible
    lifted mechanism whose exact distortion lies inside the bounds."""
    weights, rows = EXACT_PRIORS[name]
    m = len(rows[0])
    prior = symmetric_mixture(n, [list(r) for r in rows], list(weights))
    exact = float(_exact(name, n, eps))
    enc = mixture_enclosure(prior, eps)
    assert enc is not None
    assert _enclosed(enc.lower, enc.upper, exact), (enc.lower, exact, enc.upper)
    assert enc.upper <= _h(eps, n, m) * (1 + 1e-8)  # randomised response is one product mechanism
    if m == 2 and _rr_closes(rows, eps):
        assert enc.certified
    res = ReducedPDDP(prior).solve(eps)
    if not enc.certified:
        assert res.extras.get("reduction") != "mixture-sandwich"
        return
    assert res.extras["reduction"] == "mixture-sandwich" and res.stats.solver == "theorem"
    assert res.status == "optimal"
    assert _enclosed(res.bounds.lower, res.bounds.upper, exact), (res.bounds, exact)
    assert abs(res.value - exact) <= REL * exact + 1e-300
    W = res.mechanism.matrix
    assert W.shape == (m**n, m**n) and res.extras["mechanism_level"] == "database"
    assert dp_feasible(W, n, m, eps)
    pmf = prior.to_prior().pmf
    exact_w = float(distortion(W, pmf, n, m))
    assert exact_w <= res.bounds.upper * (1 + BOUND_SLACK)


@pytest.mark.parametrize("n", [20, pytest.param(30, marks=pytest.mark.slow)])
@pytest.mark.parametrize("eps", [0.5, 1.2, 2.0, 10.0, 30.0])
@pytest.mark.parametrize("spec", [MIXTURE, "mixture:0.5,0.5/0.999,0.001/0.3,0.7", "contagious:0.2"])
def test_enclosure_contains_the_independent_joint_type_optimum(spec, n, eps):
    """n = 20, 30: the independently built joint-type LP (HiGHS) lies inside the sandwich; where the sandwich
    certifies, the public answer (method="auto") matches it to 1e-6."""
    reference = highs_reference(spec, n, "pd-dp", eps)
    prior = parse_symmetric_prior(spec, n, 2)
    enc = mixture_enclosure(prior, eps)
    assert enc is not None
    assert enc.lower - HIGHS_ABS <= reference <= enc.upper + HIGHS_ABS, (enc.lower, reference, enc.upper)
    if not enc.certified or spec.startswith("contagious"):  # point-mass components: the LP answers
        return
    res = ReducedPDDP(prior).solve(eps)
    assert res.extras["reduction"] == "mixture-sandwich" and res.status == "optimal"
    assert res.bounds.lower - HIGHS_ABS <= reference <= res.bounds.upper + HIGHS_ABS
    assert abs(res.value - reference) <= REL * reference


@pytest.mark.parametrize("n", [30, 200, 400, 10_000])
@pytest.mark.parametrize("eps", [1.4, 2.0, 5.0, 20.0, 50.0])
def test_large_n_equals_randomised_response_closed_form(n, eps):
    """Components inside [0.2, 0.8] and e^ε ≥ 4: PD-DP_n = h(ε) at any n, in milliseconds, without the
    joint types (the constructor does not build them for PD-DP)."""
    start = time.perf_counter()
    res = ReducedPDDP(parse_symmetric_prior(MIXTURE, n, 2)).solve(eps)
    elapsed = time.perf_counter() - start
    h = _h(eps, n, 2)
    assert res.status == "optimal" and res.extras["reduction"] == "mixture-sandwich"
    assert _enclosed(res.bounds.lower, res.bounds.upper, h), (res.bounds, h)
    assert abs(res.value - h) <= REL * h
    assert elapsed < 30.0  # generous: the point is that no LP runs (a joint-type LP at n = 400 cannot)


@pytest.mark.parametrize("eps", [2.5, 4.0, 20.0])
def test_m3_mixture_at_n16(eps):
    """m = 3, n = 16 (735 471 joint types, beyond the LP on 2 cores): certified where randomised response is
    optimal for both components, equal to h(ε)."""
    prior = parse_symmetric_prior("mixture:0.5,0.5/0.5,0.3,0.2/0.2,0.3,0.5", 16, 3)
    res = ReducedPDDP(prior).solve(eps)
    h = _h(eps, 16, 3)
    assert res.status == "optimal" and res.extras["reduction"] == "mixture-sandwich"
    assert _enclosed(res.bounds.lower, res.bounds.upper, h)
    assert abs(res.value - h) <= REL * h


def test_open_sandwich_leaves_the_answer_to_the_lp():
    """Below the closing level the theorem does not answer: method="theorem" is bad input naming the mixture
    sandwich; method="auto" answers by the LP (certified), inside the enclosure."""
    prior = parse_symmetric_prior(MIXTURE, 12, 2)
    program = ReducedPDDP(prior)
    assert mixture_theorem(program, 0.5) is None
    with pytest.raises(InvalidInputError, match="mixture"):
        program.solve(0.5, method="theorem")
    res = program.solve(0.5)
    enc = mixture_enclosure(prior, 0.5)
    assert res.status == "optimal" and res.extras.get("reduction") != "mixture-sandwich"
    assert enc.lower <= res.bounds.lower and res.bounds.upper <= enc.upper * (1 + 1e-9)


def test_method_lp_and_pd_i_are_untouched():
    """method="lp" always solves the LP; PD-I (whose constraints involve the prior) has no sandwich."""
    prior = parse_symmetric_prior(MIXTURE, 10, 2)
    res = ReducedPDDP(prior).solve(2.0, method="lp")
    assert res.extras.get("reduction") != "mixture-sandwich"
    assert abs(res.value - _h(2.0, 10, 2)) <= REL * _h(2.0, 10, 2)
    pdi = ReducedPDI(prior)
    assert mixture_theorem(pdi, pdi.eps_X + 1.0) is None


def test_lp_still_refused_only_when_it_is_needed():
    """n = 401, m = 2 mixture: the sandwich answers at ε = 2, constant outputs at ε = 0.5; at ε = 1 (between the
    components' closing levels) the joint-type LP is needed — 401 is prime, so no equal groups of rows answer
    (problems.orbit.group_product) — and the typed size error comes then, not at construction."""
    program = ReducedPDDP(parse_symmetric_prior(MIXTURE, 401, 2))
    assert program.solve(2.0).status == "optimal"
    assert program.solve(0.5).extras["reduction"] == "constant-output"
    with pytest.raises(ProblemTooLargeError):
        program.solve(1.0)


@settings(max_examples=40, deadline=None)
@given(
    q=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=4),
    w=st.lists(st.floats(0.05, 1.0), min_size=4, max_size=4),
    eps=st.floats(0.0, 12.0),
    n=st.integers(1, 500),
)
def test_sandwich_is_ordered_and_matches_the_one_row_closed_form(q, w, eps, n):
    """m = 2, random mixtures: lower ≤ upper ≤ h(ε); both sides equal n·Σ_j w_j min(π_j, 1 − π_j, 1/(1+e^ε))
    and n·min(π̄, 1 − π̄, 1/(1+e^ε)) (the one-row optimum in closed form) to the 1e-6 that the one-row
    certificates promise (at nε ≤ 1e-7 the one row answers by the constant mechanism, 6e-8 above h)."""
    weights = np.asarray(w[: len(q)]) / np.sum(w[: len(q)])
    rows = [[qi, 1.0 - qi] for qi in q]
    prior = symmetric_mixture(n, rows, list(weights))
    enc = mixture_enclosure(prior, eps)
    assert enc is not None
    assert enc.lower <= enc.upper * (1 + 1e-12)
    assert enc.upper <= _h(eps, n, 2) * (1 + REL) + 1e-300
    rr = 1.0 / (1.0 + math.exp(eps))
    one = [min(qi, 1.0 - qi, rr) for qi in q]
    lower = n * float(np.dot(weights, one))
    qbar = float(np.dot(weights, q))
    upper = n * min(qbar, 1.0 - qbar, rr)
    assert abs(enc.lower - lower) <= REL * max(lower, 1e-300) + 1e-12
    assert abs(enc.upper - upper) <= REL * max(upper, 1e-300) + 1e-12


@pytest.mark.parametrize("eps", [-0.1, float("nan"), float("inf")])
def test_enclosure_refuses_a_bad_privacy_level(eps):
    """A bad ε is a typed error naming the value, in well under a second (not a silent ``None``)."""
    from problems.errors import InvalidPrivacyLevelError

    start = time.perf_counter()
    with pytest.raises(InvalidPrivacyLevelError, match="ε must be"):
        mixture_enclosure(parse_symmetric_prior(MIXTURE, 200, 2), eps)
    assert time.perf_counter() - start < 1.0


def test_enclosure_takes_a_dense_prior_too():
    """A row-exchangeable dense Prior is accepted (converted to its row form); the bounds are the same."""
    sym = parse_symmetric_prior(MIXTURE, 4, 2)
    a, b = mixture_enclosure(sym, 2.0), mixture_enclosure(sym.to_prior(), 2.0)
    assert a is not None and b is not None
    assert (a.lower, a.upper) == (b.lower, b.upper)


# n < m (and n = 1): a database holds at most n distinct symbols, so every mass can be positive although no
# component is positive everywhere; ε_X against brute-force exact values over all neighbouring pairs
SMALL_N_SUPPORT = [
    ("mixture:0.5,0.5/0,1/1,0", 2, 1, 0.0),
    ("contagious:1", 3, 1, 0.0),
    ("contagious:1:0.000001,0.999999", 2, 1, math.log(999999.0)),
    ("contagious:1:0.2,0.3,0.5", 3, 1, math.log(2.5)),
    (
        "mixture:0.3333333333333333,0.3333333333333333,0.3333333333333334/0,0.5,0.5/0.5,0,0.5/0.5,0.5,0",
        3,
        2,
        math.log(2),
    ),
]


@pytest.mark.parametrize(("spec", "m", "n", "exact"), SMALL_N_SUPPORT)
def test_full_support_when_n_is_below_m(spec, m, n, exact):
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.prior_constants import eps_X_symmetric

    prior = parse_symmetric_prior(spec, n, m)
    assert prior.has_full_support and bool(np.all(prior.to_prior().pmf > 0))
    assert eps_X_symmetric(prior) == pytest.approx(exact, rel=1e-12, abs=1e-15)


def test_no_full_support_when_a_database_has_zero_mass():
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    for spec, m, n in (("mixture:0.5,0.5/0,1/1,0", 2, 3), ("contagious:1", 2, 3), ("iid:0,1", 2, 1)):
        prior = parse_symmetric_prior(spec, n, m)
        assert not prior.has_full_support and bool(np.any(prior.to_prior().pmf == 0))


def test_mixture_spec_with_fractions_and_semicolons():
    """';' separates a mixture's parts where its numbers are fractions; '/' with a fraction is refused, saying so."""
    from problems.errors import InvalidInputError
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    a = parse_symmetric_prior("mixture:1/3,2/3;4/5,1/5;0.3,0.7", 6, 2)
    b = parse_symmetric_prior("mixture:0.3333333333333333,0.6666666666666666/0.8,0.2/0.3,0.7", 6, 2)
    types = np.array([[6, 0], [3, 3], [0, 6]])
    assert np.allclose(a.log_mass(types), b.log_mass(types), rtol=1e-14)
    with pytest.raises(InvalidInputError, match="separate the parts with ';'"):
        parse_symmetric_prior("mixture:1/3,2/3/0.8,0.2/0.3,0.7", 6, 2)

r"""PD-DP of exchangeable mixtures at small ε and large n: constant outputs against the sandwich's lower side.

References independent of :mod:`problems.orbit.constant_output`:

* the joint-type LP written and solved by HiGHS in ``test_reduced_independent_highs`` (n = 10, 20, 30);
* the constant-output LP written here from its definition and solved by SciPy's HiGHS (n = 200);
* exact rational arithmetic: the returned mechanism's exact normalisation is checked PD-DP-feasible against a
  rational lower bound of e^ε, and its exact distortion under the exact prior (rational weights and rows) is
  checked inside the returned bounds;
* the closed form of the lower side for m = 2: n Σ_j w_j min(π_j(0), π_j(1), 1/(1 + e^ε)).
"""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_feasibility import exp_lower  # noqa: E402
from test_reduced_independent_highs import reference as highs_reference  # noqa: E402

from problems.orbit import ReducedPDDP, lift_mechanism, sample  # noqa: E402
from problems.orbit.constant_output import constant_output_index, constant_output_theorem  # noqa: E402
from problems.orbit.mixture_prior import components, mixture_enclosure  # noqa: E402
from problems.orbit.symmetric_prior import parse_symmetric_prior  # noqa: E402

REL = 1e-6
HIGHS_ABS = 1e-9
MIXTURE = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"
SEPARATED = "mixture:0.5,0.5/0.95,0.05/0.05,0.95"
FAR = "mixture:0.5,0.5/0.99,0.01/0.01,0.99"


def _lower_closed_form(spec_rows, eps: float, n: int) -> float:  # noqa: ANN001
    return n * sum(w * min(r[0], r[1], 1.0 / (1.0 + math.exp(eps))) for w, r in spec_rows)


def _rows(spec: str) -> list[tuple[float, tuple[float, float]]]:
    w, *rows = spec.split(":")[1].split("/")
    weights = [float(v) for v in w.split(",")]
    return [(wj, tuple(float(v) for v in r.split(","))) for wj, r in zip(weights, rows)]


def _exact_check(res, spec: str, eps: float) -> Fraction:  # noqa: ANN001
    """m = 2: the exact normalisation of the returned w_a(t) is PD-DP-feasible (rows between types one row apart,
    against a rational lower bound of e^ε) and its exact distortion Σ_k P(k) Σ_a w_a(k)(n − t_a) under the exact
    prior; returns that distortion."""
    n = res.extras["n"]
    w = [[Fraction(float(v)) for v in row] for row in res.extras["constant_output_weights"]]
    types = [tuple(int(v) for v in t) for t in res.extras["x_types"]]
    assert types == [(k, n - k) for k in range(n + 1)]  # lexicographic order: t = (#0, #1)
    w = [[v / sum(row) for v in row] for row in w]
    r = exp_lower(eps)
    for i in range(n):  # types i and i + 1 are one row apart
        for a in range(2):
            assert w[i][a] <= r * w[i + 1][a] and w[i + 1][a] <= r * w[i][a], (i, a)
    total = Fraction(0)
    for wj, (p0, p1) in _rows(spec):
        fw, f0, f1 = Fraction(wj), Fraction(p0), Fraction(p1)
        for i, (c0, c1) in enumerate(types):  # c0 zeros, c1 ones
            p_type = fw * math.comb(n, c0) * f0**c0 * f1**c1
            total += p_type * (w[i][0] * (n - c0) + w[i][1] * (n - c1))
    return total


@pytest.mark.parametrize(
    "spec,n,eps",
    [
        (SEPARATED, 24, 2.5),
        pytest.param(SEPARATED, 30, 2.0, marks=pytest.mark.slow),
        (FAR, 10, 4.5),
    ],
)
def test_matches_the_independent_joint_type_lp(spec, n, eps):
    """Where constant outputs meet the lower side, the answer equals the independent joint-type LP's optimum."""
    res = ReducedPDDP(parse_symmetric_prior(spec, n, 2)).solve(eps)
    assert res.status == "optimal" and res.extras["reduction"] == "constant-output"
    reference = highs_reference(spec, n, "pd-dp", eps)
    assert res.bounds.lower - HIGHS_ABS <= reference <= res.bounds.upper + HIGHS_ABS, (res.bounds, reference)
    assert abs(res.value - reference) <= REL * reference
    exact = _exact_check(res, spec, eps)
    assert res.bounds.lower <= exact <= res.bounds.upper


def test_lifted_mechanism_is_exactly_feasible_and_samples_constants():
    """n = 10 (N = 1024, lifted): only the two constant columns carry mass, they are W(y|x) = w_a(t(x)), the
    exact normalisation is PD-DP-feasible on all neighbours, and samples are constant databases."""
    n, eps = 10, 4.5
    res = ReducedPDDP(parse_symmetric_prior(FAR, n, 2)).solve(eps)
    assert res.extras["mechanism_level"] == "database"
    W = np.asarray(res.mechanism.matrix)
    cols = constant_output_index(n, 2).astype(int)
    assert list(cols) == [0, 2**n - 1]
    other = np.setdiff1d(np.arange(2**n), cols)
    assert not np.any(W[:, other])
    lifted = lift_mechanism(res)
    assert np.array_equal(np.asarray(lifted.matrix), W)
    r = exp_lower(eps)
    rows = [[Fraction(float(v)) for v in W[x, cols]] for x in range(2**n)]
    rows = [[v / sum(row) for v in row] for row in rows]
    for x, k in itertools.product(range(2**n), range(n)):
        x2 = x ^ (1 << k)
        assert all(rows[x][a] <= r * rows[x2][a] for a in range(2))
    y = sample(res, [0] * 9 + [1], 200, rng=1)
    assert y.shape == (200, n) and np.all((y == 0).all(axis=1) | (y == 1).all(axis=1))


def _independent_constant_output_lp(spec: str, n: int, eps: float) -> float:
    """The constant-output LP from its definition (m = 2): w_a(k) for k ones, |w_a(k) − …| rows one row apart."""
    k = np.arange(n + 1)
    logc = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k])
    P = sum(w * np.exp(logc + k * np.log(p1) + (n - k) * np.log(p0)) for w, (p0, p1) in _rows(spec))
    N = n + 1
    c = np.concatenate([P * k, P * (n - k)])  # output (0,…,0) costs k; (1,…,1) costs n − k
    e = math.exp(eps)
    r, cidx, val = [], [], []
    row = 0
    for off in (0, N):
        for i in range(n):
            for s, d in ((i, i + 1), (i + 1, i)):
                r += [row, row]
                cidx += [off + s, off + d]
                val += [1.0, -e]
                row += 1
    A = sp.csr_matrix((val, (r, cidx)), shape=(row, 2 * N))
    Aeq = sp.hstack([sp.eye(N), sp.eye(N)])
    out = linprog(
        c / c.max(),
        A_ub=A,
        b_ub=np.zeros(row),
        A_eq=Aeq,
        b_eq=np.ones(N),
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    assert out.status == 0
    return float(out.fun) * float(c.max())


@pytest.mark.parametrize("n,eps", [(200, 0.5), (200, 0.8), (400, 0.3)])
def test_large_n_against_closed_form_and_independent_lp(n, eps):
    """n = 200, 400 (no joint-type LP runs): the lower side is the m = 2 closed form, the upper side the
    independently written constant-output LP, the exact distortion of the returned mechanism lies inside."""
    program = ReducedPDDP(parse_symmetric_prior(MIXTURE, n, 2))
    res = program.solve(eps)
    assert res.status == "optimal" and res.extras["reduction"] == "constant-output"
    assert res.extras["mechanism_level"] == "type"
    low = _lower_closed_form(_rows(MIXTURE), eps, n)
    assert res.bounds.lower <= low <= res.bounds.lower * (1 + 1e-9)
    independent = _independent_constant_output_lp(MIXTURE, n, eps)
    assert abs(res.bounds.upper - independent) <= 1e-7 * independent + 1e-6  # HiGHS's own tolerances
    assert (res.bounds.upper - res.bounds.lower) <= REL * res.bounds.upper
    exact = _exact_check(res, MIXTURE, eps)
    assert res.bounds.lower <= exact <= res.bounds.upper
    assert program.__dict__.get("_deferred") is True  # the joint types were never built


@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.1, 0.2])
def test_n200_small_eps_the_hinted_blocks_are_proved_optimal(eps):
    """n = 200 below ε ≈ 0.3: the sides do not meet, the joint-type LP (1.4 M variables) is certified from the
    constant-output blocks, whose pricing LP needs about 50 iterations; its value is the independently written
    constant-output LP's (an upper bound on the optimum that the certificate proves tight), above the closed-form
    lower side."""
    res = ReducedPDDP(parse_symmetric_prior(MIXTURE, 200, 2)).solve(eps)
    assert res.status == "optimal"
    assert "hinted blocks" in " ".join(str(a) for a in res.stats.attempts)
    independent = _independent_constant_output_lp(MIXTURE, 200, eps)
    assert res.bounds.lower <= independent * (1 + 1e-7)
    assert abs(res.value - independent) <= 1e-6 * independent
    assert res.bounds.lower > _lower_closed_form(_rows(MIXTURE), eps, 200) * (1 + 1e-5)  # L is not tight here


def test_outside_the_constant_regime_the_attempt_is_skipped():
    """ε = 1 for the README's mixture: the component (0.3, 0.7) is answered by randomised response on one row, so
    constant outputs cannot meet the lower side and no LP is built."""
    program = ReducedPDDP(parse_symmetric_prior(MIXTURE, 200, 2))
    enc = mixture_enclosure(program.prior, 1.0)
    assert constant_output_theorem(program, 1.0, enc, components(program.prior)) is None


def test_below_the_separation_the_lp_answers():
    """n = 30, ε = 0.5: constant outputs are 2.7 % above the lower side; the sandwich does not answer."""
    program = ReducedPDDP(parse_symmetric_prior(MIXTURE, 30, 2))
    enc = mixture_enclosure(program.prior, 0.5)
    assert constant_output_theorem(program, 0.5, enc, components(program.prior)) is None


def test_m3_three_components():
    """m = 3, n = 40: certified by constant outputs; the lower side is n Σ_j w_j (1 − max π_j) (each component in
    its constant regime), and the answer lies within the mixture enclosure."""
    spec = "mixture:0.5,0.5/0.9,0.05,0.05/0.05,0.05,0.9"
    prior = parse_symmetric_prior(spec, 40, 3)
    res = ReducedPDDP(prior).solve(2.0)
    assert res.status == "optimal" and res.extras["reduction"] == "constant-output"
    assert res.bounds.lower <= 40 * 0.1 <= res.bounds.lower * (1 + 1e-9)
    w = np.asarray(res.extras["constant_output_weights"])
    assert w.shape == (861, 3) and np.allclose(w.sum(axis=1), 1.0)


@pytest.mark.parametrize(
    "n,eps,hinted", [(20, 0.5, True), (20, 0.05, True), pytest.param(30, 0.5, True, marks=pytest.mark.slow)]
)
def test_lp_tries_the_constant_output_blocks_first(n, eps, hinted):
    """Below the separation the joint-type LP answers, trying the constant-output blocks first (restricted LP,
    every other block priced out): certified and equal to the independent joint-type LP.  (At n = 20, ε = 0.05
    the guess is right too; it was rejected while the repair mixed its point with the reference.  A wrong guess
    is priced out and the whole LP answers: ``tests/test_chain_budget.py``.)"""
    res = ReducedPDDP(parse_symmetric_prior(MIXTURE, n, 2)).solve(eps)
    assert res.status == "optimal" and res.extras["reduction"] == "joint-type"
    assert ("hinted blocks: 2 of" in " ".join(str(a) for a in res.stats.attempts)) is hinted
    reference = highs_reference(MIXTURE, n, "pd-dp", eps)
    assert res.bounds.lower - HIGHS_ABS <= reference <= res.bounds.upper + HIGHS_ABS
    assert abs(res.value - reference) <= REL * reference


def test_the_hint_belongs_to_one_solve():
    """The constant-output blocks are tried only at an ε in the constant regime: a later solve of the same program
    outside it (ε = 1) runs the LP without them."""
    program = ReducedPDDP(parse_symmetric_prior(MIXTURE, 20, 2))
    first = program.solve(0.5)
    assert "hinted blocks" in " ".join(str(a) for a in first.stats.attempts)
    second = program.solve(1.0)
    assert second.status == "optimal" and "hinted" not in " ".join(str(a) for a in second.stats.attempts)


def test_a_component_with_a_mass_of_1e16():
    """Components (1 − 1e-16, 1e-16) and (0.3, 0.7) at n = 200, ε = 0.5: the float row sums to 1 − 1.1e-17, so the
    best constant's distortion is its 1e-16 entry (not 1 − max π); constant outputs answer, the lower side is the
    m = 2 closed form, and the exact distortion of the returned mechanism lies in the bounds."""
    spec = "mixture:0.5,0.5/0.9999999999999999,1e-16/0.3,0.7"
    res = ReducedPDDP(parse_symmetric_prior(spec, 200, 2)).solve(0.5)
    assert res.status == "optimal" and res.extras["reduction"] == "constant-output"
    low = _lower_closed_form(_rows(spec), 0.5, 200)
    assert res.bounds.lower <= low <= res.bounds.lower * (1 + 1e-9)
    exact = _exact_check(res, spec, 0.5)
    assert res.bounds.lower <= exact <= res.bounds.upper

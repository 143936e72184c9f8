r"""Reduced PD-DP / PD-I / R-PD (m = 2) at the edges: contagious priors with a large ε_X, large ε, ε = 0, and
ε one ulp either side of ε_X.

Values are compared with the joint-type LP written from the definitions in
``test_reduced_independent_highs.py`` (``reference``: HiGHS on scaled columns, checked a posteriori there),
with closed forms (h(ε) = n/2 at ε = 0), and with ε_X decided here in rational arithmetic from the prior's
parameters.  Tolerances: the value within 1e-6 relative of the reference, and the reference inside the
bounds up to 1e-8 relative (the reference's own check is 1e-8 relative, its absolute 1e-9 being useless for
optima of 1e-12 and below).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from test_reduced_independent_highs import reference

from problems.errors import InfeasibleProgramError
from problems.orbit.dispatch import make_program
from problems.orbit.symmetric_prior import parse_symmetric_prior

REL = 1e-6
REF_REL = 1e-8
CONTAGIOUS = "contagious:0.2:0.3,0.7"


def _solve(program: str, prior: str, n: int, eps: float):  # noqa: ANN202
    return make_program(program, parse_symmetric_prior(prior, n, 2), formulation="reduced").solve(eps)


def _check(program: str, prior: str, n: int, eps: float) -> None:
    ref = reference(prior, n, program, eps)
    res = _solve(program, prior, n, eps)
    detail = f"{program} {prior} n={n} ε={eps!r}: {res.status} {res.bounds} value={res.value!r} ref={ref!r}"
    assert str(res.status) == "optimal", detail
    assert res.bounds.lower * (1 - REF_REL) <= ref <= res.bounds.upper * (1 + REF_REL), detail
    assert abs(res.value - ref) <= REL * ref, detail


# ----------------------------------------------------------------------------------------- fixed failures
@pytest.mark.parametrize(
    "program,prior,n,eps",
    [
        # e^{ε_X} ≈ 1e9 in the ratio rows: certified in joint-scaled columns (inaccurate, SCS, before)
        pytest.param("pd-i", CONTAGIOUS, 20, 30.0, id="pd-i-contagious-n20-eps30"),
        pytest.param("pd-i", CONTAGIOUS, 20, 40.0, id="pd-i-contagious-n20-eps40"),
        # HiGHS stopped 3 % above the optimum unscaled; its E_d-scaled retry is proved
        pytest.param("pd-dp", CONTAGIOUS, 20, 20.0, id="pd-dp-contagious-n20-eps20"),
        # x-types of mass 3e-8 left HiGHS's multipliers 4e-5 short; the block method's are tight
        pytest.param("pd-dp", CONTAGIOUS, 20, 10.0, id="pd-dp-contagious-n20-eps10"),
    ],
)
def test_fixed_edge_cases_match_independent_highs(program, prior, n, eps):
    _check(program, prior, n, eps)


def test_pd_i_contagious_just_above_eps_X_matches_independent_highs():
    prog = make_program("pd-i", parse_symmetric_prior(CONTAGIOUS, 20, 2), formulation="reduced")
    _check("pd-i", CONTAGIOUS, 20, prog.eps_X + 0.3)


@pytest.mark.parametrize("program", ["pd-dp", "pd-i", "r-pd"])
def test_uniform_eps_zero_is_certified_at_n_over_2(program):
    """ε = 0: every 0-DP mechanism is constant; for the uniform prior the optimum is h(0) = n/2 (m = 2)."""
    res = _solve(program, "uniform", 6, 0.0)
    assert str(res.status) == "optimal", res.bounds
    assert res.bounds.lower <= 3.0 <= res.bounds.upper
    assert res.value == pytest.approx(3.0, rel=1e-12)


# ----------------------------------------------------------------------------------------- ε_X exactly
def _exact_ratio(components: list[tuple[float, float, float]], n: int) -> Fraction:
    """max over k of p_k/p_{k+1}, p_{k+1}/p_k with p_k = Σ w π0^{n−k} π1^k, in rationals (w, π0, π1 floats)."""
    comps = [tuple(Fraction(float(v)) for v in c) for c in components]

    def mass(k: int) -> Fraction:
        return sum((w * a ** (n - k) * b**k for w, a, b in comps), Fraction(0))

    masses = [mass(k) for k in range(n + 1)]
    return max(max(masses[k] / masses[k + 1], masses[k + 1] / masses[k]) for k in range(n))


def _exp_above(eps: float, ratio: Fraction) -> bool:
    """e^ε > ratio, decided with a 60-term Taylor enclosure of e^{ε/64} in rationals (ε ≤ 40 here)."""
    x = Fraction(eps) / 64
    term, s = Fraction(1), Fraction(1)
    for i in range(1, 60):
        term = term * x / i
        s += term
    lo = s**64  # a lower bound (every omitted term is positive)
    hi = (s + 2 * term) ** 64  # the tail is below twice the last term for x < 1
    assert not (lo <= ratio <= hi), "enclosure too wide"
    return lo > ratio


@pytest.mark.parametrize("prior", [CONTAGIOUS, "mixture:0.3,0.3,0.4/0.999,0.001/0.5,0.5/0.001,0.999"])
def test_pd_i_one_ulp_below_eps_X_is_proved_infeasible(prior):
    """ε_X of an m = 2 mixture is the smallest float ε with e^ε ≥ the exact ratio of the masses defined by the
    prior's float parameters: one ulp below it PD-I is proved infeasible (Lemma 3 of Wang, Ying & Zhang
    2016); at it, it is feasible (no interior: the bounds hold, the status may be inaccurate)."""
    n = 8
    prog = make_program("pd-i", parse_symmetric_prior(prior, n, 2), formulation="reduced")
    comps = [(w, r[0], r[1]) for w, r in zip(prog.prior.weights, prog.prior.row_pmfs) if w > 0]
    ratio = _exact_ratio(comps, n)
    below = math.nextafter(prog.eps_X, 0.0)
    assert not _exp_above(below, ratio)
    assert _exp_above(prog.eps_X, ratio)
    with pytest.raises(InfeasibleProgramError):
        prog.solve(below)
    res = prog.solve(prog.eps_X)
    assert res.bounds.lower <= res.bounds.upper


# ----------------------------------------------------------------------------------------- slow: n = 30
@pytest.mark.slow
@pytest.mark.parametrize(
    "program,eps",
    [("pd-i", 33.0), ("pd-i", 40.0), ("pd-i", 50.0), ("pd-dp", 20.0), ("pd-dp", 33.0)],
)
def test_contagious_n30_matches_independent_highs(program, eps):
    _check(program, CONTAGIOUS, 30, eps)


# ----------------------------------------------------------------------------------------- large ε, m = 2
@pytest.mark.parametrize(
    "prior,eps",
    [
        pytest.param("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 6.0, id="mixture-eps6"),
        pytest.param("contagious:0.9", 6.0, id="contagious-eps6"),
        pytest.param("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 10.0, id="mixture-eps10"),
        pytest.param("contagious:0.2", 10.0, id="contagious-eps10"),
        pytest.param("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 20.0, id="mixture-eps20"),
    ],
)
def test_large_eps_tries_the_floored_columns_then_the_block_method(prior, eps):
    """m = 2 PD-DP at ε ≥ 6: HiGHS's simplex in columns floored by the prior mass (the optimum is near the
    identity), then the block method (its multipliers prove values that HiGHS's absolute tolerances leave short),
    HiGHS in E_d-scaled columns and plain HiGHS; certified and equal to the independently built LP."""
    from problems.orbit import ReducedPDDP

    res = ReducedPDDP(parse_symmetric_prior(prior, 30, 2)).solve(eps, method="lp")
    names = [name for name, _ in res.stats.attempts]
    order = ["HIGHS-MASS", "BLOCK", "HIGHS-SCALED", "HIGHS"]
    assert res.stats.solver in order, names
    assert names[: names.index(res.stats.solver) + 1] == order[: order.index(res.stats.solver) + 1], names
    _check("pd-dp", prior, 30, eps)


@pytest.mark.parametrize("prior", ["contagious:0.9:0.3,0.7", "contagious:0.9:0.5,0.5"])
def test_floored_columns_answer_with_highs_scaling_where_its_own_point_is_not_proved(prior):
    """n = 30, ε = 20: HiGHS without its own scaling stops at a point the certificate does not prove; the same
    attempt solves again with HiGHS's scaling, which is proved.  Equal to the independently built LP."""
    from problems.orbit import ReducedPDDP

    res = ReducedPDDP(parse_symmetric_prior(prior, 30, 2)).solve(20.0, method="lp")
    assert res.stats.solver == "HIGHS-MASS", res.stats.attempts
    assert "simplex scaled by HiGHS" in res.stats.attempts[0][1], res.stats.attempts
    _check("pd-dp", prior, 30, 20.0)


def _mass_backend(monkeypatch, outcomes):  # noqa: ANN001, ANN202
    """HIGHS-MASS whose HiGHS solves return (or raise) ``outcomes`` in turn; the options of each solve recorded."""
    import numpy as np

    from problems.solvers import backends

    calls: list[dict] = []

    def fake(self, spec, eps, time_limit, scale, mass=False, sc=None, options=None):  # noqa: ANN001, ANN202, ARG001
        calls.append(options)
        out = outcomes[len(calls) - 1]
        if isinstance(out, Exception):
            raise out
        return backends.RawSolution(
            np.full(spec.K, out), np.zeros(spec.G), np.zeros(spec.P), "optimal", 1, 0.0
        )

    monkeypatch.setattr(backends.HighsBackend, "_solve", fake)
    return backends.HighsMassBackend(), calls


@pytest.mark.parametrize(
    "outcomes,proved_at,solves,answer",
    [
        ([1.0, 2.0], 1.0, 1, 1.0),  # the first point is proved: one solve
        ([1.0, 2.0], 2.0, 2, 2.0),  # it is not: HiGHS's scaling next, its point returned
        ([1.0, 2.0], None, 2, 2.0),  # neither is (the chain keeps the proofs of both)
        (["raise", 2.0], None, 2, 2.0),  # the first fails: the second runs
        ([1.0, "raise"], None, 2, 1.0),  # the last fails: the point there is
    ],
)
def test_floored_columns_solve_again_with_highs_scaling_only_where_needed(
    monkeypatch, outcomes, proved_at, solves, answer
):
    from problems.solvers import backends
    from problems.solvers.settings import HIGHS_MASS_OPTIONS

    outs = [backends.BackendError("status 4") if o == "raise" else o for o in outcomes]
    be, calls = _mass_backend(monkeypatch, outs)
    spec = _small_spec()
    raw = be.solve(spec, 20.0, time_limit=60.0, enough=lambda z, nu, lam: z[0] == proved_at)
    assert calls == [opts for _, opts in HIGHS_MASS_OPTIONS[:solves]]
    assert [opts for _, opts in HIGHS_MASS_OPTIONS] == [{"simplex_scale_strategy": 0}, {}]
    assert raw.z[0] == answer
    label = HIGHS_MASS_OPTIONS[0 if answer == 1.0 else 1][0]
    assert raw.status == f"optimal (E_d columns floored by the prior mass; {label})"


def test_floored_columns_raise_when_every_solve_fails(monkeypatch):
    from problems.solvers import backends

    be, calls = _mass_backend(monkeypatch, [backends.BackendError("a"), backends.BackendError("b")])
    with pytest.raises(backends.BackendError, match="b"):
        be.solve(_small_spec(), 20.0, time_limit=60.0, enough=lambda z, nu, lam: True)
    assert len(calls) == 2


def _small_spec():  # noqa: ANN202
    """The reduced PD-DP LP at n = 6 (contagious prior)."""
    from problems.orbit import ReducedPDDP

    return ReducedPDDP(parse_symmetric_prior(CONTAGIOUS, 6, 2)).lp.spec


@pytest.mark.parametrize("slack", [5.0, 10.0])
def test_pd_i_far_above_eps_X_tries_highs_first(slack):
    """m = 2 PD-I from ε_X + 5: HiGHS, then HiGHS in E_d-scaled columns, then the block method; certified and
    equal to the independently built LP."""
    from problems.orbit import ReducedPDI

    prog = ReducedPDI(parse_symmetric_prior("iid:0.3,0.7", 30, 2))
    eps = prog.eps_X + slack
    res = prog.solve(eps, method="lp")
    names = [name for name, _ in res.stats.attempts]
    assert names[0] == "HIGHS" and names[: names.index(res.stats.solver) + 1] in (
        ["HIGHS"],
        ["HIGHS", "HIGHS-SCALED"],
        ["HIGHS", "HIGHS-SCALED", "BLOCK"],
    ), names
    _check("pd-i", "iid:0.3,0.7", 30, eps)


@pytest.mark.parametrize("slack", [8.0, 10.0])
def test_large_pd_i_far_above_eps_X_tries_the_block_method_before_scaled_highs(monkeypatch, slack):
    """Above ``PDI_BLOCK_BEFORE_SCALED_FROM`` variables (lowered here to n = 30's LP) PD-I from ε_X + 5 tries HiGHS, then
    the block method, then HiGHS in E_d-scaled columns.  At these points HiGHS's multipliers leave a gap and the
    block method certifies; equal to the independently built LP."""
    from problems.orbit import ReducedPDI, backend_choice

    monkeypatch.setattr(backend_choice, "PDI_BLOCK_BEFORE_SCALED_FROM", 1000)
    prog = ReducedPDI(parse_symmetric_prior("iid:0.3,0.7", 30, 2))
    eps = prog.eps_X + slack
    assert prog.lp.K > 1000
    assert prog._lp_backend(eps) == ("highs", "block", "highs-scaled")
    res = prog.solve(eps, method="lp")
    names = [name for name, _ in res.stats.attempts]
    assert names[:2] == ["HIGHS", "BLOCK"] and res.stats.solver == "BLOCK", names
    _check("pd-i", "iid:0.3,0.7", 30, eps)


@pytest.mark.parametrize("slack", [0.3, 2.0, 6.0])
def test_pd_i_with_a_moderate_eps_X_is_certified_from_the_block_method_or_highs(slack):
    """A mixture with components near 0 and 1 (ε_X = 6.9, below ``PDI_CLARABEL_EPS_X``): PD-I starts with the
    block method (from ε_X + 5 with HiGHS), not with Clarabel; certified and equal to the independently built LP."""
    from problems.orbit import ReducedPDI
    from problems.solvers.settings import PDI_CLARABEL_EPS_X

    prior = "mixture:0.3,0.3,0.4/0.999,0.001/0.5,0.5/0.001,0.999"
    prog = ReducedPDI(parse_symmetric_prior(prior, 30, 2))
    assert 6.0 < prog.eps_X < PDI_CLARABEL_EPS_X
    eps = prog.eps_X + slack
    res = prog.solve(eps, method="lp")
    assert res.stats.attempts[0][0] == ("HIGHS" if slack >= 5.0 else "BLOCK"), res.stats.attempts
    _check("pd-i", prior, 30, eps)


def test_first_backends_by_regime():
    """The measured choice of the back ends tried first (``problems.orbit.backend_choice.first_backends``)."""
    from problems.orbit.backend_choice import first_backends

    assert (
        first_backends("clarabel", 2, 10.0) == "clarabel"
    )  # a program that does not choose the block method
    assert first_backends("block", 2, 1.0) == "block"
    assert first_backends("block", 2, 5.9, floored=True) == "block"
    assert first_backends("block", 2, 6.0) == ("highs", "block")  # no row masses: HIGHS-MASS does not apply
    assert first_backends("block", 2, 20.0) == ("highs", "block")
    # where the floored columns apply (joint-type PD-DP): they first, the block method next, plain HiGHS last
    after_floored = ("highs-mass", "block", "highs-scaled", "highs")
    for eps in (6.0, 7.0, 8.0, 18.0, 20.0, 22.0, 50.0):
        assert first_backends("block", 2, eps, floored=True) == after_floored
    assert first_backends("block", 3, 10.0) == "block"
    assert first_backends("block", 2, 1.2, eps_X=1.0, at_boundary=True) == "clarabel"
    assert first_backends("block", 3, 1.1, eps_X=1.0) == "clarabel"
    assert first_backends("block", 2, 40.0, eps_X=39.5) == "clarabel"  # contagious: e^{±ε_X} coefficients
    assert first_backends("block", 2, 30.3, eps_X=30.0) == "clarabel"
    # ε_X below PDI_CLARABEL_EPS_X (a mixture with components near 0 and 1): the block method, HiGHS from ε_X + 5
    assert first_backends("block", 2, 7.2, eps_X=6.9) == "block"
    assert first_backends("block", 2, 12.0, eps_X=6.9) == ("highs", "highs-scaled", "block")
    assert first_backends("block", 2, 6.2, eps_X=1.39) == "block"  # PD-I's slack decides, not ε
    assert first_backends("block", 2, 6.0, eps_X=0.85) == ("highs", "highs-scaled", "block")
    # PD-I far above ε_X on a large LP (n = 100: 176 851 variables): the block method before scaled HiGHS
    assert first_backends("block", 2, 6.0, eps_X=0.85, variables=176_851) == (
        "highs",
        "block",
        "highs-scaled",
    )
    assert first_backends("block", 2, 6.0, eps_X=0.85, variables=91_881) == ("highs", "block", "highs-scaled")
    assert first_backends("block", 2, 6.0, eps_X=0.85, variables=39_711) == ("highs", "highs-scaled", "block")
    assert first_backends("block", 2, 3.0, eps_X=0.85) == "block"


def test_only_the_joint_type_pd_dp_orders_its_back_ends_for_the_floored_columns():
    """The joint-type PD-DP has its rows' prior masses (``HIGHS-MASS`` applies), so from ε = 8 plain HiGHS goes
    last; PD-I and the uniform prior's distance LP keep their orders."""
    from problems.orbit import ReducedPDDP, ReducedPDI

    pd_dp = ReducedPDDP(parse_symmetric_prior("contagious:0.9:0.5,0.5", 20, 2))
    assert pd_dp._lp_backend(10.0) == ("highs-mass", "block", "highs-scaled", "highs")
    assert pd_dp._lp_backend(20.0) == ("highs-mass", "block", "highs-scaled", "highs")
    assert pd_dp._lp_backend(1.0) == "block"
    pd_i = ReducedPDI(parse_symmetric_prior("iid:0.3,0.7", 20, 2))
    assert pd_i._lp_backend(pd_i.eps_X + 6.0) == ("highs", "highs-scaled", "block")
    uniform = ReducedPDDP(parse_symmetric_prior("uniform", 20, 2))
    assert "highs-mass" not in uniform._lp_backend(20.0)


def test_a_solver_that_does_not_apply_says_what_it_needs():
    """HIGHS-MASS needs the rows' prior masses (the reduced PD-DP gives them, PD-I does not): a typed error that
    names the solver and what it needs, before any solve."""
    from problems.errors import InvalidInputError
    from problems.orbit import ReducedPDI

    prog = ReducedPDI(parse_symmetric_prior("iid:0.3,0.7", 10, 2))
    with pytest.raises(
        InvalidInputError, match=r"'highs-mass' does not apply .*needs the prior masses of its rows"
    ):
        prog.solve(prog.eps_X + 8.0, method="lp", solver="highs-mass")


@pytest.mark.parametrize("program", ["pd-dp", "pd-i"])
@pytest.mark.parametrize("eps", [1e-12, 1e-9])
def test_uniform_prior_at_a_vanishing_eps_on_the_lp_path(program, eps):
    """nε ≤ 1e-7 with ``method="lp"`` and the uniform prior (whose reduced LP is over distances, without joint
    types): the closed form answers (it raised an AssertionError from the joint-type constant mechanism).  Checked
    against n e^{−ε}/(1 + e^{−ε}), Theorem 1's h(ε) for m = 2 written out here."""
    from problems.orbit import ReducedPDDP, ReducedPDI

    cls = ReducedPDI if program == "pd-i" else ReducedPDDP
    res = cls(parse_symmetric_prior("uniform", 30, 2)).solve(eps, method="lp")
    h = 30 * math.exp(-eps) / (1 + math.exp(-eps))
    assert str(res.status) == "optimal"
    assert res.bounds.lower <= h * (1 + 1e-15) and h * (1 - 1e-15) <= res.bounds.upper


@pytest.mark.parametrize(
    "n,prior,eps",
    [
        pytest.param(20, "contagious:0.9:0.3,0.7", 22.0, id="n20-contagious-eps22"),
        pytest.param(30, "contagious:0.9:0.3,0.7", 7.0, id="n30-contagious-eps7"),
        pytest.param(30, "contagious:0.9:0.5,0.5", 22.0, id="n30-mirror-contagious-eps22"),
    ],
)
def test_where_the_reference_stops_above_the_optimum_the_answer_is_feasible_in_its_lp(n, prior, eps):
    """At large ε the optimum of a contagious prior lets the rows next to its point masses give up their accuracy
    (``docs/certificates.md``); the independent reference, HiGHS in E_d's columns, stops at a point above it
    (at n = 20, ε = 22: 5.58e-9 against 4.24e-9).  The toolkit's lower value is checked in the reference's own
    LP (``joint_type_lp``, built from the definitions): its point, normalised exactly (rationals), satisfies
    every normalisation row exactly and every ratio row in rational arithmetic with a margin of 1e-13 on the
    row's ln-coefficient (its rounding) and 1e-15 on exp; its value there lies within its bounds, and the
    reference (a feasible value) is not below the proved lower bound."""
    from test_reduced_independent_highs import joint_type_lp, log_mass

    from problems.orbit import ReducedPDDP

    prog = ReducedPDDP(parse_symmetric_prior(prior, n, 2))
    sol = prog.lp.solve(eps, prefer=prog._lp_backend(eps))  # the LP behind prog.solve(eps, method="lp")
    assert str(sol.status) == "optimal" and sol.z is not None
    lp = joint_type_lp(n, log_mass(prior, n), eps, False)
    ref = reference(prior, n, "pd-dp", eps)
    # the toolkit's joint type T = [[n − k − a, a], [k − b, b]] is the reference's variable (k, a, b)
    order = ((k, a, b) for k in range(n + 1) for a in range(n - k + 1) for b in range(k + 1))
    index = {t: i for i, t in enumerate(order)}
    where = [index[(int(t[1, 0] + t[1, 1]), int(t[0, 1]), int(t[1, 1]))] for t in prog.types.T]
    spec = prog.lp.spec
    assert sorted(where) == list(range(spec.K)) == list(range(len(lp.cost)))
    pairs = set(zip(spec.group.tolist(), lp.group[where].tolist()))  # the same rows, numbered differently
    assert len(pairs) == spec.G == len({k for _, k in pairs})
    z = [Fraction(float(v)) for v in sol.z]
    sums = [Fraction(0)] * spec.G
    for g, v in zip(spec.group.tolist(), z):
        sums[g] += v
    u = [Fraction(0)] * spec.K
    for j, (g, v) in enumerate(zip(spec.group.tolist(), z)):
        u[where[j]] = v / sums[g]  # the exact normalisation: every row of the reference sums to 1
    for s_, d_, lc in zip(lp.src.tolist(), lp.dst.tolist(), lp.log_coef.tolist()):
        assert u[s_] <= Fraction(math.exp(lc - 1e-13) * (1 - 1e-15)) * u[d_], (s_, d_)
    value = float(sum(Fraction(float(c)) * v for c, v in zip(lp.cost, u)))
    assert sol.bounds.lower * (1 - 1e-12) <= value <= sol.bounds.upper * (1 + 1e-12)
    assert ref >= sol.bounds.lower * (1 - REF_REL) and value < ref

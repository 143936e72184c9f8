r"""PD-DP and PD-I for i.i.d. priors by single-letterisation (problems/orbit/product_prior.py), against
independent references.

The theorem: for p_X = π^{⊗n}, PD-DP_n(ε) = n·PD-DP_1(ε; π) and PD-I_n(ε) = n·PD-I_1(ε; π) (proof in the
module's docstring and docs/orbit_reduction.md).  The references below never use the theorem:

* the n-row dense LP over all mⁿ × mⁿ entries of W in exact rational arithmetic (tests/reference/exact_lp.py,
  the prior the exact product of the float row pmf), at n = 2, 3 and m = 2, 3; the lifted mechanism is checked
  exactly feasible (tests/exact_feasibility.py);
* the joint-type LP of tests/orbit/test_reduced_independent_highs.py (written from the definitions, HiGHS) at
  n = 20–30;
* the n = 200 rows shipped with the package (computed earlier by the reduced LP, one LP per point);
* closed forms: Theorem 1 of Wang, Ying & Zhang (2016), h(ε + ε_X) ≤ PD-DP ≤ h(ε) ≤ PD-I, with h and ε_X
  written out here, and for π = (0.3, 0.7) PD-DP_n = n·min(0.3, 1/(1 + e^ε)) (tests/orbit/test_scale.py).
"""

from __future__ import annotations

import csv
import functools
import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from exact_feasibility import dp_feasible, pdi_feasible  # noqa: E402
from reference import exact_lp as ref  # noqa: E402
from test_reduced_independent_highs import reference as highs_reference  # noqa: E402

from problems.errors import InfeasibleProgramError, ProblemTooLargeError  # noqa: E402
from problems.orbit import ReducedPDDP, ReducedPDI, symmetric_iid  # noqa: E402

#: The relative accuracy promised by status "optimal".
REL = 1e-6
#: Slack for rounding an exact optimum to a float in the enclosure test.
BOUND_SLACK = 1e-12
ROW = (0.3, 0.7)


def _row(m: int, seed: int) -> tuple[float, ...]:
    rng = np.random.default_rng(seed)
    r = rng.dirichlet(np.ones(m)) * 0.8 + 0.2 / m
    return tuple(float(v) for v in r / r.sum())


def _eps_x(row) -> float:  # noqa: ANN001
    return math.log(max(row) / min(row))


def _h(eps: float, n: int, m: int) -> float:
    """Lemma 1 of Wang, Ying & Zhang (2016): h(ε) = n (m−1) e^{−ε} / (1 + (m−1) e^{−ε})."""
    t = (m - 1) * math.exp(-eps)
    return n * t / (1.0 + t)


def _solve(cls, row, n: int, eps: float, **kw):  # noqa: ANN001, ANN202
    return _program(cls, tuple(row), n).solve(eps, **kw)


@functools.cache
def _program(cls, row, n):  # noqa: ANN001, ANN202
    return cls(symmetric_iid(n, list(row)))


def _is_theorem(res) -> bool:  # noqa: ANN001
    return res.extras.get("reduction") == "single-letter" and res.stats.solver == "theorem"


def _enclosed(res, exact: float) -> bool:  # noqa: ANN001
    return res.bounds.lower <= exact * (1 + BOUND_SLACK) and exact * (1 - BOUND_SLACK) <= res.bounds.upper


# ------------------------------------------------------------------------------------ exact rational reference
@functools.cache
def _exact(program: str, row: tuple[float, ...], n: int, eps: float) -> Fraction | None:
    m = len(row)
    fr = [Fraction(v) for v in row]
    pmf = [math.prod((fr[a] for a in x), start=Fraction(1)) for x in itertools.product(range(m), repeat=n)]
    r = Fraction(math.exp(eps))
    return ref.pd_dp(pmf, n, m, r) if program == "pd-dp" else ref.pd_i(pmf, n, m, r)


def _exact_cases(slow: bool) -> list:
    sizes = [(3, 3, 0)] if slow else [(2, 2, 1), (3, 2, 2), (2, 3, 3)]
    out = []
    for n, m, seed in sizes:
        for row in (_row(m, seed), _row(m, seed + 10)):
            ex = _eps_x(row)
            for program in ("pd-dp", "pd-i"):
                grid = (0.0, 0.4, 1.0, 3.0, 12.0) if program == "pd-dp" else ()
                grid += (ex + 1e-6, ex + 0.05, ex + 1.0, 20.0)
                for eps in grid:
                    marks = [pytest.mark.slow] if slow else []
                    out.append(
                        pytest.param(program, row, n, eps, marks=marks, id=f"{program}-n{n}-m{m}-{eps:.6g}")
                    )
    return out


@pytest.mark.parametrize("program,row,n,eps", _exact_cases(False))
def test_theorem_bounds_contain_the_exact_dense_optimum(program, row, n, eps):
    """n = 2, 3 and m = 2, 3: the theorem's bounds contain the exact optimum of the n-row LP; its value is within
    1e-6 of it, and the lifted mechanism is exactly feasible."""
    cls = ReducedPDDP if program == "pd-dp" else ReducedPDI
    res = _solve(cls, row, n, eps)
    exact = _exact(program, row, n, eps)
    assert exact is not None  # ε ≥ ε_X: feasible
    assert _is_theorem(res) and res.status == "optimal", res.stats
    assert _enclosed(res, float(exact)), (res.bounds, float(exact))
    assert abs(res.value - float(exact)) <= REL * float(exact) + 1e-300
    W = res.mechanism.matrix
    m = len(row)
    assert W.shape == (m**n, m**n) and res.extras["mechanism_level"] == "database"
    if eps == 0.0:  # 0-DP: every row equal (exp_lower(0) < 1 would refuse even identical rows)
        assert np.all(W == W[:1])
    elif program == "pd-dp":
        assert dp_feasible(W, n, m, eps)
    else:
        fr = [Fraction(v) for v in row]
        pmf = [
            math.prod((fr[a] for a in x), start=Fraction(1)) for x in itertools.product(range(m), repeat=n)
        ]
        assert pdi_feasible(W, pmf, n, m, eps)


@pytest.mark.parametrize("program,row,n,eps", _exact_cases(True))
def test_theorem_bounds_contain_the_exact_dense_optimum_n3_m3(program, row, n, eps):
    """n = 3, m = 3 (N = 27: 729 exact variables; about a minute in all)."""
    test_theorem_bounds_contain_the_exact_dense_optimum(program, row, n, eps)


def test_pd_i_below_eps_X_is_infeasible_for_the_theorem_and_the_exact_reference():
    """ε just below ε_X: the typed infeasibility error (Lemma 3), whatever the method; the exact LP agrees."""
    for n, m, seed in ((3, 2, 2), (2, 3, 3)):
        row = _row(m, seed)
        prog = _program(ReducedPDI, row, n)
        below = math.nextafter(prog.eps_X, 0.0)
        for method in ("auto", "theorem", "lp"):
            with pytest.raises(InfeasibleProgramError):
                prog.solve(below, method=method)
        assert _exact("pd-i", row, n, _eps_x(row) - 1e-6) is None
        assert prog.solve(prog.eps_X).status == "optimal"  # at the smallest float ε ≥ ε_X: feasible


# ------------------------------------------------------------------------------------ HiGHS joint-type LP
#: The HiGHS reference is checked to 1e-8 relative (its a-posteriori repair, POST_CHECK of that module).
HIGHS_REL = 1e-8


@pytest.mark.parametrize(
    "program,n,eps",
    [
        ("pd-dp", 20, 0.5),
        ("pd-dp", 20, 2.0),
        ("pd-i", 20, 1.0),
        pytest.param("pd-i", 20, 0.3, marks=pytest.mark.slow),
        pytest.param("pd-dp", 30, 2.0, marks=pytest.mark.slow),
        pytest.param("pd-i", 30, 2.0, marks=pytest.mark.slow),
    ],
)
def test_theorem_matches_the_independent_highs_joint_type_lp(program, n, eps):
    """m = 2, i.i.d. (0.3, 0.7): the HiGHS joint-type LP written in test_reduced_independent_highs.py (PD-I at
    ε_X + offset)."""
    spec = "iid:0.3,0.7"
    e = eps if program == "pd-dp" else _eps_x(ROW) + eps
    expected = highs_reference(spec, n, program, e)
    res = _solve(ReducedPDDP if program == "pd-dp" else ReducedPDI, ROW, n, e)
    assert _is_theorem(res) and res.status == "optimal"
    slack = HIGHS_REL * expected
    assert res.bounds.lower - slack <= expected <= res.bounds.upper + slack
    assert abs(res.value - expected) <= REL * expected


# ------------------------------------------------------------------------------------ closed forms at large n
@pytest.mark.parametrize("n,m,row", [(400, 2, ROW), (16, 3, (0.2, 0.3, 0.5)), (1000, 3, (0.2, 0.3, 0.5))])
def test_theorem_1_enclosure_at_large_n(n, m, row):
    """h(ε + ε_X) ≤ PD-DP ≤ h(ε) ≤ PD-I (Theorem 1 (18)–(19), Lemma 1), PD-I = h(ε) for ε ≥ ε̃_X (Lemma 4)."""
    ex = _eps_x(row)
    for eps in (ex + 0.01, ex + 0.5, 2.0, 6.0):
        dp, pi = _solve(ReducedPDDP, row, n, eps), _solve(ReducedPDI, row, n, eps)
        assert dp.status == pi.status == "optimal" and _is_theorem(dp) and _is_theorem(pi)
        assert _h(eps + ex, n, m) * (1 - 1e-12) <= dp.bounds.upper
        assert dp.bounds.lower <= _h(eps, n, m) * (1 + 1e-12) <= pi.bounds.upper * (1 + 2e-12)
        if min(row) * (math.exp(eps) + m - 1) >= 1.0:  # E_i is a mechanism (Lemma 4): PD-I = h(ε)
            assert _enclosed(pi, _h(eps, n, m))
    assert dp.extras["mechanism_level"].startswith("row") and dp.mechanism.matrix.shape == (m, m)


def test_pd_dp_closed_form_and_slope_of_the_row_0_3():
    """π = (0.3, 0.7): PD-DP_n(ε) = n·min(0.3, 1/(1+e^ε)) (test_scale.py proves it), and the slope the answer
    carries is its derivative −n e^ε/(1+e^ε)² where 1/(1+e^ε) < 0.3."""
    n = 400
    for eps in (0.0, 0.5, 1.0, 2.5, 8.0):
        exact = n * min(0.3, 1.0 / (1.0 + math.exp(eps)))
        res = _solve(ReducedPDDP, ROW, n, eps)
        assert res.status == "optimal" and _enclosed(res, exact)
        if 1.0 / (1.0 + math.exp(eps)) < 0.29:
            slope = -n * math.exp(eps) / (1.0 + math.exp(eps)) ** 2
            assert res.extras["slope"] == pytest.approx(slope, rel=1e-4)


# ------------------------------------------------------------------------------------ the LP is still the LP
def test_method_lp_solves_the_joint_type_lp_and_agrees():
    n = 12
    for cls, eps in ((ReducedPDDP, 1.0), (ReducedPDI, 1.3)):
        prog = cls(symmetric_iid(n, list(ROW)))
        lp, th = prog.solve(eps, method="lp"), prog.solve(eps, method="theorem")
        assert lp.stats.solver != "theorem" and lp.extras["path"] == "reduced" and "u" in lp.extras
        assert _is_theorem(th) and th.extras["path"] == "theorem"
        assert lp.status == th.status == "optimal"
        assert max(lp.bounds.lower, th.bounds.lower) <= min(lp.bounds.upper, th.bounds.upper) * (1 + 1e-12)


def test_the_joint_types_are_built_only_for_the_lp():
    """n = 200, m = 3 has C(208, 8) joint types: the theorem answers; the LP is refused with a typed error."""
    prog = ReducedPDDP(symmetric_iid(200, [0.2, 0.3, 0.5]))
    assert prog.solve(1.0).status == "optimal"
    with pytest.raises(ProblemTooLargeError):
        prog.solve(1.0, method="lp")


def test_a_correlated_prior_still_has_no_pd_dp_theorem():
    from problems.errors import InvalidInputError
    from problems.orbit import symmetric_mixture

    prog = ReducedPDDP(symmetric_mixture(6, [[0.2, 0.8], [0.6, 0.4]], [0.5, 0.5]))
    with pytest.raises(InvalidInputError):
        prog.solve(1.0, method="theorem")
    assert prog.solve(1.0).stats.solver != "theorem"


# ------------------------------------------------------------------------------------ the shipped n = 200 rows
def test_n200_rows_by_the_theorem_equal_the_shipped_lp_rows():
    """ε*(D) at n = 200 through the theorem path (eps_star_curve) against every shipped row (computed earlier by
    the reduced LP, one LP per point): |Δε*| ≤ 1e-6·max(1, ε*), every solve certified."""
    from problems.orbit.scale import PRECOMPUTED_CSV, eps_star_curve

    with PRECOMPUTED_CSV.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) >= 8
    n = 200
    for name, cls in (("pd-dp", ReducedPDDP), ("pd-i", ReducedPDI)):
        mine = [r for r in rows if r["program"] == name]
        levels = [float(r["D_over_n"]) for r in mine]
        prog = cls(symmetric_iid(n, list(ROW)))
        log: list[dict] = []
        got = eps_star_curve(prog, n, levels, eps_min=getattr(prog, "eps_X", 0.0), log=log)
        assert all(e["certified"] for e in log) and all(_is_theorem(e["result"]) for e in log)
        for r, e in zip(mine, got):
            shipped = float(r["eps_star"])
            assert abs(e - shipped) <= 1e-6 * max(1.0, shipped), (name, r["D_over_n"], e, shipped)


def test_sampling_and_lifting_a_row_level_answer():
    """n = 200: ``sample`` draws each row from the one-row channel (the flip rate matches the answer's value for
    x drawn from the prior); n = 8 with a lift limit of 100 (N = 256 above it): ``lift_mechanism`` gives
    W₁^{⊗n}, whose distortion under the prior is the answer's value."""
    from problems.orbit import lift_mechanism, sample

    n = 200
    res = _solve(ReducedPDDP, ROW, n, 1.5)
    rng = np.random.default_rng(5)
    x = (rng.random(n) < ROW[1]).astype(np.int64)  # one database drawn from π^{⊗n}
    y = sample(res, x, 4000, rng)
    W1 = res.extras["single_letter_channel"]
    expected = float(sum(1.0 - W1[a, a] for a in x))  # E d(x, Y) for this x
    got = float((y != x[None, :]).sum(axis=1).mean())
    assert abs(got - expected) <= 5 * math.sqrt(expected / 4000) + 1e-9
    n = 8
    small = ReducedPDDP(symmetric_iid(n, list(ROW)), lift_limit=100).solve(1.5)
    assert small.extras["mechanism_level"].startswith("row")
    W = lift_mechanism(small).matrix
    xs = np.array(list(itertools.product(range(2), repeat=n)))
    p = np.prod(np.where(xs == 1, ROW[1], ROW[0]), axis=1)
    d = (xs[:, None, :] != xs[None, :, :]).sum(axis=2)
    assert float(np.sum(p[:, None] * W * d)) == pytest.approx(small.value, rel=1e-9)


def test_all_24_points_of_the_n200_figure_against_the_closed_forms():
    """The 24 default points at n = 200 through ``scale_rows`` (the theorem path): all certified, and equal to
    the exact privacy–distortion functions of π = (0.3, 0.7) written out here (test_scale.py proves them):
    ε*_d = ln(n/D − 1) below D/n = 0.3 and 0 above; ε*_i = ln(n/D − 1) up to D/n = 0.3 and ε_X = ln(7/3) above."""
    from problems.orbit.scale import DEFAULT_LEVELS, scale_rows

    n = 200
    for program in ("dp", "i"):
        rows = scale_rows(n, program, DEFAULT_LEVELS, progress=lambda s: None)
        assert len(rows) == 12 and all(r["uncertified_solves"] == 0 for r in rows)
        for r in rows:
            delta = r["D_over_n"]
            if delta < 0.3:
                exact = math.log(1.0 / delta - 1.0)
            else:
                exact = 0.0 if program == "dp" else math.log(0.7 / 0.3)
            assert r["eps_star"] == pytest.approx(exact, rel=1e-6, abs=1e-9), (program, delta)

"""The LP programs (PD-DP, PD-I, R-PD) against an independent exact rational reference.

The reference (``tests/reference/exact_lp.py``) rebuilds each program from its definition with
:func:`itertools.product` and solves it in :class:`fractions.Fraction` arithmetic, with the optimum proved by
an exactly checked primal–dual pair.  Its input is the same float prior the library gets (converted exactly)
and r = ``Fraction(math.exp(eps))``; the rounding of e^ε moves the optimum by ~1e-16 relative, far below the
tolerances here.

Asserted for every case (program, n, m, prior, ε):

a) the library's rigorous bounds contain the exact optimum (slack 1e-12 relative, only for the float
   conversion of the exact value);
b) ``status == "optimal"`` ⇒ ``|value − exact| ≤ 1e-6 · exact`` (relative, also for values like 1e-22);
c) the returned mechanism (joint, for R-PD) is non-negative, row-stochastic within 1e-12 and satisfies the
   privacy constraint with a relative margin of 1e-12 only; its objective is not below the exact optimum
   (beyond 1e-9 relative) and, when ``optimal``, within 1e-6 of it;
d) PD-I below ε_X − 0.05 raises :class:`InfeasibleProgramError` and the reference finds it infeasible.

The default run covers n = 3, m = 2 and n = 2, m = 3 with uniform, i.i.d., Dirichlet and skewed (masses 1e-9)
priors on ε ∈ {0.5, 1, 2, 5, 10, 20, 30, 40, 50}; ``-m slow`` adds a random scan over all spaces with N ≤ 27.
"""

from __future__ import annotations

import functools
import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import exact_lp as ref  # noqa: E402

from problems import DatabaseSpace, priors  # noqa: E402
from problems.errors import InfeasibleProgramError  # noqa: E402
from problems.programs import PDDP, PDI, RPD  # noqa: E402

EPS_GRID = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0)
#: Slack on the bound test, only for rounding the exact optimum to a float.
BOUND_SLACK = 1e-12
#: Relative accuracy promised by status "optimal".
VALUE_RTOL = 1e-6
#: Relative margin on the privacy constraints and absolute tolerance on row sums of the returned mechanism.
CONSTRAINT_MARGIN = 1e-12
ROW_SUM_TOL = 1e-12
#: A feasible mechanism cannot beat the optimum; allowance for the float evaluation of its objective.
OBJECTIVE_SLACK = 1e-9
#: PD-I is tested at ε ≥ ε_X + margin, and for infeasibility at ε ≤ ε_X − margin.
PD_I_MARGIN = 0.05

STATUSES = ("optimal", "inaccurate", "failed")


# ------------------------------------------------------------------------------------------------------------
# Cases
# ------------------------------------------------------------------------------------------------------------


def _iid_row(m: int) -> tuple[float, ...]:
    return {2: (0.7, 0.3), 3: (0.5, 0.3, 0.2)}[m]


@functools.cache
def prior_case(n: int, m: int, kind: str, seed: int) -> tuple[object, tuple[float, ...]]:
    """(library Prior, the float pmf the reference gets).

    ``uniform`` and ``iid`` use the library's constructors (their pmf, checked against a product built here,
    is the input both sides get); the random kinds build the pmf here and pass it through ``from_pmf``.
    """
    space = DatabaseSpace(n, m)
    N = m**n
    if kind == "uniform":
        prior = priors.uniform(space)
        mine = np.full(N, 1.0 / N)
    elif kind == "iid":
        row = _iid_row(m)
        prior = priors.iid(space, row)
        mine = np.array([math.prod(row[v] for v in x) for x in itertools.product(range(m), repeat=n)])
    else:
        rng = np.random.default_rng(seed)
        if kind == "dirichlet":
            pmf = rng.dirichlet(np.ones(N))
        elif kind == "dirichlet-sparse":  # concentration 0.3: masses spread over orders of magnitude
            pmf = np.maximum(rng.dirichlet(np.full(N, 0.3)), 1e-12)
        elif kind == "skewed":  # a Dirichlet draw with a few masses set to 1e-9
            pmf = rng.dirichlet(np.full(N, 0.5))
            k = max(1, N // 4)
            pmf[rng.choice(N, size=k, replace=False)] = 1e-9
        else:
            raise ValueError(kind)
        pmf = pmf / pmf.sum()
        prior = priors.from_pmf(space, pmf)
        mine = pmf
    np.testing.assert_allclose(prior.pmf, mine, rtol=1e-15, atol=0)
    return prior, tuple(float(v) for v in prior.pmf)


def eps_x_of(pmf: tuple[float, ...], n: int, m: int) -> float:
    """ε_X = max over neighbours of |ln p(x) − ln p(x')| (computed here, not by the library)."""
    logp = [math.log(v) for v in pmf]
    return max(abs(logp[a] - logp[b]) for a, b in ref.neighbour_pairs(n, m))


@functools.cache
def exact_sweep(program: str, n: int, m: int, kind: str, seed: int) -> dict[float, Fraction | None]:
    """Exact optima over EPS_GRID, solved in increasing ε with the previous optimal basis as a start."""
    pmf = prior_case(n, m, kind, seed)[1] if program != "r-pd" else None
    out: dict[float, Fraction | None] = {}
    basis = None
    for eps in sorted(EPS_GRID):
        r = Fraction(math.exp(eps))
        bases = [basis] if basis is not None else []
        if program == "pd-dp":
            sol = ref.pd_dp_solution(pmf, n, m, r, bases=bases)
        elif program == "pd-i":
            sol = ref.pd_i_solution(pmf, n, m, r, bases=bases)
        else:
            sol = ref.r_pd_solution(n, m, r, bases=bases)
        out[eps] = None if sol is None else sol.value
        basis = basis if sol is None else sol.basis
    return out


# ------------------------------------------------------------------------------------------------------------
# Checks
# ------------------------------------------------------------------------------------------------------------


def _solve(program_obj, eps: float, path: str):
    """``solve(eps, method=path)``; a solve without the ``method`` keyword fails here (a TypeError), never skips."""
    if path != "auto":
        return program_obj.solve(eps, method=path)
    return program_obj.solve(eps)


def _hamming(n: int, m: int) -> np.ndarray:
    dbs = ref.databases(n, m)
    return np.array([[ref.hamming(a, b) for b in dbs] for a in dbs], dtype=float)


def check_value(res, exact: Fraction, label: str) -> list[str]:
    """(a) bounds contain the exact optimum; (b) an optimal value is within 1e-6 of it."""
    errors = []
    ex = float(exact)
    status = str(getattr(res.status, "value", res.status))
    lo, up = float(res.bounds.lower), float(res.bounds.upper)
    if status not in STATUSES:
        errors.append(f"{label}: unknown status {status!r}")
    if not lo <= ex * (1 + BOUND_SLACK):
        errors.append(
            f"{label}: lower bound {lo!r} > exact optimum {ex!r} (status {status}, value {res.value!r})"
        )
    if not up >= ex * (1 - BOUND_SLACK):
        errors.append(
            f"{label}: upper bound {up!r} < exact optimum {ex!r} (status {status}, value {res.value!r})"
        )
    if status == "optimal" and not abs(float(res.value) - ex) <= VALUE_RTOL * ex:
        errors.append(
            f"{label}: optimal value {res.value!r} vs exact {ex!r}: relative error "
            f"{abs(float(res.value) - ex) / ex if ex else math.inf:.3g} > {VALUE_RTOL:g} "
            f"(bounds [{lo!r}, {up!r}])"
        )
    return errors


def check_joint(
    q: np.ndarray,
    row_mass: np.ndarray,
    r: float,
    n: int,
    m: int,
    objective: float,
    exact: Fraction,
    optimal: bool,
    label: str,
) -> list[str]:
    """(c) q ≥ 0, rows of q sum to ``row_mass``, q[x,y] ≤ r q[x',y] for neighbours; objective vs exact."""
    errors = []
    N = m**n
    if q.shape != (N, N) or not np.all(np.isfinite(q)):
        return [f"{label}: mechanism has shape {q.shape} or non-finite entries"]
    if np.any(q < 0):
        errors.append(f"{label}: negative entry {q.min()!r} in the mechanism")
    dev = np.max(np.abs(q.sum(axis=1) - row_mass) / row_mass)
    if not dev <= ROW_SUM_TOL:
        errors.append(f"{label}: rows sum off by {dev:.3g} (relative)")
    worst = 0.0
    for a, b in ref.neighbour_pairs(n, m):
        excess = q[a] - r * q[b] * (1 + CONSTRAINT_MARGIN)
        if np.any(excess > 0):
            y = int(np.argmax(excess))
            worst = max(worst, q[a, y] / (r * q[b, y]) - 1 if q[b, y] > 0 else math.inf)
    if worst > 0:
        errors.append(
            f"{label}: privacy constraint violated by a relative {worst:.3g} (margin {CONSTRAINT_MARGIN:g})"
        )
    ex = float(exact)
    if not objective >= ex * (1 - OBJECTIVE_SLACK):
        errors.append(f"{label}: the mechanism's distortion {objective!r} is below the exact optimum {ex!r}")
    if optimal and not abs(objective - ex) <= VALUE_RTOL * ex:
        errors.append(f"{label}: the 'optimal' mechanism's distortion {objective!r} vs exact optimum {ex!r}")
    return errors


def check_pd_dp(n: int, m: int, kind: str, seed: int, eps: float, path: str = "auto") -> list[str]:
    prior, pmf = prior_case(n, m, kind, seed)
    exact = exact_sweep("pd-dp", n, m, kind, seed)[eps]
    label = f"PD-DP n={n} m={m} prior={kind}/{seed} eps={eps:g} path={path}"
    res = _solve(PDDP(prior), eps, path)
    errors = check_value(res, exact, label)
    if str(res.status) != "failed":
        W = np.asarray(res.matrix, dtype=float)
        p = np.array(pmf)
        objective = float(np.sum(p[:, None] * W * _hamming(n, m)))
        errors += check_joint(
            W, np.ones(m**n), math.exp(eps), n, m, objective, exact, str(res.status) == "optimal", label
        )
    return errors


def check_pd_i(n: int, m: int, kind: str, seed: int, eps: float, path: str = "auto") -> list[str] | None:
    """``None`` when ε is within PD_I_MARGIN of ε_X (not tested)."""
    prior, pmf = prior_case(n, m, kind, seed)
    eps_x = eps_x_of(pmf, n, m)
    exact = exact_sweep("pd-i", n, m, kind, seed)[eps]
    label = f"PD-I n={n} m={m} prior={kind}/{seed} eps={eps:g} (eps_X={eps_x:.4g}) path={path}"
    if eps <= eps_x - PD_I_MARGIN:
        errors = [] if exact is None else [f"{label}: the reference found a feasible point below eps_X"]
        try:
            _solve(PDI(prior), eps, path)
        except InfeasibleProgramError:
            return errors
        return errors + [f"{label}: no InfeasibleProgramError below eps_X"]
    if eps < eps_x + PD_I_MARGIN:
        return None
    if exact is None:
        return [f"{label}: the reference found PD-I infeasible above eps_X"]
    res = _solve(PDI(prior), eps, path)
    errors = check_value(res, exact, label)
    if str(res.status) != "failed":
        W = np.asarray(res.matrix, dtype=float)
        p = np.array(pmf)
        q = p[:, None] * W
        objective = float(np.sum(q * _hamming(n, m)))
        errors += check_joint(
            q, p, math.exp(eps), n, m, objective, exact, str(res.status) == "optimal", label
        )
    return errors


def check_r_pd(n: int, m: int, eps: float, path: str = "auto") -> list[str]:
    exact = exact_sweep("r-pd", n, m, "none", 0)[eps]
    label = f"R-PD n={n} m={m} eps={eps:g} path={path}"
    res = _solve(RPD(DatabaseSpace(n, m)), eps, path)
    errors = check_value(res, exact, label)
    if str(res.status) != "failed":
        p_x = np.asarray(res.extras["p_x"], dtype=float)
        q = p_x[:, None] * np.asarray(res.matrix, dtype=float)
        objective = float(np.sum(q * _hamming(n, m)))
        if not abs(q.sum() - 1) <= ROW_SUM_TOL:
            errors.append(f"{label}: the joint sums to {q.sum()!r}")
        errors += check_joint(
            q, q.sum(axis=1), math.exp(eps), n, m, objective, exact, str(res.status) == "optimal", label
        )
    return errors


def _assert_none(errors: list[str] | None) -> None:
    if errors is None:
        pytest.skip("eps within PD_I_MARGIN of eps_X")
    assert not errors, "\n".join(errors)


# ------------------------------------------------------------------------------------------------------------
# The reference itself
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,m", [(1, 2), (2, 2), (3, 2), (2, 3), (1, 4)])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0, 10.0, 50.0])
def test_reference_r_pd_is_h_exactly(n, m, eps):
    """Wang, Ying & Zhang (2016), Lemma 1: the R-PD optimum is h = n/(1 + e^ε/(m−1)), here exactly in r = Fraction(e^ε)."""
    r = Fraction(math.exp(eps))
    assert ref.r_pd(n, m, r) == ref.h_closed_form(n, m, r)


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2), (2, 3)])
@pytest.mark.parametrize("eps", [0.5, 5.0, 30.0])
def test_reference_pd_dp_uniform_is_h_exactly(n, m, eps):
    """Wang, Ying & Zhang (2016), Lemma 5 / Theorem 1: PD-DP with the (exactly) uniform prior has optimum h(ε)."""
    r = Fraction(math.exp(eps))
    N = m**n
    assert ref.pd_dp([Fraction(1, N)] * N, n, m, r) == ref.h_closed_form(n, m, r)


def test_reference_cold_start_agrees_and_detects_infeasibility():
    """The exact two-phase simplex without any float start reaches the same optima; phase 1 proves PD-I
    infeasible below the neighbour ratio, and the certificate check rejects a wrong dual."""
    n, m = 2, 2
    pmf = [Fraction(1, 10), Fraction(2, 10), Fraction(3, 10), Fraction(4, 10)]
    for eps in (0.5, 3.0, 40.0):
        r = Fraction(math.exp(eps))
        for lp in (ref.pd_dp_lp(pmf, n, m, r), ref.r_pd_lp(n, m, r)):
            cold = ref.solve_lp(lp, warm_start=False)
            assert cold.path == "two-phase"
            assert cold.value == ref.solve_lp(lp).value
    ratio = ref.max_neighbour_ratio(pmf, n, m)
    assert ratio == 3  # p(1,0)/p(0,0); (1,1) and (0,0) are not neighbours
    with pytest.raises(ref.InfeasibleLP):
        ref.solve_lp(ref.pd_i_lp(pmf, n, m, ratio - Fraction(1, 10**6)), warm_start=False)
    assert ref.pd_i(pmf, n, m, ratio - Fraction(1, 10**6)) is None
    at_ratio = ref.solve_lp(ref.pd_i_lp(pmf, n, m, ratio), warm_start=False)
    assert at_ratio.value == ref.pd_i(pmf, n, m, ratio)
    sol = ref.pd_dp_solution(pmf, n, m, Fraction(3))
    lp = ref.pd_dp_lp(pmf, n, m, Fraction(3))
    assert ref._certificate_error(lp, sol.x, sol.y_eq, sol.y_ub) is None
    assert ref._certificate_error(lp, sol.x, [y + 1 for y in sol.y_eq], sol.y_ub) is not None


@pytest.mark.parametrize(
    "program,eps_from,eps_to,expected",
    [
        ("pd-dp", 1.0, 20.0, "revised primal"),
        ("pd-dp", 16.0, 2.0, "revised primal"),
        ("pd-i", 12.5, 20.0, "revised dual"),
        ("pd-i", 30.0, 12.5, "revised dual"),
    ],
)
def test_reference_paths_agree(program, eps_from, eps_to, expected):
    """Revised simplex and tableau simplex from a foreign basis (the optimum at another ε), and the cold
    two-phase simplex, reach the same exact optimum."""
    n, m = 3, 2
    pmf = [Fraction(1, 10**6)] + [Fraction(1, 7) - Fraction(1, 7 * 10**6)] * 7  # ε_X = ln 142857 ≈ 11.87
    build = ref.pd_dp_lp if program == "pd-dp" else ref.pd_i_lp
    far = ref.solve_lp(build(pmf, n, m, Fraction(math.exp(eps_from)))).basis
    lp = build(pmf, n, m, Fraction(math.exp(eps_to)))
    cold = ref.solve_lp(lp, warm_start=False)
    revised = ref.solve_lp(lp, warm_start=False, bases=[far])
    tableau = ref._try_warm(lp, far, 10_000)
    assert cold.path == "two-phase"
    assert revised.path == expected and revised.pivots > 0
    assert tableau is not None and tableau.path in ("warm primal", "warm dual")
    assert cold.value == revised.value == tableau.value


# ------------------------------------------------------------------------------------------------------------
# The library against the reference (default run)
# ------------------------------------------------------------------------------------------------------------

FAST_SPACES = [(3, 2), (2, 3)]
FAST_PRIORS = [("uniform", 0), ("iid", 0), ("dirichlet", 1), ("skewed", 2)]
PATHS = ["auto", "lp"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("eps", EPS_GRID)
@pytest.mark.parametrize("kind,seed", FAST_PRIORS)
@pytest.mark.parametrize("n,m", FAST_SPACES)
def test_pd_dp_against_exact(n, m, kind, seed, eps, path):
    _assert_none(check_pd_dp(n, m, kind, seed, eps, path))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("eps", EPS_GRID)
@pytest.mark.parametrize("kind,seed", FAST_PRIORS)
@pytest.mark.parametrize("n,m", FAST_SPACES)
def test_pd_i_against_exact(n, m, kind, seed, eps, path):
    _assert_none(check_pd_i(n, m, kind, seed, eps, path))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("eps", EPS_GRID)
@pytest.mark.parametrize("n,m", FAST_SPACES)
def test_r_pd_against_exact(n, m, eps, path):
    _assert_none(check_r_pd(n, m, eps, path))


# ------------------------------------------------------------------------------------------------------------
# Random scan (slow)
# ------------------------------------------------------------------------------------------------------------

SLOW_SPACES = [(1, 2), (1, 3), (2, 2), (3, 2), (2, 3)]
SLOW_PRIORS = [("dirichlet", s) for s in (10, 11, 12)] + [
    ("dirichlet-sparse", 20),
    ("skewed", 30),
    ("skewed", 31),
]


def _scan(n: int, m: int, kind: str, seed: int, r_pd: bool = False) -> None:
    """Every program, ε and solve path for one prior; all discrepancies are reported together."""
    errors: list[str] = []
    for eps in EPS_GRID:
        for path in PATHS:
            errors += check_pd_dp(n, m, kind, seed, eps, path)
            errors += check_pd_i(n, m, kind, seed, eps, path) or []
            errors += check_r_pd(n, m, eps, path) if r_pd else []
    assert not errors, "\n".join(errors)


@pytest.mark.slow
@pytest.mark.parametrize("kind,seed", SLOW_PRIORS)
@pytest.mark.parametrize("n,m", SLOW_SPACES)
def test_random_scan_against_exact(n, m, kind, seed):
    _scan(n, m, kind, seed)


@pytest.mark.slow
@pytest.mark.parametrize("n,m", [(1, 2), (1, 3), (2, 2), (3, 3)])
@pytest.mark.parametrize("kind", ["uniform", "iid"])
def test_structured_priors_other_spaces(n, m, kind):
    _scan(n, m, kind, 0, r_pd=kind == "uniform")


@pytest.mark.slow
@pytest.mark.parametrize("kind,seed", [("dirichlet", 10), ("skewed", 30)])
def test_random_priors_n3_m3(kind, seed):
    """N = 27 (729 variables, 4 374 ratio rows).  The skewed prior takes minutes: near ε ≈ ε_X ≈ 19 the
    exact revised simplex needs a few hundred pivots from the float bases."""
    _scan(3, 3, kind, seed)

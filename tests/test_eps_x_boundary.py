"""PD-I at ε = the float ε_X and its neighbouring floats: a proof either way.

Reference: whether the float ε is ≥ the true ε_X = ln max p(x)/p(x') of the float masses is decided here with
:mod:`decimal` at 80 digits (Decimal(float) is exact; Decimal.exp is correctly rounded), independently of the
library's rational enclosure.  Below: ``InfeasibleProgramError`` and exit 1.  At or above: a finite upper
bound and a mechanism that is exactly ε-identifiable (checked in rational arithmetic).
"""

from __future__ import annotations

import decimal
import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_feasibility import distortion, neighbours, pdi_feasible  # noqa: E402

from problems import DatabaseSpace, priors  # noqa: E402
from problems.cli import main  # noqa: E402
from problems.dispatch import make_program  # noqa: E402
from problems.errors import InfeasibleProgramError  # noqa: E402
from problems.prior_constants import eps_X, exp_at_least  # noqa: E402
from problems.programs import PDI  # noqa: E402


def feasible_reference(pmf, n: int, m: int, eps: float) -> bool:  # noqa: ANN001
    """e^ε ≥ p(x)/p(x') for every neighbour pair, in 80-digit decimal arithmetic."""
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        e = decimal.Decimal(eps).exp()
        worst = max(
            decimal.Decimal(float(pmf[i])) / decimal.Decimal(float(pmf[j])) for i, j in neighbours(n, m)
        )
        assert abs(e - worst) > decimal.Decimal(10) ** -70 * worst  # decidable at this precision
        return e >= worst


def _floats_around(x: float, k: int = 3) -> list[float]:
    out, lo, hi = [x], x, x
    for _ in range(k):
        lo, hi = math.nextafter(lo, 0.0), math.nextafter(hi, math.inf)
        out += [lo, hi]
    return sorted(out)


def test_exp_at_least_against_decimal():
    rng = np.random.default_rng(3)
    for _ in range(200):
        eps = float(rng.uniform(0, 50))
        r = Fraction(math.exp(eps)) * (1 + Fraction(int(rng.integers(-4, 5)), 2**53))
        with decimal.localcontext() as ctx:
            ctx.prec = 80
            ref = decimal.Decimal(eps).exp() >= decimal.Decimal(r.numerator) / decimal.Decimal(r.denominator)
        assert exp_at_least(eps, r) == ref


PMF = (0.1, 0.2, 0.3, 0.4)


@pytest.mark.parametrize("eps", _floats_around(eps_X(priors.from_pmf(DatabaseSpace(2, 2), np.array(PMF)))))
def test_dense_pd_i_at_the_float_eps_X(eps):
    n, m = 2, 2
    prior = priors.from_pmf(DatabaseSpace(n, m), np.array(PMF))
    argv = ["solve", "pd-i", "--n", "2", "--m", "2", "--prior", "pmf:0.1,0.2,0.3,0.4", "--eps", repr(eps)]
    if not feasible_reference(PMF, n, m, eps):
        with pytest.raises(InfeasibleProgramError):
            PDI(prior).solve(eps)
        assert main(argv) == 1
        return
    res = PDI(prior).solve(eps)
    assert math.isfinite(res.bounds.upper)
    assert pdi_feasible(res.matrix, PMF, n, m, eps)
    d = distortion(res.matrix, PMF, n, m)
    assert Fraction(res.bounds.lower) <= d <= Fraction(res.bounds.upper) * (1 + Fraction(1, 10**12))
    assert main(argv) in (0, 3)


ROW = (0.3, 0.7)


@pytest.mark.parametrize("eps", _floats_around(math.log(0.7) - math.log(0.3)))
def test_reduced_pd_i_at_the_float_eps_X(eps):
    """The i.i.d. prior's masses are the exact products of the row's floats (the dense float pmf rounds them)."""
    n, m = 3, 2
    prior = priors.iid(DatabaseSpace(n, m), list(ROW))
    exact = [
        math.prod((Fraction(ROW[v]) for v in x), start=Fraction(1))
        for x in itertools.product(range(m), repeat=n)
    ]
    argv = ["solve", "pd-i", "--n", "3", "--m", "2", "--prior", "iid:0.3,0.7", "--eps", repr(eps)]
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        feasible = decimal.Decimal(eps).exp() >= decimal.Decimal(0.7) / decimal.Decimal(0.3)
    if not feasible:
        with pytest.raises(InfeasibleProgramError):
            make_program("pd-i", prior, "reduced").solve(eps)
        assert main(argv) == 1
        return
    res = make_program("pd-i", prior, "reduced").solve(eps)
    assert res.certified  # the constant mechanism is optimal here (i.i.d. (0.3, 0.7) near ε_X)
    assert pdi_feasible(res.matrix, exact, n, m, eps)
    assert main(argv) == 0


@pytest.mark.parametrize("spec", ["mixture:0.5,0.5/1,0/0,1", "contagious:1", "mixture:0.3,0.7/1,0/1,0"])
def test_mixture_eps_X_ratio_without_full_support(spec):
    """A database of mass 0 beside one of positive mass: e^ε_X is infinite, said by a typed error (it was 1)."""
    from problems.errors import InvalidInputError
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.prior_constants import mixture_eps_X_ratio

    with pytest.raises(InvalidInputError, match="infinite"):
        mixture_eps_X_ratio(parse_symmetric_prior(spec, 5, 2))


def test_mixture_eps_X_ratio_is_the_exact_largest_ratio():
    """Against an independent rational evaluation of every neighbouring pair of weights k, k + 1."""
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.prior_constants import mixture_eps_X_ratio

    # the documented convention: the float parameters, taken exactly
    f = [Fraction(float(v)) for v in (0.25, 0.9, 0.1, 0.75, 0.3, 0.7)]
    n, comps = 7, [(f[0], f[1], f[2]), (f[3], f[4], f[5])]
    mass = [sum(w * p0 ** (n - k) * p1**k for w, p0, p1 in comps) for k in range(n + 1)]
    want = max(max(a / b, b / a) for a, b in zip(mass, mass[1:]))
    got = mixture_eps_X_ratio(parse_symmetric_prior("mixture:0.25,0.75/0.9,0.1/0.3,0.7", n, 2))
    assert got == want

"""The iterative refinement's tolerance for basic variables (``REFINE_TOL_BASIC`` in problems/ipm/iteration.py).

Equation (5) of a basic variable (s < z) is refined to a tenth of its own z∘s rather than to 1e-6 of μ.  What must
hold: the block method's answers stay certified and equal to an independently solved LP (HiGHS on the same
matrices, ``highs_optimum``), with the strict rule and with the loose one, and the loose one needs no more Newton
solves (at n = 100 it needs 14–56 % fewer: ``docs/benchmarks.md``).
"""

from __future__ import annotations

import math

import pytest

from problems.ipm import block, iteration
from problems.lp.bounds import certify
from problems.orbit import ReducedPDDP, ReducedPDI
from problems.orbit.symmetric_prior import parse_symmetric_prior

N = 24
MIXTURE = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"


@pytest.fixture
def solves(monkeypatch) -> list[int]:  # noqa: ANN001
    """A counter of the Newton solves (unrefined solves and refinement steps) of the block method."""
    count = [0]
    raw = iteration._Newton.raw

    def counted(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        count[0] += 1
        return raw(self, *a, **k)

    monkeypatch.setattr(iteration._Newton, "raw", counted)
    return count


def _certified_bounds(spec, eps: float) -> tuple[float, float]:  # noqa: ANN001
    """The block method with the certificate as its stopping rule: the certified (lower, upper)."""
    seen = {}

    def enough(u, nu, lam) -> bool:  # noqa: ANN001
        seen["cert"] = certify(spec, eps, u, nu, lam)
        return bool(seen["cert"].certified)

    args = (spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(eps))
    block.solve_block_lp(*args, program=spec.program, enough=enough)
    assert seen["cert"].certified
    return seen["cert"].bounds.lower, seen["cert"].bounds.upper


@pytest.mark.parametrize(
    ("program", "prior", "eps"),
    [("pd-dp", MIXTURE, 0.5), ("pd-dp", "contagious:0.2:0.3,0.7", 2.0), ("pd-i", MIXTURE, 0.3)],
)
def test_basic_variables_refined_loosely_certify_the_same_optimum_with_no_more_solves(
    program, prior, eps, highs_optimum, solves, monkeypatch
):
    """n = 24: both rules certify bounds that hold the HiGHS optimum; the loose rule takes no more Newton solves."""
    sym = parse_symmetric_prior(prior, N, 2)
    spec = (ReducedPDI(sym) if program == "pd-i" else ReducedPDDP(sym)).lp.spec
    eps = spec.eps_min + eps if program == "pd-i" else eps
    ref = highs_optimum(spec, eps)
    loose = iteration.REFINE_TOL_BASIC
    assert loose > 0
    used = {}
    for tol in (0.0, loose):
        monkeypatch.setattr(iteration, "REFINE_TOL_BASIC", tol)
        solves[0] = 0
        lo, up = _certified_bounds(spec, eps)
        assert lo - 1e-9 * ref <= ref <= up + 1e-9 * ref
        used[tol] = solves[0]
    assert used[loose] <= used[0.0]

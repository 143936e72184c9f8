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


def _certified_run(spec, eps: float, monkeypatch) -> tuple[float, float, int, int]:  # noqa: ANN001
    """The block method with the certificate as its stopping rule: (lower, upper, iterations, Newton solves)."""
    solves = [0]
    raw = iteration._Newton.raw

    def counted(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        solves[0] += 1
        return raw(self, *a, **k)

    monkeypatch.setattr(iteration._Newton, "raw", counted)
    seen = {}

    def enough(u, nu, lam) -> bool:  # noqa: ANN001
        seen["cert"] = certify(spec, eps, u, nu, lam)
        return bool(seen["cert"].certified)

    args = (spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(eps))
    *_, iters, _t = block.solve_block_lp(*args, program=spec.program, enough=enough)
    cert = seen["cert"]
    assert cert.certified
    return cert.bounds.lower, cert.bounds.upper, iters, solves[0]


@pytest.mark.parametrize(
    ("program", "prior", "eps"),
    [("pd-dp", MIXTURE, 0.5), ("pd-dp", "contagious:0.2:0.3,0.7", 2.0), ("pd-i", MIXTURE, 0.3)],
)
def test_basic_variables_refined_loosely_certify_the_same_optimum_with_fewer_solves(
    program, prior, eps, highs_optimum, monkeypatch
):
    """n = 24: both rules certify bounds that hold the HiGHS optimum; the loose rule takes no more Newton solves."""
    sym = parse_symmetric_prior(prior, N, 2)
    spec = (ReducedPDI(sym) if program == "pd-i" else ReducedPDDP(sym)).lp.spec
    eps = spec.eps_min + eps if program == "pd-i" else eps
    ref = highs_optimum(spec, eps)
    runs = {}
    for tol in (0.0, iteration.REFINE_TOL_BASIC):
        monkeypatch.setattr(iteration, "REFINE_TOL_BASIC", tol)
        lo, up, iters, solves = runs[tol] = _certified_run(spec, eps, monkeypatch)
        assert lo - 1e-9 * ref <= ref <= up + 1e-9 * ref
    assert iteration.REFINE_TOL_BASIC > 0
    (*_, strict), (*_, loose) = runs[0.0], runs[iteration.REFINE_TOL_BASIC]
    assert loose <= strict

"""The face repair (problems.lp.face): a back end's point rebuilt on the face of its tight ratio rows.

References independent of the code under test: exact rational arithmetic (the rebuilt point's exact row
normalisation is feasible, its exact distortion is within 1e-9 of the exact LP optimum of
``tests/reference/exact_lp.py``), and a plain SciPy/HiGHS call on the same LP (``highs_optimum``) for the
reduced programs, where the repair alone could not prove the back end's value.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_feasibility import distortion, dp_feasible  # noqa: E402
from reference import exact_lp as ref  # noqa: E402

from problems import DatabaseSpace, priors  # noqa: E402
from problems.lp.bounds import certify, verify  # noqa: E402
from problems.lp.face import TIGHT_SLACKS, face_level_gap, face_point, face_points  # noqa: E402
from problems.orbit import ReducedPDDP, ReducedPDI  # noqa: E402
from problems.orbit.symmetric_prior import parse_symmetric_prior  # noqa: E402
from problems.programs import PDDP  # noqa: E402
from problems.solvers.backends import backend  # noqa: E402

MIXTURE = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"


def _reduced(prior: str, n: int, program: str, arg: float):  # noqa: ANN202
    sym = parse_symmetric_prior(prior, n, 2)
    prog = (ReducedPDI if program == "pd-i" else ReducedPDDP)(sym)
    eps = prog.eps_X + arg if program == "pd-i" else arg
    return prog.lp.spec, eps


def test_vertex_rebuilt_exactly_feasible_and_optimal_in_rationals():
    """HiGHS's vertex of dense PD-DP (n = 3, m = 2, Dirichlet prior) at e^ε = 2: the face point, before any
    repair, is exactly feasible (rational arithmetic, e^ε bounded from below) and its exact distortion is within
    1e-9 relative of the exact rational optimum."""
    space = DatabaseSpace(3, 2)
    pmf = np.random.default_rng(3).dirichlet(np.ones(space.size))
    prior = priors.from_pmf(space, pmf)
    eps = math.log(2.0)
    spec = PDDP(prior).lp.spec
    raw = backend("HIGHS").solve(spec, eps, time_limit=60)
    z = face_point(spec, raw.z, eps, TIGHT_SLACKS[-1])
    assert z is not None
    W = z.reshape(space.size, space.size)
    assert dp_feasible(W, 3, 2, eps)
    exact = ref.pd_dp([Fraction(float(p)) for p in prior.pmf], 3, 2, Fraction(2))
    got = distortion(W, prior.pmf, 3, 2)
    assert abs(got - exact) <= Fraction(1, 10**9) * exact


def test_tight_rows_keep_the_level_gap_as_slack():
    """Every row that the back end's vertex makes tight holds in the rebuilt point with relative slack about
    1 − e^{−δ} (δ = face_level_gap(ε)); the cost moves by at most a few δ."""
    spec, eps = _reduced(MIXTURE, 12, "pd-dp", 0.5)
    raw = backend("HIGHS").solve(spec, eps, time_limit=60)
    z = np.clip(raw.z, 0.0, None)
    z = face_point(spec, z, eps, 1e-7)
    assert z is not None and verify(spec, z, eps)
    cap = np.exp(eps + spec.log_kappa) * z[spec.dst]
    live = cap > 0  # rows inside a block that carries mass (a block the optimum leaves empty is all zero)
    assert np.all(z[spec.src][~live] == 0) and live.any()
    slack = 1.0 - z[spec.src][live] / cap[live]
    delta = face_level_gap(eps)
    assert slack.min() >= 0.5 * delta
    cost_raw, cost = float(spec.c @ np.clip(raw.z, 0, None)), float(spec.c @ z)
    assert abs(cost - cost_raw) <= 1e-7 * cost_raw


@pytest.mark.parametrize(
    ("prior", "n", "program", "arg", "solver"),
    [
        (MIXTURE, 30, "pd-i", 0.3, "HIGHS"),
        ("contagious:0.2", 10, "pd-i", 0.3, "HIGHS"),
    ],
)
def test_face_repair_proves_what_the_repair_alone_could_not(prior, n, program, arg, solver, highs_optimum):
    """Reduced LPs whose back-end point the mixing repair leaves above the optimum: with the face points the
    same point and multipliers are certified, and the bounds hold the plain HiGHS optimum."""
    spec, eps = _reduced(prior, n, program, arg)
    raw = backend(solver).solve(spec, eps, time_limit=120)
    alone = certify(spec, eps, raw.z, raw.nu, raw.lam, face=False)
    assert not alone.refined
    cert = certify(spec, eps, raw.z, raw.nu, raw.lam)
    assert cert.refined and cert.certified
    assert cert.bounds.upper < alone.bounds.upper
    assert verify(spec, cert.z, eps)
    opt = highs_optimum(spec, eps)
    assert cert.bounds.lower - 1e-9 * opt <= opt <= cert.bounds.upper + 1e-9 * opt


@pytest.mark.parametrize(
    ("prior", "n", "program", "arg", "solver"),
    [
        (MIXTURE, 30, "pd-dp", 0.5, "HIGHS"),
        (MIXTURE, 30, "pd-dp", 0.5, "SCS"),
        ("contagious:0.2", 30, "pd-dp", 2.0, "CLARABEL"),
    ],
)
def test_points_the_local_repair_now_proves_without_the_face(prior, n, program, arg, solver, highs_optimum):
    """Points that needed the face repair while a locally repaired point was mixed with the reference whenever a
    float test with a wider margin than ``verify`` flagged a row: raised (or lowered) locally and renormalised,
    they are proved alone; the bounds hold the plain HiGHS optimum."""
    spec, eps = _reduced(prior, n, program, arg)
    raw = backend(solver).solve(spec, eps, time_limit=120)
    alone = certify(spec, eps, raw.z, raw.nu, raw.lam, face=False)
    assert alone.refined and alone.certified
    assert verify(spec, alone.z, eps)
    opt = highs_optimum(spec, eps)
    assert alone.bounds.lower - 1e-9 * opt <= opt <= alone.bounds.upper + 1e-9 * opt


def test_nothing_to_rebuild():
    """No point, no positive entry, or no tight row: no face point (the certificate falls back on the repair)."""
    spec, eps = _reduced(MIXTURE, 6, "pd-dp", 0.5)
    assert list(face_points(spec, None, eps)) == []
    assert face_point(spec, np.zeros(spec.K), eps, 1e-3) is None
    # the constant mechanism's reference point: every ratio row loose by 1 − e^{−ε} > 1e-3
    z = np.exp(spec.log_profile(0.0))
    assert face_point(spec, z, eps, 1e-3) is None

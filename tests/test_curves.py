"""Privacy–distortion curves: exact inversion and Theorem 1 (Wang, Ying & Zhang 2016)."""

import math

import numpy as np
import pytest

from problems import PDDP, PDI, DatabaseSpace, eps_tilde, eps_X, priors
from problems.closed_forms import h, h_inv
from problems.curves import privacy_distortion_curve
from problems.inverse import privacy_for_distortion
from problems.testing import random_prior


def test_uniform_prior_curves_equal_h_inverse():
    prior = priors.uniform(DatabaseSpace(3, 2))
    for notion in ("i", "d"):
        c = privacy_distortion_curve(prior, notion, points=6)
        expected = np.maximum(h_inv(c.distortion, 3, 2), 0.0)
        np.testing.assert_allclose(c.eps, expected, atol=1e-7)


@pytest.mark.parametrize("seed", range(2))
def test_inversion_is_exact(seed):
    """D*(ε*(D)) = D on the strictly decreasing part, and D*(ε*(D) − δ) > D."""
    prior = random_prior(DatabaseSpace(3, 2), seed, concentration=3.0)
    for prog in (PDDP(prior), PDI(prior)):
        lo = prog.eps_X if isinstance(prog, PDI) else 0.0
        for D in (0.3, 0.7):
            inv = privacy_for_distortion(prog, D)
            if inv.eps > lo + 1e-6:
                assert prog.solve(inv.eps).value == pytest.approx(D, abs=1e-8)
                assert prog.solve(inv.eps - 1e-4).value > D
            else:
                assert prog.solve(lo).value <= D + 1e-9
            inv.result.certificate.check(1e-7)


def test_theorem1_on_the_curves():
    prior = random_prior(DatabaseSpace(3, 2), 4, concentration=3.0)
    eX, eT = eps_X(prior), eps_tilde(prior)
    ci = privacy_distortion_curve(prior, "i", points=8)
    cd = privacy_distortion_curve(prior, "d", points=8)
    hi = h_inv(ci.distortion, 3, 2)
    small = ci.distortion <= h(eT, 3, 2)
    np.testing.assert_allclose(ci.eps[small], hi[small], atol=1e-7)  # (18), first case
    assert np.all(ci.eps[~small] >= np.maximum(hi[~small], eX) - 1e-7)  # (18), second case
    assert np.all(cd.eps >= np.maximum(hi - eX, 0) - 1e-7)  # (19) lower
    assert np.all(cd.eps <= np.maximum(hi, 0) + 1e-7)  # (19) upper
    assert np.all(ci.eps - cd.eps >= -1e-7)


def test_zero_distortion_needs_infinite_privacy_level():
    inv = privacy_for_distortion(PDDP(priors.uniform(DatabaseSpace(2, 2))), 0.0)
    assert math.isinf(inv.eps) and inv.result is None


# ---------------------------------------------------------------------------------------------- Lemma 3
def _brute_constant_distortion(prior) -> float:  # noqa: ANN001
    """min over outputs y of E d(X, y), by enumerating every y (the best constant mechanism)."""
    e = prior.space.elements
    d = (e[:, None, :] != e[None, :, :]).sum(axis=2)
    return float(np.min(prior.pmf @ d))


@pytest.mark.parametrize("n", [2, 3, 5])
def test_constant_distortion_is_the_best_constant_mechanism(n):
    from problems.database import DatabaseSpace
    from problems.inverse import constant_distortion
    from problems.orbit import ReducedPDI
    from problems.priors import contagious, exchangeable_mixture, iid
    from problems.programs import PDI

    S = DatabaseSpace(n, 2)
    for prior in (
        iid(S, [0.3, 0.7]),
        exchangeable_mixture(S, [[0.8, 0.2], [0.3, 0.7]], [0.5, 0.5]),
        contagious(S, 0.2),
    ):
        ref = _brute_constant_distortion(prior)
        assert constant_distortion(PDI(prior)) == pytest.approx(ref, rel=1e-12)
        assert constant_distortion(ReducedPDI(prior)) == pytest.approx(ref, rel=1e-12)


def test_lemma3_proves_eps_i_at_eps_X_and_the_curve_is_certified(tmp_path):
    """ε_i*(D) = ε_X for D at or above the best constant mechanism's distortion (and only there): the curve of
    the README's prior is certified at every point, exit 0."""
    import subprocess
    import sys

    from problems.database import DatabaseSpace
    from problems.inverse import boundary_proof
    from problems.priors import iid
    from problems.programs import PDDP, PDI

    prog = PDI(iid(DatabaseSpace(4, 2), [0.3, 0.7]))
    assert boundary_proof(prog, 1.2 * (1 + 1e-9)) is not None  # D_const = 4 · 0.3
    assert boundary_proof(prog, 1.2 * (1 - 1e-9)) is None
    assert boundary_proof(PDDP(iid(DatabaseSpace(4, 2), [0.3, 0.7])), 4.0) is None
    out = subprocess.run(
        [sys.executable, "-m", "problems", "curve", "--n", "4", "--m", "2", "--prior", "iid:0.3,0.7"]
        + ["--notion", "i", "--points", "12", "--out", str(tmp_path), "--workers", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    rows = (tmp_path / "curve_i.csv").read_text().splitlines()[1:]
    assert len(rows) == 12 and all(r.endswith(",optimal") for r in rows)


def test_pd_i_point_at_eps_X_needs_no_bisection():
    """D between PD-I's bounds at ε_X (no interior there): ε* is settled by one solve just above ε_X whose
    exactly feasible mechanism reaches D (checked here on the matrix: identifiability level and distortion)."""
    from problems.measures import identifiability_level
    from problems.reproduce import NONUNIFORM_PRIOR

    prior = NONUNIFORM_PRIOR(DatabaseSpace(3, 2))
    prog = PDI(prior)
    at = prog.solve(prog.eps_X)
    D = at.bounds.lower + 0.25 * (at.bounds.upper - at.bounds.lower)
    r = privacy_for_distortion(prog, D)
    assert r.solves <= 2
    assert prog.eps_X <= r.eps <= prog.eps_X + 2e-9 and r.bracket == (prog.eps_X, r.eps)
    W = r.result.mechanism.matrix
    assert identifiability_level(W, prior) <= r.eps + 1e-12
    distortion = float(np.sum(prior.pmf[:, None] * W * prior.space.hamming_matrix()))
    assert distortion <= D + 1e-12

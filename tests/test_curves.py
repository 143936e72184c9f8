"""Privacy–distortion curves: exact inversion and Theorem 1 (paper 002)."""

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

"""Accuracy at scale: uniform reduced programs equal h(ε) (Lemma 1, eq. (32)) at n = 200; certificates."""

from __future__ import annotations

import numpy as np
import pytest

from problems.closed_forms import h
from problems.database import DatabaseSpace
from problems.orbit import (
    ReducedPDDP,
    ReducedPDI,
    ReducedRPD,
    symmetric_iid,
    symmetric_mixture,
    symmetric_uniform,
)


@pytest.mark.parametrize("m", [2, 3])
def test_uniform_n200_equals_h(m):
    n = 200
    rpd, pdi, pddp = (
        ReducedRPD(DatabaseSpace(n, m)),
        ReducedPDI(symmetric_uniform(n, m)),
        ReducedPDDP(symmetric_uniform(n, m)),
    )
    for eps in (0.0, 0.3, 1.0, 2.0, 5.0):
        for prog in (rpd, pdi, pddp):
            res = prog.solve(eps)
            assert res.value == pytest.approx(h(eps, n, m), abs=1e-7 * n)
            assert res.certificate.max_residual <= 1e-7
            assert res.extras["mechanism_level"] == "type"


def test_joint_type_certificates_moderate_n():
    for prior in (symmetric_iid(20, [0.3, 0.7]), symmetric_mixture(20, [[0.2, 0.8], [0.6, 0.4]], [0.5, 0.5])):
        prog = ReducedPDDP(prior)
        for eps in (0.2, 1.0):
            res = prog.solve(eps)
            assert res.certificate.max_residual <= 1e-7
            assert res.value <= h(eps, 20, 2) + 1e-7  # E_d is feasible (Theorem 1, upper bound)
            assert np.isclose(res.extras["x_type_probability"].sum(), 1.0)
    res = ReducedPDI(symmetric_iid(20, [0.3, 0.7])).solve(1.5)
    assert res.certificate.max_residual <= 1e-7
    assert res.value >= h(1.5, 20, 2) - 1e-7  # Theorem 1: ε_i*(D) ≥ h⁻¹(D)


def test_m3_certificate():
    res = ReducedPDDP(symmetric_iid(6, [0.2, 0.3, 0.5])).solve(0.8)
    assert res.certificate.max_residual <= 1e-7
    assert res.value <= h(0.8, 6, 3) + 1e-7


@pytest.mark.slow
def test_pd_dp_n50_m2():
    res = ReducedPDDP(symmetric_iid(50, [0.3, 0.7])).solve(1.0)
    assert res.certificate.max_residual <= 1e-7
    assert res.value <= h(1.0, 50, 2) + 1e-7


def test_eps_star_curve_newton_n10():
    """ε*(D) by safeguarded Newton: = h⁻¹(D) below D/n = 0.3 (row (0.3, 0.7)), 0 / ε_X above (PD-DP / PD-I)."""
    from problems.closed_forms import h_inv
    from problems.orbit.scale_figure import eps_star_curve

    n = 10
    prior = symmetric_iid(n, [0.3, 0.7])
    levels = (0.1, 0.2, 0.28, 0.32, 0.4)
    dp, pi = ReducedPDDP(prior), ReducedPDI(prior)
    count = [0]
    ed = eps_star_curve(dp, n, levels, counter=count)
    ei = eps_star_curve(pi, n, levels, eps_min=pi.eps_X)
    for d, a, b in zip(levels, ed, ei):
        if d < 0.3:
            assert a == pytest.approx(h_inv(d * n, n, 2), abs=1e-5)
            assert b == pytest.approx(h_inv(d * n, n, 2), abs=1e-5)
            assert dp.solve(a).value == pytest.approx(d * n, abs=1e-5)
        else:
            assert a == 0.0
            assert b == pytest.approx(np.log(7 / 3), abs=1e-12)
    assert count[0] <= 3 * len(levels)


def test_implied_nonneg_detected_and_certified():
    prog = ReducedPDDP(symmetric_iid(8, [0.3, 0.7]))
    assert prog.lp.nonneg_implied
    res = prog.solve(1.0)  # solved without the rows u ≥ 0; certificate is for the LP with them
    assert res.certificate.max_residual <= 1e-7
    assert np.all(res.duals["nonnegativity"] == 0)
    assert ReducedPDI(symmetric_iid(8, [0.3, 0.7])).lp.nonneg_implied


@pytest.mark.slow
def test_pd_dp_m3_n10():
    res = ReducedPDDP(symmetric_iid(10, [0.2, 0.3, 0.5])).solve(1.0)
    assert res.certificate.max_residual <= 1e-7
    assert res.value <= h(1.0, 10, 3) + 1e-7

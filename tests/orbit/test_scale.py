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

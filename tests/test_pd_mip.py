"""PD-MIP against Theorem 2 of paper 002 and an independent Blahut–Arimoto rate–distortion computation."""

import numpy as np
import pytest

from problems import PDMIP, DatabaseSpace, InvalidDistortionError, identifiability_mechanism, priors
from problems.closed_forms import h, h_inv
from problems.measures import expected_distortion, mutual_information
from problems.prior_constants import eps_tilde
from problems.testing import random_prior


@pytest.mark.parametrize("seed", range(3))
def test_theorem2_kkt(seed):
    """For D ≤ h(ε̃_X): optimum = E_i at ε = h⁻¹(D), multiplier λ = h⁻¹(D) (within 1e-4)."""
    space = DatabaseSpace(3, 2)
    prior = random_prior(space, seed, concentration=10.0)
    prog = PDMIP(prior)
    Dmax = h(eps_tilde(prior), 3, 2)
    for frac in (0.4, 0.9):
        D = frac * Dmax
        res = prog.solve(D)
        eps = h_inv(D, 3, 2)
        Ei = identifiability_mechanism(prior, eps)
        assert res.value == pytest.approx(mutual_information(Ei, prior), abs=1e-6)
        assert res.duals["distortion"] == pytest.approx(eps, abs=1e-4)
        np.testing.assert_allclose(res.matrix, Ei.matrix, atol=1e-4)
        res.certificate.check(1e-6)


def _blahut_arimoto_rd(p, d, lam, iters=20000):
    """Independent rate–distortion point for slope λ (Blahut 1972): returns (D, R) in nats."""
    q = np.full(d.shape[1], 1.0 / d.shape[1])
    A = np.exp(-lam * d)
    for _ in range(iters):
        W = q * A
        W /= W.sum(axis=1, keepdims=True)
        q_new = p @ W
        if np.max(np.abs(q_new - q)) < 1e-15:
            break
        q = q_new
    return float(np.sum(p[:, None] * W * d)), mutual_information(W, p)


@pytest.mark.parametrize("lam", [0.7, 1.5, 3.0])
def test_pd_mip_matches_blahut_arimoto(lam):
    space = DatabaseSpace(2, 3)
    prior = random_prior(space, 7)
    D, R = _blahut_arimoto_rd(prior.pmf, space.hamming_matrix(), lam)
    res = PDMIP(prior).solve(D)
    assert res.value == pytest.approx(R, abs=1e-6)
    assert res.duals["distortion"] == pytest.approx(lam, rel=1e-3)


def test_bits_option_and_extremes():
    prior = priors.uniform(DatabaseSpace(2, 2))
    prog = PDMIP(prior)
    assert prog.solve(0.0, unit="bits").value == pytest.approx(2.0, abs=1e-6)  # H(X) = 2 bits
    assert prog.solve(1.0).value == pytest.approx(0.0, abs=1e-7)  # D ≥ E d(X, const) = 1 for uniform
    res = prog.solve(0.5)
    assert expected_distortion(res.mechanism, prior) <= 0.5 + 1e-7


def test_pd_mip_certificate_is_rigorous_lower_bound():
    prior = random_prior(DatabaseSpace(2, 2), 3)
    res = PDMIP(prior).solve(0.4)
    c = res.certificate
    assert c.dual_objective <= c.primal_objective + 1e-12
    assert c.duality_gap < 1e-6


@pytest.mark.parametrize("D", [-0.1, 2.5])
def test_bad_distortion_is_typed(D):
    with pytest.raises(InvalidDistortionError):
        PDMIP(priors.uniform(DatabaseSpace(2, 2))).solve(D)

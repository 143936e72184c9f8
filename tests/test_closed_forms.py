import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from problems import (
    DatabaseSpace,
    InvalidDistortionError,
    InvalidInputError,
    InvalidPrivacyLevelError,
    eps_tilde,
    eps_X,
    exponential_mechanism,
    identifiability_mechanism,
    priors,
)
from problems.closed_forms import apply_kron, check_distortion, check_eps, h, h_inv, kernel
from problems.measures import dp_level, expected_distortion, identifiability_level, mutual_information
from problems.testing import random_prior


@given(st.integers(1, 6), st.integers(2, 5), st.floats(0.0, 8.0))
def test_h_inverse_roundtrip(n, m, eps):
    D = h(eps, n, m)
    assert 0 < D < n
    if eps > 0:
        assert h_inv(D, n, m) == pytest.approx(eps, abs=1e-9)


def test_h_inv_edges():
    assert h_inv(0.0, 3, 2) == math.inf
    assert h_inv(1.5, 3, 2) == pytest.approx(0.0)  # D = n(m-1)/m
    # beyond h(0) = n(m−1)/m every ε ≥ 0 reaches D: the privacy level is 0 (Wang, Ying & Zhang 2016 uses max{h⁻¹(D), 0})
    assert h_inv(3.0, 3, 2) == 0.0 and h_inv(2.0, 3, 2) == 0.0
    assert np.all(h_inv(np.linspace(0.0, 3.0, 31), 3, 2) >= 0.0)


@pytest.mark.parametrize(
    "call,err",
    [
        (lambda: h(-1, 3, 2), InvalidPrivacyLevelError),
        (lambda: h(float("nan"), 3, 2), InvalidPrivacyLevelError),
        (lambda: h([0.5, -0.1], 3, 2), InvalidPrivacyLevelError),
        (lambda: h(1.0, 0, 2), InvalidInputError),
        (lambda: h_inv(-0.5, 3, 2), InvalidDistortionError),
        (lambda: h_inv(3.5, 3, 2), InvalidDistortionError),
        (lambda: h_inv(float("nan"), 3, 2), InvalidDistortionError),
    ],
)
def test_closed_forms_refuse_values_outside_their_domain(call, err):
    with pytest.raises(err, match=r"got|must"):
        call()


def test_kernel_kronecker_is_exponential_posterior():
    space = DatabaseSpace(3, 3)
    eps = 0.7
    Kn = apply_kron(kernel(eps, 3), np.eye(space.size), 3)
    direct = np.exp(-eps * space.hamming_matrix()) / (1 + 2 * np.exp(-eps)) ** 3
    np.testing.assert_allclose(Kn, direct, atol=1e-15)


def _eps_tilde_dense(prior, lo=0.0, hi=20.0):
    """Independent check: bisection on ε with the dense N×N posterior solve p_Y = P_ε^{-1} p_X ≥ 0."""
    space = prior.space

    def feasible(eps):
        P = np.exp(-eps * space.hamming_matrix()) / (1 + (space.m - 1) * np.exp(-eps)) ** space.n
        return np.linalg.solve(P, prior.pmf).min() >= -1e-13

    grid = np.linspace(hi, 1e-6, 4000)
    last = hi
    for e in grid:  # walk down until infeasible
        if not feasible(e):
            break
        last = e
    a, b = e, last
    for _ in range(60):
        mid = 0.5 * (a + b)
        a, b = (a, mid) if feasible(mid) else (mid, b)
    return b if feasible(1e-6) is False else (0.0 if last == grid[-1] else b)


@pytest.mark.parametrize("seed", range(4))
def test_eps_tilde_matches_dense_solve(seed):
    space = DatabaseSpace(3, 2) if seed % 2 else DatabaseSpace(2, 3)
    prior = random_prior(space, seed, concentration=5.0)
    assert eps_tilde(prior) == pytest.approx(_eps_tilde_dense(prior), abs=1e-6)


def test_eps_constants_uniform_and_zero_mass():
    space = DatabaseSpace(3, 2)
    assert eps_X(priors.uniform(space)) == 0.0
    assert eps_tilde(priors.uniform(space)) == 0.0
    zero = priors.from_pmf(space, np.r_[0.0, np.full(7, 1 / 7)])
    assert eps_X(zero) == math.inf
    assert eps_tilde(zero) == math.inf


@pytest.mark.parametrize("seed", range(3))
def test_E_i_and_E_d_properties(seed):
    """Lemma 4 and Lemma 5 of Wang, Ying & Zhang (2016): levels ε and distortion h(ε)."""
    space = DatabaseSpace(3, 2)
    prior = random_prior(space, seed, concentration=8.0)
    eps = eps_tilde(prior) + 0.3
    Ei = identifiability_mechanism(prior, eps)
    assert identifiability_level(Ei, prior) == pytest.approx(eps, abs=1e-9)
    assert expected_distortion(Ei, prior) == pytest.approx(h(eps, 3, 2), abs=1e-10)
    Ed = exponential_mechanism(space, eps)
    assert dp_level(Ed, space) == pytest.approx(eps, abs=1e-12)
    assert expected_distortion(Ed, prior) == pytest.approx(h(eps, 3, 2), abs=1e-12)


def test_E_i_below_eps_tilde_raises():
    prior = priors.iid(DatabaseSpace(2, 2), [0.2, 0.8])
    with pytest.raises(InvalidPrivacyLevelError, match="ε̃_X"):
        identifiability_mechanism(prior, 0.5 * eps_tilde(prior))


def test_mutual_information_known_values():
    bsc = np.array([[0.9, 0.1], [0.1, 0.9]])
    hb = -(0.1 * math.log(0.1) + 0.9 * math.log(0.9))
    assert mutual_information(bsc, [0.5, 0.5]) == pytest.approx(math.log(2) - hb)
    assert mutual_information(bsc, [0.5, 0.5], unit="bits") == pytest.approx((math.log(2) - hb) / math.log(2))
    assert mutual_information(np.eye(3), [0.2, 0.3, 0.5]) == pytest.approx(
        -sum(p * math.log(p) for p in (0.2, 0.3, 0.5))
    )


@pytest.mark.parametrize("bad", [-0.1, float("nan"), "x"])
def test_bad_eps(bad):
    with pytest.raises(InvalidPrivacyLevelError):
        check_eps(bad)


@pytest.mark.parametrize("bad", [-0.5, 3.5, float("nan")])
def test_bad_distortion(bad):
    with pytest.raises(InvalidDistortionError, match=r"\[0, 3\]"):
        check_distortion(bad, 3)


def test_kron_power_is_the_product_channel():
    """M^{⊗n}[x, y] = Π_k M[x_k, y_k] over databases in itertools.product order (brute force)."""
    import itertools

    from problems.closed_forms import kron_power

    M = np.array([[0.7, 0.2, 0.1], [0.25, 0.5, 0.25], [0.1, 0.3, 0.6]])
    n = 3
    db = list(itertools.product(range(3), repeat=n))
    ref = np.array([[np.prod([M[a, b] for a, b in zip(x, y)]) for y in db] for x in db])
    assert np.allclose(kron_power(M, n), ref, rtol=1e-15, atol=0)
    assert kron_power(M, 0).shape == (1, 1)

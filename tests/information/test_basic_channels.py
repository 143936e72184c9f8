"""Basic privacy channels (Wu, Xia & He 2020, §4-5): calibrations and C1 <= eps (equality where proved)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from problems.errors import InvalidInputError, InvalidPrivacyLevelError
from problems.information import (
    PrivacyChannel,
    binary_entropy,
    calibrate_exponential,
    calibrate_gaussian,
    calibrate_randomized_response,
    data_independent_bound,
    exponential_channel,
    exponential_entropy,
    gaussian_amplitude_capacity,
    gaussian_capacity_bound,
    gaussian_noise_comparison,
    individual_capacity,
    randomized_response_channel,
)

EPS = [0.05, 0.2, 0.5]


@pytest.mark.parametrize("eps", EPS)
def test_randomized_response_calibration(eps):
    cal = calibrate_randomized_response(eps)
    assert binary_entropy(cal.value) == pytest.approx(math.log(2) - eps, abs=1e-13)
    assert 0 < cal.value < 0.5
    ch = randomized_response_channel([2, 2, 2], lambda x: int(sum(x) >= 2), cal.value)
    assert individual_capacity(ch).c1 == pytest.approx(eps, abs=1e-9)  # equality (binary records)
    inner = randomized_response_channel([2, 2, 2], lambda x: int(sum(x) >= 2), (cal.value + 0.5) / 2)
    assert individual_capacity(inner).c1 < eps


def test_randomized_response_edge_cases():
    assert calibrate_randomized_response(0.0).value == 0.5
    assert calibrate_randomized_response(1.0).value == 0.0  # eps >= log 2: any p works
    for bad in (-0.1, float("nan"), float("inf"), "x"):
        with pytest.raises(InvalidPrivacyLevelError):
            calibrate_randomized_response(bad)
    with pytest.raises(InvalidInputError, match="flip probability"):
        randomized_response_channel([2], lambda x: x[0], 1.5)


@pytest.mark.parametrize("lam,k", [(0.3, 2), (0.7, 4), (2.0, 7), (1e-4, 5)])
def test_exponential_entropy_closed_form(lam, k):
    w = np.exp(-lam * np.arange(k))
    w /= w.sum()
    assert exponential_entropy(lam, k) == pytest.approx(float(-(w * np.log(w)).sum()), abs=1e-12)


@pytest.mark.parametrize("eps", EPS)
def test_exponential_calibration_and_c1(eps):
    cal = calibrate_exponential(eps, 4)
    assert math.log(4) - exponential_entropy(cal.value, 4) == pytest.approx(eps, abs=1e-12)
    ch = exponential_channel([2, 3], lambda x: min(x[0] + x[1], 3), 4, cal.value)
    rep = data_independent_bound(ch)
    assert rep.data_independent and rep.bound == pytest.approx(eps, abs=1e-12)
    assert individual_capacity(ch).c1 <= eps + 1e-10  # Corollary 5


@pytest.mark.parametrize("eps", EPS)
def test_weakly_symmetric_exponential_attains_bound(eps):
    """Cyclic distortion makes the channel weakly symmetric (Def. 13): C1 = log k - H(Z) = eps (eq. (65))."""
    cal = calibrate_exponential(eps, 3)
    ch = exponential_channel([3, 2], lambda x: x[0], 3, cal.value, distortion=lambda y, a: (y - a) % 3)
    rep = data_independent_bound(ch)
    assert rep.weakly_symmetric and rep.witness_individual == 0
    assert individual_capacity(ch).c1 == pytest.approx(eps, abs=1e-9)


def test_data_independent_detection():
    W = np.random.default_rng(0).dirichlet(np.ones(3), size=(2, 2))
    rep = data_independent_bound(PrivacyChannel(W))
    assert not rep.data_independent and not rep.weakly_symmetric


def test_exponential_errors():
    with pytest.raises(InvalidInputError, match="k = |Y|"):
        calibrate_exponential(0.1, 1)
    assert math.isinf(calibrate_exponential(5.0, 3).value)
    with pytest.raises(InvalidInputError, match="lambda"):
        exponential_channel([2], lambda x: x[0], 2, -1.0)


@pytest.mark.parametrize("eps,T", [(0.1, 1.0), (0.5, 3.0), (1.0, 0.5)])
def test_gaussian_calibration(eps, T):
    cal = calibrate_gaussian(eps, T)
    assert cal.value == pytest.approx(T * T / math.expm1(2 * eps))
    assert gaussian_capacity_bound(cal.value, T) == pytest.approx(eps, abs=1e-13)


def test_gaussian_amplitude_capacity_below_bound():
    """With |X| <= T the true C1 is below (115): the calibration (117) is safe but not tight."""
    N = calibrate_gaussian(0.5, 1.0).value
    amp = gaussian_amplitude_capacity(N, 1.0, n_inputs=21, n_outputs=401)
    assert 0 < amp < 0.5
    bpsk_like = gaussian_amplitude_capacity(N, 1.0, n_inputs=2, n_outputs=401)
    assert bpsk_like <= amp + 1e-9


def test_gaussian_errors_and_comparison():
    with pytest.raises(InvalidPrivacyLevelError):
        calibrate_gaussian(0.0, 1.0)
    with pytest.raises(InvalidInputError, match="T"):
        calibrate_gaussian(0.1, -1.0)
    with pytest.raises(InvalidInputError, match="delta"):
        gaussian_noise_comparison(0.1, 1.0, 1.0, delta=2.0)
    c = gaussian_noise_comparison(0.1, T=1.0, sensitivity=1.0, delta=1e-5)
    assert c.laplace_scale == pytest.approx(10.0)
    assert c.gaussian_dp_scale == pytest.approx(math.sqrt(2 * math.log(1.25e5)) * 10)
    assert c.gaussian_channel_scale == pytest.approx(1 / math.sqrt(math.expm1(0.2)))
    # small eps: sqrt(N) ~ T / sqrt(2 eps) (eq. (120)), smaller than Laplace's 1/eps when Delta f = T
    assert c.gaussian_channel_scale < c.laplace_scale

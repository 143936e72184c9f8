"""Classic optimal-mechanism results reproduced by models; every reference is computed without the model."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq, linprog

from problems.model import MechanismModel, losses, privacy


def _line_pairs(n: int) -> np.ndarray:
    return np.stack([np.arange(n), np.arange(1, n + 1)], axis=1)


def _truncated_geometric(n: int, eps: float) -> np.ndarray:
    """Ghosh–Roughgarden–Sundararajan's range-restricted geometric mechanism on {0..n}."""
    a = math.exp(-eps)
    i, r = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    G = (1 - a) / (1 + a) * a ** np.abs(i - r)
    G[:, 0] = a ** i[:, 0] / (1 + a)
    G[:, n] = a ** (n - i[:, 0]) / (1 + a)
    return G


def _best_remap(G: np.ndarray, prior: np.ndarray, L: np.ndarray) -> float:
    """min over row-stochastic remaps T of Σ_i π_i Σ_r G[i,r] Σ_s T[r,s] L[i,s], by scipy's linprog."""
    R, S = G.shape[1], L.shape[1]
    C = (prior[:, None] * G).T @ L  # C[r, s]
    A_eq = np.kron(np.eye(R), np.ones((1, S)))
    res = linprog(C.ravel(), A_eq=A_eq, b_eq=np.ones(R), bounds=(0, None), method="highs")
    assert res.status == 0
    return float(res.fun)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("loss", ["absolute", "squared"])
@pytest.mark.parametrize("eps", [0.5, 1.2])
def test_ghosh_roughgarden_sundararajan(seed, loss, eps):
    """GRS 2009: for a count query, any prior and a monotone loss, the optimal ε-DP mechanism is a remap of
    the truncated geometric mechanism."""
    n = 5
    prior = np.random.default_rng(seed).dirichlet(np.ones(n + 1))
    L = getattr(losses, loss)(np.arange(n + 1))
    res = MechanismModel(prior, L).add(privacy.differential(eps, neighbours=_line_pairs(n))).solve()
    ref = _best_remap(_truncated_geometric(n, eps), prior, L)
    assert res.path == "lp-core" and res.certified
    assert abs(res.value - ref) <= 1e-9 * max(ref, 1e-300) + 1e-12


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_binary_randomized_response(eps):
    """Kairouz, Oh & Viswanath: binary ε-LDP, uniform prior, 0–1 loss: randomized response, error 1/(1+e^ε)."""
    res = MechanismModel([0.5, 0.5], losses.zero_one(2)).add(privacy.local(eps)).solve()
    assert res.certified and abs(res.value - 1 / (1 + math.exp(eps))) <= 1e-9
    W = res.matrix
    assert abs(W[0, 0] - math.exp(eps) / (1 + math.exp(eps))) <= 1e-6


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_k_ary_randomized_response(k, eps):
    """k-ary randomized response: error (k−1)/(e^ε + k − 1) under the uniform prior and 0–1 loss."""
    res = MechanismModel(np.full(k, 1 / k), losses.zero_one(k)).add(privacy.local(eps)).solve()
    assert res.certified
    assert abs(res.value - (k - 1) / (math.exp(eps) + k - 1)) <= 1e-9


@pytest.mark.parametrize("eps,delta", [(0.5, 0.0), (0.5, 0.1), (1.0, 0.01), (2.0, 0.3)])
def test_approximate_dp_two_inputs(eps, delta):
    """(ε, δ)-DP on two inputs, uniform prior, 0–1 loss: the optimum is (1 − δ)/(1 + e^ε)."""
    res = MechanismModel([0.5, 0.5], losses.zero_one(2)).add(privacy.approximate(eps, delta)).solve()
    assert res.certified
    assert res.path == ("lp-core" if delta == 0 else "cvxpy-lp")
    assert abs(res.value - (1 - delta) / (1 + math.exp(eps))) <= 1e-9


def _hb_inverse(h: float) -> float:
    hb = lambda d: -d * math.log(d) - (1 - d) * math.log(1 - d)  # noqa: E731
    return brentq(lambda d: hb(d) - h, 1e-15, 0.5, xtol=1e-15, rtol=1e-15)


@pytest.mark.parametrize("R", [0.05, 0.2, 0.5])
def test_rate_distortion_binary(R):
    """Shannon: binary uniform source, Hamming distortion, I(X;Y) ≤ R nats: D(R) = H_b⁻¹(ln 2 − R)."""
    res = MechanismModel([0.5, 0.5], losses.zero_one(2)).add(privacy.mutual_information(at_most=R)).solve()
    assert res.path == "cvxpy-conic" and res.certified
    assert abs(res.value - _hb_inverse(math.log(2) - R)) <= 1e-8


@pytest.mark.parametrize("eps", [1.0, 2.0])
def test_geometric_is_optimal_for_l1_on_the_integers(eps):
    """Staircase / geometric (Geng & Viswanath; Ghosh et al.): ε-DP on the integers with neighbours |i−j| = 1
    and ℓ1 loss: the optimal noise is two-sided geometric, E|noise| = 2α/(1−α²), α = e^{−ε}.

    The LP is posed on the cycle Z_M (no boundary; by symmetry an optimal mechanism adds noise), whose optimum
    is the wrapped geometric exactly; it differs from 2α/(1−α²) by O(M α^{M/2}) (< 1e-6 here, M = 40).
    """
    M = 40
    a = math.exp(-eps)
    k = np.arange(M)
    dist = np.minimum(k, M - k)
    L = dist[(k[:, None] - k[None, :]) % M].astype(float)
    pairs = np.stack([k, (k + 1) % M], axis=1)
    res = MechanismModel(np.full(M, 1 / M), L).add(privacy.differential(eps, neighbours=pairs)).solve()
    assert res.certified
    wrapped = float(np.sum(a**dist * dist) / np.sum(a**dist))
    assert abs(res.value - wrapped) <= 1e-9
    assert abs(res.value - 2 * a / (1 - a * a)) <= 1e-6


def test_metric_privacy_on_a_line_equals_dp_on_the_path():
    """d_X-privacy with D = |i − j| on a line is ε-DP on the path graph (the ratios compose along it)."""
    n, eps = 6, 0.7
    prior = np.random.default_rng(3).dirichlet(np.ones(n + 1))
    L = losses.absolute(np.arange(n + 1))
    idx = np.arange(n + 1)
    D = np.abs(idx[:, None] - idx[None, :]).astype(float)
    a = MechanismModel(prior, L).add(privacy.metric(eps, distance=D)).solve()
    b = MechanismModel(prior, L).add(privacy.differential(eps, neighbours=_line_pairs(n))).solve()
    assert a.certified and b.certified and abs(a.value - b.value) <= 1e-9

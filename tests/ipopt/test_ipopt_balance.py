"""Balance function δ(b) = C1 − C1^b (Wu, Xia & He 2020, Definition 11, Lemma 1)."""

import math

import numpy as np
import pytest

pytest.importorskip("casadi", reason="CasADi (bundling IPOPT) is not installed; install the 'ipopt' extra")

from ipopt_models import (  # noqa: E402
    BENCHMARK_CHANNELS,
    JointCapacityModel,
    balance_curve,
    certified_c1b_upper,
    randomized_response_array,
)
from ipopt_models._common import entropy, repair_entropy  # noqa: E402

TOL = 1e-6


@pytest.fixture(scope="module", params=list(BENCHMARK_CHANNELS))
def curve(request):
    return balance_curve(BENCHMARK_CHANNELS[request.param](), points=8, starts=6, seed=0, cert_tol=1e-5)


def test_zero_at_zero_and_bracket_consistent(curve):
    assert curve.delta_upper[0] <= TOL and curve.delta_lower[0] == 0.0
    assert np.all(curve.delta_lower <= curve.delta_upper + TOL)
    assert np.all(curve.c1b_lower <= curve.c1b_upper + 1e-12)


def test_non_decreasing(curve):
    # C1^b is non-increasing in b, so both bounds on δ are non-decreasing (Lemma 1)
    assert np.all(np.diff(curve.delta_upper) >= -TOL)
    assert np.all(np.diff(curve.delta_lower) >= -TOL)


def test_lemma1_ceiling(curve):
    # Lemma 1 (18): δ(b) ≤ δ(log|X|) ≤ C1; and δ = 0 while b ≤ H(p*) ⇒ δ(b) ≤ min{b, C1} ≤ min{b, max_i log|X_i|}
    cap = min(curve.c1_upper, max(math.log(s) for s in curve.record_sizes))
    assert np.all(curve.delta_lower <= np.minimum(curve.b, cap) + TOL)
    assert curve.delta_lower[-1] <= curve.c1_upper + TOL
    assert curve.zero_below >= curve.c1_lower - 1e-9  # H(X) ≥ H(X_i) ≥ I(X_i;Y)


def test_certified_bracket_is_tight(curve):
    assert np.all(curve.bb_converged)
    assert np.all(curve.delta_upper - curve.delta_lower <= 1e-5 + 1e-9)


def test_parity_rr_reaches_lemma1_ceiling():
    # parity query: the uniform joint (the only point of Δ(X)_{log|X|}) tells nothing about any x_i
    c = balance_curve(randomized_response_array((2, 2), 0.2), points=3, starts=4, seed=0)
    assert abs(c.delta_upper[-1] - c.c1_upper) < 1e-9 and abs(c.delta_lower[-1] - c.c1_lower) < 1e-9


def test_certified_bound_dominates_multistart_values():
    W = np.random.default_rng(2).dirichlet(np.ones(3), size=(2, 2))
    model = JointCapacityModel.build(W)
    for b in (0.4, 1.0):
        r = model.solve(b=b, starts=6, seed=1)
        cb = certified_c1b_upper(model, b, lower=r.value, tol=1e-5)
        assert max(v for v in r.values if np.isfinite(v)) <= cb.upper + 1e-12
        assert cb.converged and cb.upper - r.value <= 1e-5 + 1e-12
        assert entropy(r.solution["p_x"]) >= b - 1e-12


def test_repair_entropy():
    p = np.array([0.97, 0.01, 0.01, 0.01])
    q = repair_entropy(p, 1.0)
    assert entropy(q) >= 1.0 and abs(q.sum() - 1) < 1e-12

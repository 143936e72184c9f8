"""Theorem 1 of Wu, Xia & He (2020): max-individual capacity w.r.t. P_ind equals the DP level."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from problems.errors import InvalidPriorError, ShapeMismatchError
from problems.information import (
    dp_level,
    dp_witness,
    individual_capacity,
    max_information,
    max_information_independent,
    optimise_max_information_independent,
    product_prior,
    randomized_response_channel,
)


def test_dp_level_randomized_response():
    p = 0.2
    ch = randomized_response_channel([2, 2], lambda x: x[0] ^ x[1], p)
    assert dp_level(ch) == pytest.approx(math.log((1 - p) / p))
    w = dp_witness(ch)
    assert sum(a != b for a, b in zip(w.x, w.x_prime)) == 1
    assert math.log(ch.array[w.x + (w.y,)] / ch.array[w.x_prime + (w.y,)]) == pytest.approx(w.eps)


def test_dp_level_infinite_and_zero():
    assert math.isinf(dp_level(np.array([[1.0, 0.0], [0.5, 0.5]])))
    assert dp_level(np.full((2, 3, 2), 0.5)) == 0.0


@pytest.mark.parametrize("seed", range(3))
def test_theorem1_sequence_converges_to_dp_level(seed):
    W = np.random.default_rng(seed).dirichlet(np.ones(3) * 2, size=(2, 3))
    r = max_information_independent(W)
    vals = [v for _, v in r.sequence]
    assert all(b >= a - 1e-12 for a, b in zip(vals, vals[1:]))  # increasing along delta -> 0
    assert all(v <= r.dp_level + 1e-12 for v in vals)
    assert vals[-1] == pytest.approx(r.dp_level, abs=1e-6)


def test_theorem1_numerical_optimisation():
    """Independent search over product priors approaches, and never exceeds, the DP level."""
    W = np.random.default_rng(5).dirichlet(np.ones(2) * 2, size=(2, 2))
    eps = dp_level(W)
    opt = optimise_max_information_independent(W, restarts=2)
    assert eps - 1e-4 <= opt <= eps + 1e-9


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000), st.lists(st.integers(2, 3), min_size=1, max_size=3), st.integers(2, 4))
def test_product_priors_never_exceed_dp_level(seed, sizes, k):
    rng = np.random.default_rng(seed)
    W = rng.dirichlet(np.ones(k), size=tuple(sizes))
    eps = dp_level(W)
    prior = product_prior([rng.dirichlet(np.ones(s) * 0.5) for s in sizes])
    assert max_information(W, prior).max() <= eps + 1e-9
    # I <= I_inf for each individual, hence C1 over *all* priors is bounded by n * eps (group privacy of DP)
    assert individual_capacity(W).c1 <= len(sizes) * eps + 1e-9


def test_dependent_prior_can_exceed_dp_level():
    """Outside P_ind the max-information can exceed eps_DP (Wu, Xia & He 2017 Example 2: perfectly correlated records)."""
    from problems.information import clamped_geometric_count_channel

    ch = clamped_geometric_count_channel(2, 0.1)
    prior = np.zeros((2, 2))
    prior[0, 0], prior[1, 1] = 0.999, 0.001  # perfectly correlated, rare "both ones"
    assert max_information(ch, prior).max() > 1.9 * dp_level(ch)


def test_prior_errors():
    W = np.full((2, 2, 2), 0.5)
    with pytest.raises(ShapeMismatchError, match="record sizes"):
        max_information(W, np.full(4, 0.25))
    with pytest.raises(InvalidPriorError, match="sum to 1"):
        max_information(W, np.full((2, 2), 0.3))

"""C1 via Theorem 2 of Wu, Xia & He (2020): brute force, reductions, adversary, properties, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _brute import brute_force_c1, mi_and_grad
from hypothesis import given, settings
from hypothesis import strategies as st

from problems.errors import InvalidChannelError, InvalidInputError, ProblemTooLargeError
from problems.information import (
    PrivacyChannel,
    binary_entropy,
    capacity_conic,
    individual_capacity,
    information_privacy,
    randomized_response_channel,
)


@pytest.mark.parametrize("seed,shape", [(0, (2, 2, 3)), (1, (2, 3, 3)), (2, (3, 2, 2))])
def test_theorem2_against_brute_force(seed, shape):
    """Multistart local maximisation of I(X_i;Y) over the full joint p(x) never beats C1 and reaches it."""
    rng = np.random.default_rng(seed)
    W = rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])
    c1 = individual_capacity(W).c1
    brute = brute_force_c1(W, starts=8, seed=seed)
    assert brute <= c1 + 1e-7
    assert brute >= c1 - 1e-6


@pytest.mark.slow
@pytest.mark.parametrize("seed,shape", [(3, (2, 2, 2, 2)), (4, (3, 3, 2)), (5, (2, 4, 3))])
def test_theorem2_against_brute_force_more(seed, shape):
    rng = np.random.default_rng(seed)
    W = rng.dirichlet(np.ones(shape[-1]) * 0.5, size=shape[:-1])
    c1 = individual_capacity(W).c1
    brute = brute_force_c1(W, starts=16, seed=seed)
    assert c1 - 1e-6 <= brute <= c1 + 1e-7


def test_adversary_attains_c1():
    rng = np.random.default_rng(7)
    W = rng.dirichlet(np.ones(4), size=(2, 3, 2))
    r = individual_capacity(W)
    assert r.adversary.shape == (2, 3, 2) and r.adversary.sum() == pytest.approx(1.0)
    mi, _ = mi_and_grad(r.adversary, W, r.individual)
    assert mi == pytest.approx(r.c1, abs=1e-12)
    assert r.lower_bound <= r.upper_bound and r.upper_bound - r.lower_bound <= 1e-9
    # vertex bookkeeping: database a of the vertex has x_i = a
    for a, x in enumerate(r.vertex_databases):
        assert x[r.individual] == a
    # worst vertex channel evaluated by the conic program gives the same capacity
    B = np.array([W[x] for x in r.vertex_databases])
    assert capacity_conic(B).capacity == pytest.approx(r.c1, abs=1e-7)


def test_pruning_does_not_change_value():
    rng = np.random.default_rng(11)
    W = rng.dirichlet(np.ones(3), size=(3, 2, 2))
    a, b = individual_capacity(W, prune=True), individual_capacity(W, prune=False)
    assert a.c1 == pytest.approx(b.c1, abs=1e-9)
    assert a.evaluated_vertices <= b.evaluated_vertices
    assert b.total_vertices == 4**3 + 6**2 + 6**2


def test_randomized_response_c1():
    """Wu, Xia & He (2020), §4.1: binary records, RR of any non-constant binary query has C1 = log 2 - H(p)."""
    p = 0.2
    ch = randomized_response_channel([2, 2, 2, 2], lambda x: int(sum(x) % 2), p)
    r = individual_capacity(ch)
    assert r.c1 == pytest.approx(math.log(2) - binary_entropy(p), abs=1e-10)
    # the channel depends on x only through f(x): two distinct rows, massive deduplication
    assert r.after_column_dedup < r.total_vertices and r.evaluated_vertices <= 2
    # |X_i| = 3 (paper: only the bound is known) -- the bound holds and is attained here
    ch3 = randomized_response_channel([3, 3], lambda x: int(x[0] > x[1]), p)
    assert individual_capacity(ch3).c1 <= math.log(2) - binary_entropy(p) + 1e-10


def test_constant_channel_has_zero_c1():
    r = individual_capacity(np.full((2, 2, 3), 1 / 3))
    assert r.c1 == 0.0 and r.evaluated_vertices == 0


def test_to_dict_indexing():
    W = np.random.default_rng(1).dirichlet(np.ones(3), size=(2, 2))
    r = individual_capacity(W)
    d = r.to_dict("bits")
    assert d["individual"] == r.individual + 1 and d["unit"] == "bits"
    assert d["C1"] == pytest.approx(r.c1 / math.log(2))
    for key in ("vertex", "input_distribution", "evaluated_vertices", "adversary_support"):
        assert key in d


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=3),
    st.integers(2, 4),
    st.integers(0, 100_000),
)
def test_c1_properties(sizes, k, seed):
    W = np.random.default_rng(seed).dirichlet(np.ones(k) * 0.5, size=tuple(sizes))
    r = individual_capacity(W)
    assert -1e-12 <= r.c1 <= math.log(k) + 1e-12
    assert r.c1 <= math.log(max(sizes)) + 1e-12
    # C1 is at most the capacity of the whole channel (data processing over X -> X_i)
    assert r.c1 <= capacity_conic(W.reshape(-1, k)).upper_bound + 1e-9
    assert r.lower_bound <= r.upper_bound + 1e-15


def test_information_privacy_decision():
    ch = randomized_response_channel([2, 2], lambda x: x[0] & x[1], 0.3)
    c1 = math.log(2) - binary_entropy(0.3)
    assert information_privacy(ch, c1 + 1e-6) and not information_privacy(ch, c1 - 1e-6)


def test_errors():
    with pytest.raises(InvalidChannelError):
        individual_capacity(np.array([[0.5, 0.4]]))
    W = np.random.default_rng(0).dirichlet(np.ones(2), size=(2, 2, 2, 2))
    with pytest.raises(InvalidInputError, match="tol"):
        individual_capacity(W, tol=-1.0)
    with pytest.raises(InvalidInputError, match="max_vertices"):
        individual_capacity(W, max_vertices=0)
    with pytest.raises(ProblemTooLargeError, match="max_vertices = 10"):
        individual_capacity(PrivacyChannel(W), max_vertices=10)


def test_benchmark_sizes_are_certified():
    """The benchmark sizes (6 x 32^2 and 3 x 9^3 vertex channels) end with a certified bracket.

    Their speed is measured in benchmarks/bench_capacity.py (docs/benchmarks.md), not asserted here.
    """
    for sizes, k in (((2,) * 6, 8), ((3, 3, 3), 4)):
        W = np.random.default_rng(0).dirichlet(np.ones(k), size=sizes)
        r = individual_capacity(W)
        assert r.upper_bound - r.lower_bound <= 1e-9

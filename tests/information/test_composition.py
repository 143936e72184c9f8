"""Group and composition privacy (Wu, Xia & He 2020, §6-7)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _brute import mi_and_grad

from problems.errors import InvalidInputError, ShapeMismatchError
from problems.information import (
    PrivacyChannel,
    basic_composition,
    binary_entropy,
    capacity_conic,
    compose_independent,
    cross_capacity,
    general_composition_channel,
    group_capacity,
    individual_capacity,
    parallel_composition_example,
    randomized_response_channel,
    vertex_search,
)


def test_group_capacity_monotone_and_full():
    W = np.random.default_rng(2).dirichlet(np.ones(5) * 0.5, size=(2, 2, 2))
    c = [group_capacity(W, k).c1 for k in (1, 2, 3)]
    assert c[0] == pytest.approx(individual_capacity(W).c1, abs=1e-12)
    assert c[0] <= c[1] + 1e-10 <= c[2] + 2e-10
    assert c[2] == pytest.approx(capacity_conic(W.reshape(8, 5)).capacity, abs=1e-7)  # C_n = C(whole channel)


def test_group_capacity_adversary_attains():
    W = np.random.default_rng(3).dirichlet(np.ones(3), size=(2, 2, 2))
    r = group_capacity(W, 2)
    g = list(r.group)
    # I(X_I;Y) for the returned adversary, computed by merging the group axes into one
    rest = [j for j in range(3) if j not in g]
    p = np.transpose(r.adversary, g + rest).reshape(4, 2)
    Wm = np.transpose(W, g + rest + [3]).reshape(4, 2, 3)
    mi, _ = mi_and_grad(p, Wm, 0)
    assert mi == pytest.approx(r.c1, abs=1e-12)


def test_group_errors():
    with pytest.raises(InvalidInputError, match="group size k"):
        group_capacity(np.full((2, 2, 2), 0.5), 3)


def test_basic_composition_within_sum():
    rng = np.random.default_rng(0)
    for _ in range(3):
        W1 = rng.dirichlet(np.ones(3), size=(2, 2))
        W2 = rng.dirichlet(np.ones(2), size=(2, 2))
        rep = basic_composition(W1, W2)
        assert rep.within_sum
        assert rep.composite >= max(rep.parts) - 1e-9  # post-processing: dropping Y^2 cannot add information
    comp = compose_independent(W1, W2)
    assert comp.n_outputs == 6 and np.allclose(comp.array[1, 0, 1 * 2 + 1], W1[1, 0, 1] * W2[1, 0, 1])
    with pytest.raises(ShapeMismatchError, match="record sizes"):
        compose_independent(W1, np.full((2, 3, 2), 0.5))


def test_general_composition_layout():
    rng = np.random.default_rng(1)
    W1 = rng.dirichlet(np.ones(2), size=(2, 3))
    W2 = rng.dirichlet(np.ones(3), size=(3, 2))
    g = general_composition_channel(W1, W2)
    assert g.record_sizes == (6, 6) and g.n_outputs == 6
    # individual 1 owns (x_1^1, x_1^2) = (1, 2), individual 2 owns (0, 1)
    assert g.array[1 * 3 + 2, 0 * 2 + 1, 1 * 3 + 2] == pytest.approx(W1[1, 0, 1] * W2[2, 1, 2])


@pytest.mark.parametrize("seed", range(3))
def test_cross_capacity_proposition6(seed):
    """Prop. 6 formula vs the vertex search on p(y^1 | x^1, x^2) = p(y^1 | x^1) for the x^2 records."""
    rng = np.random.default_rng(seed)
    W1 = rng.dirichlet(np.ones(3), size=(2, 2))
    k2 = (2, 3)
    cc = cross_capacity(W1, k2)
    arr = np.broadcast_to(W1[:, :, None, None, :], (2, 2, 2, 3, 3)).copy()
    vs = vertex_search(PrivacyChannel(arr), [[2], [3]])
    assert cc == pytest.approx(vs.lower, abs=1e-9)
    # cross capacity is at least C1^{1,1} (the Netflix/IMDb remark after Prop. 6)
    assert cc >= individual_capacity(W1).c1 - 1e-10


def test_parallel_composition_exceeds_worst_part():
    for p in (0.1, 0.2, 0.35):
        ex = parallel_composition_example(p)
        assert ex.part_c1 == pytest.approx(math.log(2) - binary_entropy(p), abs=1e-12)
        assert ex.tau > 1e-3  # Proposition 7 with tau > 0
        # worst adversary copies x_1 into x_2: the vertex uses databases (0,0) and (1,1)
        assert sorted(ex.result.vertex_databases) == [(0, 0), (1, 1)]
        # value: capacity of x -> (BSC(p), BSC(p)) (two independent looks at the same bit)
        two_looks = np.array(
            [[(1 - p) ** 2, (1 - p) * p, p * (1 - p), p * p], [p * p, p * (1 - p), (1 - p) * p, (1 - p) ** 2]]
        )
        assert ex.composite_c1 == pytest.approx(capacity_conic(two_looks).capacity, abs=1e-7)
    rr = randomized_response_channel([2], lambda x: x[0], 0.2)
    assert individual_capacity(rr).c1 == pytest.approx(parallel_composition_example(0.2).part_c1, abs=1e-12)

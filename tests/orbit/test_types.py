"""Joint-type enumeration and the ratio coefficients κ, checked against brute force."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from problems.database import DatabaseSpace
from problems.orbit.types import JointTypes, compositions


@pytest.mark.parametrize("n,parts", [(0, 3), (5, 1), (6, 2), (4, 4), (3, 9)])
def test_compositions_count_order(n, parts):
    C = compositions(n, parts)
    assert C.shape == (comb(n + parts - 1, parts - 1), parts)
    assert np.all(C.sum(axis=1) == n) and np.all(C >= 0)
    assert len({tuple(r) for r in C}) == C.shape[0]
    assert [tuple(r) for r in C] == sorted(tuple(r) for r in C)  # lexicographic


@pytest.mark.parametrize("n,m", [(3, 2), (4, 2), (2, 3), (3, 3)])
def test_counts_and_kappa_brute_force(n, m):
    J = JointTypes(n, m)
    S = DatabaseSpace(n, m)
    e = S.elements
    idx = J.pair_index(e, e)
    # c(T|t): number of y with T(x,y) = T for fixed x equals exp(log_count_given_x)
    for i in range(S.size):
        counts = np.bincount(idx[i], minlength=J.size)
        rows = J.T.sum(axis=2)
        t = np.bincount(e[i], minlength=m)
        mine = np.all(rows == t, axis=1)
        np.testing.assert_allclose(counts[mine], np.exp(J.log_count_given_x[mine]), rtol=1e-12)
        assert np.all(counts[~mine] == 0)
    # every move: κ = c(T|t)/c(T'|t') and T' is the joint type of (x', y)
    mv = J.moves
    np.testing.assert_allclose(
        mv.log_kappa, J.log_count_given_x[mv.src] - J.log_count_given_x[mv.dst], atol=1e-12
    )
    pi, pj = S.neighbour_pairs
    pairs = {(a, b) for a, b in zip(mv.src.tolist(), mv.dst.tolist())}
    brute = {(int(idx[x, y]), int(idx[x2, y])) for x, x2 in zip(pi, pj) for y in range(S.size)}
    assert pairs == brute


def test_sizes_at_scale():
    J = JointTypes(12, 3)
    assert J.size == 125_970
    assert J.moves.size > 0 and np.all(J.moves.dst >= 0)

"""Wu, Xia & He (2017): dependent sources."""

from __future__ import annotations

import math

import numpy as np
import pytest

from problems.errors import InvalidInputError, InvalidPriorError, ShapeMismatchError
from problems.information import (
    blocks_prior,
    clamped_geometric_count_channel,
    contagious_example,
    dependent_privacy_report,
    dp_level,
    information_privacy_ratios,
    theorem2_bound,
)


def test_clamped_geometric_is_eps_dp():
    for n in (1, 2, 4):
        assert dp_level(clamped_geometric_count_channel(n, 0.7)) == pytest.approx(0.7)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0])
def test_contagious_example_ratio_tends_to_e_2eps(eps):
    vals = [contagious_example(eps, p).log_ratio for p in (0.1, 1e-3, 1e-6, 1e-9)]
    assert all(b > a for a, b in zip(vals, vals[1:]))
    assert vals[-1] == pytest.approx(2 * eps, abs=1e-7)
    assert vals[-1] > eps  # the eps-DP mechanism leaks more than eps about X_1
    assert contagious_example(eps, 1e-9, n=3).log_ratio == pytest.approx(3 * eps, abs=1e-7)


def test_independent_prior_keeps_ratio_below_eps():
    eps = 0.5
    ch = clamped_geometric_count_channel(2, eps)
    prior = np.outer([0.3, 0.7], [0.6, 0.4])
    rep = dependent_privacy_report(ch, prior)
    assert rep.information_privacy.max() <= eps + 1e-12  # Proposition 4


@pytest.mark.parametrize("seed", range(5))
def test_hierarchy_proposition1(seed):
    rng = np.random.default_rng(seed)
    W = rng.dirichlet(np.ones(3), size=(2, 3, 2))
    prior = rng.dirichlet(np.ones(12)).reshape(2, 3, 2)
    rep = dependent_privacy_report(W, prior)
    assert rep.hierarchy_holds
    # Proposition 2: I(X_i;Y|X_(i)) <= eps_DP whatever the dependence
    assert rep.conditional_mutual_information.max() <= dp_level(W) + 1e-12
    # ratio (8) == (9): recompute (8) directly for individual 0
    r = information_privacy_ratios(W, prior)[0]
    cond = prior / prior.sum(axis=(1, 2), keepdims=True)  # p(x_(0) | x_0)
    num = np.einsum("abc,abcy->ay", cond, W)
    den = prior.sum(axis=(1, 2)) @ num
    assert np.allclose(r, np.log(num / den[None, :]))


@pytest.mark.parametrize("k", [2, 3])
def test_proposition5(k):
    """Blocks of <= k dependent sources and an eps/k-DP mechanism give eps-information privacy."""
    rng = np.random.default_rng(k)
    eps = 0.9
    n = 4 if k == 2 else 3
    ch = clamped_geometric_count_channel(n, eps / k)
    blocks = [[0, 2], [1, 3]] if k == 2 else [[0, 1, 2]]
    bp = [rng.dirichlet(np.ones(2 ** len(b)) * 0.3).reshape([2] * len(b)) for b in blocks]
    bp[0] = np.zeros([2] * len(blocks[0]))
    bp[0][(0,) * len(blocks[0])] = 0.999
    bp[0][(1,) * len(blocks[0])] = 0.001  # perfectly correlated block, rare "all ones"
    prior = blocks_prior([2] * n, blocks, bp)
    assert prior.sum() == pytest.approx(1)
    rep = dependent_privacy_report(ch, prior)
    assert rep.information_privacy.max() <= eps + 1e-12
    # and the perfectly correlated block makes the eps/k-DP bound nearly tight
    assert rep.information_privacy.max() >= eps / k


@pytest.mark.parametrize("seed", range(6))
def test_theorem2_bound_holds(seed):
    rng = np.random.default_rng(seed)
    eps, k = 1.2, 3
    ch = clamped_geometric_count_channel(3, eps / k)
    base = rng.dirichlet(np.ones(8) * (0.3 + seed))
    tb = theorem2_bound(base.reshape(2, 2, 2), eps, k)
    level = dependent_privacy_report(ch, base.reshape(2, 2, 2)).information_privacy.max()
    assert level <= tb.bound + 1e-12
    assert 0 <= tb.eta <= 1 and tb.b_used <= eps * (1 - 1 / k) + 1e-15
    assert tb.bound == pytest.approx(eps - tb.b_used + math.log(2))


def test_dependent_errors():
    ch = clamped_geometric_count_channel(2, 0.5)
    with pytest.raises(ShapeMismatchError):
        dependent_privacy_report(ch, np.full(4, 0.25))
    with pytest.raises(InvalidPriorError):
        dependent_privacy_report(ch, np.full((2, 2), 0.5))
    with pytest.raises(InvalidInputError, match="p_infected"):
        contagious_example(0.5, 0.0)
    with pytest.raises(InvalidInputError, match="partition"):
        blocks_prior([2, 2], [[0]], [np.array([0.5, 0.5])])
    with pytest.raises(InvalidInputError, match="k must be"):
        theorem2_bound(np.full((2, 2), 0.25), 0.5, 0)

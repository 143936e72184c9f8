"""Larger instances (slow): the paper programs as models at N = 27 and 64 against the classes."""

from __future__ import annotations

import numpy as np
import pytest

from problems import PDDP, PDI, DatabaseSpace, priors
from problems.model import instances

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("n,m", [(3, 3), (6, 2)])
def test_pd_dp_and_pd_i_dense(n, m):
    space = DatabaseSpace(n, m)
    prior = priors.iid(space, np.linspace(1.0, 2.0, m) / np.linspace(1.0, 2.0, m).sum())
    for eps in (0.7, 2.0):
        a, b = instances.pd_dp(space, prior, eps).solve(), PDDP(prior).solve(eps, method="lp")
        assert a.certified and abs(a.value - b.value) <= 1e-9 * b.value
        e = eps + instances.pd_i(space, prior, 0.0).constraints[0].eps_x(
            instances.pd_i(space, prior, 0.0).ctx
        )
        a, b = instances.pd_i(space, prior, e).solve(), PDI(prior).solve(e, method="lp")
        assert a.certified and abs(a.value - b.value) <= 1e-9 * b.value

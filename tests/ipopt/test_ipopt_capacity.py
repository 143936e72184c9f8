"""C1 over the full joint (Wu, Xia & He 2020, Definition 5) against Theorem 2's vertex-channel value."""

import numpy as np
import pytest

pytest.importorskip("casadi", reason="CasADi (bundling IPOPT) is not installed; install the 'ipopt' extra")

from ipopt_models import individual_informations, joint_capacity, theorem2_value  # noqa: E402
from ipopt_models.capacity import _blahut_arimoto  # noqa: E402

TOL = 1e-6


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_joint_never_exceeds_theorem2_and_reaches_it(seed):
    W = np.random.default_rng(seed).dirichlet(np.full(3, 0.7), size=(3, 2))  # |X_1| = 3, |X_2| = 2, |Y| = 3
    res = joint_capacity(W, starts=20, seed=seed)
    assert max(res.values) <= res.extras["theorem2_upper"] + TOL
    assert res.value >= res.extras["theorem2_lower"] - TOL
    assert res.n_reached_reference >= 1
    # the reported value is the information of the reported joint
    p = np.asarray(res.solution["p_x"])
    assert abs(p.sum() - 1) < 1e-12 and np.all(p >= 0)
    assert abs(individual_informations(W, p).max() - res.value) < 1e-12


def test_three_individuals():
    W = np.random.default_rng(5).dirichlet(np.ones(2), size=(2, 2, 2))
    res = joint_capacity(W, starts=12, seed=0)
    assert res.excess <= TOL and res.n_reached_reference >= 1


def test_bruteforce_fallback_agrees():
    W = np.random.default_rng(9).dirichlet(np.ones(3), size=(2, 2))
    lo, up, _ = theorem2_value(W)
    best = 0.0
    import itertools

    for i in range(2):
        sl = np.moveaxis(W, i, 0).reshape(2, -1, 3)
        for ch in itertools.product(range(2), repeat=2):
            best = max(best, _blahut_arimoto(sl[np.arange(2), list(ch)])[0])
    assert lo - 1e-8 <= best <= up + 1e-8


def test_binary_rr_closed_form():
    from ipopt_models import randomized_response_array

    W = randomized_response_array((2, 2), 0.2)
    h = -(0.2 * np.log(0.2) + 0.8 * np.log(0.8))
    res = joint_capacity(W, starts=6, seed=0)
    assert abs(res.value - (np.log(2) - h)) < 1e-6  # Wu, Xia & He (2020) eq. (54)

"""PD-I and R-PD in the bilinear variables (p_{X|Y}, p_Y) against the exact LPs (Wang, Ying & Zhang 2016)."""

import numpy as np
import pytest

pytest.importorskip("casadi", reason="CasADi (bundling IPOPT) is not installed; install the 'ipopt' extra")

from ipopt_models import MultistartResult, bilinear_pd_i, bilinear_r_pd  # noqa: E402
from problems.database import DatabaseSpace  # noqa: E402
from problems.errors import InfeasibleProgramError, InvalidInputError  # noqa: E402
from problems.priors import iid, uniform  # noqa: E402

BEAT_TOL = 1e-6  # no local optimum may be below the LP optimum by more than this


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2), (2, 3)])
@pytest.mark.parametrize("eps", [1.5, 2.0])
def test_pd_i_never_beats_lp_and_reaches_it(n, m, eps):
    space = DatabaseSpace(n, m)
    prior = iid(space, [0.6] + [0.4 / (m - 1)] * (m - 1))
    res = bilinear_pd_i(prior, eps, starts=6, seed=0)
    vals = np.array(res.values)
    assert np.all(vals[np.isfinite(vals)] >= res.reference - BEAT_TOL)
    assert res.excess <= BEAT_TOL
    assert res.n_reached_reference >= 1
    assert res.extras["max_constraint_residual"] <= 1e-6


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_r_pd_reaches_h_eps(eps):
    space = DatabaseSpace(3, 2)
    res = bilinear_r_pd(space, eps, starts=4, seed=1)
    h = space.n / (1 + np.exp(eps) / (space.m - 1))  # Lemma 1
    assert abs(res.reference - h) <= 1e-6
    assert res.value >= h - BEAT_TOL
    assert res.n_reached_reference >= 1


def test_result_is_frozen_and_serialisable():
    res = bilinear_r_pd(DatabaseSpace(2, 2), 1.0, starts=2, seed=0)
    assert isinstance(res, MultistartResult)
    with pytest.raises(AttributeError):
        res.value = 0.0  # type: ignore[misc]
    d = res.to_dict()
    assert d["n_starts"] == 2 and d["status"] in d["status_counts"]
    import json

    json.dumps(d)


def test_deterministic_given_seed():
    prior = uniform(DatabaseSpace(2, 2))
    a = bilinear_pd_i(prior, 1.0, starts=3, seed=7)
    b = bilinear_pd_i(prior, 1.0, starts=3, seed=7)
    assert a.values == b.values


def test_errors():
    prior = iid(DatabaseSpace(2, 2), [0.9, 0.1])
    with pytest.raises(InfeasibleProgramError):
        bilinear_pd_i(prior, 0.5)  # below eps_X = ln 9
    with pytest.raises(InvalidInputError):
        bilinear_r_pd(DatabaseSpace(2, 2), 1.0, starts=0)

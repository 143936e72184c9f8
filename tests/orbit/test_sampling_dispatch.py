"""Sampling without the matrix matches the lifted mechanism; the dense/reduced dispatcher."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from problems.database import DatabaseSpace
from problems.errors import InvalidInputError, InvalidPriorError
from problems.orbit import (
    ReducedPDDP,
    ReducedRPD,
    lift_mechanism,
    make_program,
    parse_symmetric_prior,
    resolve_path,
    sample,
    symmetric_iid,
)
from problems.priors import from_pmf, iid, uniform
from problems.programs import PDDP, PDMIP, RPD


def _chi2(res, space, x, size=40_000, seed=7):
    W = lift_mechanism(res).matrix
    row = W[space.index(x)]
    ys = sample(res, x, size, np.random.default_rng(seed))
    idx = ys @ (space.m ** np.arange(space.n - 1, -1, -1))
    observed = np.bincount(idx, minlength=space.size)
    keep = row * size >= 5
    exp = row[keep] * size
    obs = observed[keep]
    assert observed[~keep].sum() <= max(20, 3 * row[~keep].sum() * size + 10)
    if keep.sum() <= 1:  # a point mass: every sample must land on it
        return 1.0 if obs.sum() >= size - 20 else 0.0
    stat = ((obs - exp) ** 2 / exp).sum()
    return stats.chi2.sf(stat, keep.sum() - 1)


@pytest.mark.parametrize("n,m,row", [(4, 2, [0.3, 0.7]), (3, 3, [0.2, 0.3, 0.5])])
def test_sampling_matches_lifted_matrix_joint_types(n, m, row):
    space = DatabaseSpace(n, m)
    res = ReducedPDDP(iid(space, row)).solve(2.0)
    assert (lift_mechanism(res).matrix[0] > 1e-3).sum() > 3  # a genuinely random row
    for x in ([0] * n, list(range(m)) + [0] * (n - m)):
        assert _chi2(res, space, x) > 1e-3


def test_sampling_matches_lifted_matrix_distance():
    space = DatabaseSpace(4, 3)
    res = ReducedRPD(space).solve(0.7)
    assert _chi2(res, space, [2, 0, 1, 1]) > 1e-3


def test_sampling_large_n_has_right_distance():
    res = ReducedRPD(DatabaseSpace(200, 2)).solve(1.0)
    ys = sample(res, np.zeros(200, dtype=int), 2000, 1)
    assert abs(ys.sum(axis=1).mean() - res.value) < 5 * np.sqrt(res.value / 2000) + 0.5


def test_dispatch():
    space = DatabaseSpace(3, 2)
    assert isinstance(make_program("pd-dp", iid(space, [0.4, 0.6])), ReducedPDDP)
    assert isinstance(make_program("pd-dp", iid(space, [0.4, 0.6]), formulation="dense"), PDDP)
    explicit = from_pmf(space, np.arange(1, 9) / 36)
    assert isinstance(make_program("pd-dp", explicit), PDDP)
    with pytest.raises(InvalidPriorError, match="dense"):
        make_program("pd-dp", explicit, formulation="reduced")
    assert isinstance(make_program("r-pd", space), ReducedRPD)
    assert isinstance(make_program("r-pd", space, formulation="dense"), RPD)
    # PD-MIP: reduced (single-letter) for i.i.d. priors, see test_reduced_pd_mip.py; dense otherwise
    assert isinstance(make_program("pd-mip", explicit), PDMIP)
    assert resolve_path("pd-mip", explicit) == "dense"
    with pytest.raises(InvalidInputError):
        make_program("pd-mip", explicit, formulation="reduced")
    with pytest.raises(InvalidInputError):
        make_program("nope", uniform(space))
    sym = symmetric_iid(3, [0.4, 0.6])
    a = make_program("pd-dp", sym, formulation="dense").solve(0.5).value
    b = make_program("pd-dp", sym).solve(0.5).value
    assert a == pytest.approx(b, abs=1e-8)


def test_parse_symmetric_prior():
    assert parse_symmetric_prior("uniform", 200, 3).kind == "uniform"
    assert parse_symmetric_prior("iid:0.2,0.8", 200, 2).kind == "iid"
    assert parse_symmetric_prior("contagious:0.1", 50, 2).kind == "exchangeable"
    assert len(parse_symmetric_prior("mixture:0.5,0.5/0.2,0.8/0.7,0.3", 10, 2).row_pmfs) == 2
    with pytest.raises(InvalidInputError):
        parse_symmetric_prior("iid:0.2,0.3,0.5", 10, 2)
    with pytest.raises(InvalidInputError):
        parse_symmetric_prior("explicit", 10, 2)

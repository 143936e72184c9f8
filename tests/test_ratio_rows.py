"""Sums over the ratio rows by one side, in slices (problems/lp/ratio_rows.py, used by problems/lp/dual_bound.py).

References: ``np.bincount`` over all rows at once.  The sliced versions must give
the same numbers bit for bit wherever the slices fall (they only bound the temporaries' size), and the safe lower
bound must not depend on the slices either.
"""

from __future__ import annotations

import numpy as np
import pytest

from problems.lp import ratio_rows
from problems.lp.dual_bound import lower_bound
from problems.lp.ratio_rows import collect, row_slices, side_sums


@pytest.mark.parametrize("slice_rows", [1, 7, 1 << 19])
def test_collect_concatenates_over_the_slices(slice_rows, monkeypatch):
    monkeypatch.setattr(ratio_rows, "ROW_SLICE", slice_rows)
    x = np.random.default_rng(0).normal(size=50)

    def pick(part):  # noqa: ANN001, ANN202
        at = np.flatnonzero(x[part] > 0)
        return at + (part.start if isinstance(part, slice) else 0), x[part][at]

    where, values = collect(x.size, pick)
    assert np.array_equal(where, np.flatnonzero(x > 0)) and np.array_equal(values, x[x > 0])
    empty = collect(0, pick)
    assert [a.size for a in empty] == [0, 0] and empty[1].dtype == float
    only = np.array([3, 1, 4])
    assert np.array_equal(collect(x.size, lambda part: (x[part],), only)[0], x[only])


@pytest.mark.parametrize("slice_rows", [1, 7, 64, 1 << 19])
@pytest.mark.parametrize("sorted_sides", [False, True])
def test_side_sums_are_bincount_bit_for_bit(slice_rows, sorted_sides, monkeypatch):
    monkeypatch.setattr(ratio_rows, "ROW_SLICE", slice_rows)
    rng = np.random.default_rng(slice_rows)
    P, K = 3001, 257
    side = rng.integers(0, K, P).astype(np.int32)
    if sorted_sides:
        side.sort()
    # weights over many orders of magnitude, so that the order of the additions shows in the last bits
    weights = rng.random(P) * 10.0 ** rng.integers(-30, 30, P)
    scale = np.exp(rng.normal(size=P) * 5)
    assert np.array_equal(side_sums(side, K, weights), np.bincount(side, weights=weights, minlength=K))
    assert np.array_equal(
        side_sums(side, K, weights, scale), np.bincount(side, weights=scale * weights, minlength=K)
    )


def test_row_slices_cover_the_rows_once(monkeypatch):
    monkeypatch.setattr(ratio_rows, "ROW_SLICE", 7)
    for rows in (0, 1, 7, 8, 50):
        covered = np.concatenate([np.arange(rows)[s] for s in row_slices(rows)]) if rows else np.zeros(0)
        assert np.array_equal(covered, np.arange(rows))


def test_lower_bound_does_not_depend_on_the_slices(monkeypatch):
    """Clarabel's multipliers on the README mixture at n = 12 (deficits everywhere: the full passes), and the same
    multipliers with a few absurdly large entries (the capped second try): the same bound, bit for bit."""
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.solvers.backends import backend

    spec = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 12, 2)).lp.spec
    eps = 1.0
    raw = backend("CLARABEL").solve(spec, eps, time_limit=60)
    big = raw.lam.copy()
    big[:: max(1, spec.P // 5)] = 1e130
    for lam in (raw.lam, big):
        monkeypatch.setattr(ratio_rows, "ROW_SLICE", 1 << 19)
        whole = lower_bound(spec, eps, raw.nu, lam, upper=spec.c @ raw.z * 1.01)
        monkeypatch.setattr(ratio_rows, "ROW_SLICE", 113)
        sliced = lower_bound(spec, eps, raw.nu, lam, upper=spec.c @ raw.z * 1.01)
        assert whole[0] == sliced[0] and whole[0] > 0
        assert np.array_equal(whole[1], sliced[1])


@pytest.mark.parametrize("kind", ["nan", "inf", "negative", "huge", "zero"])
def test_lower_bound_and_repair_on_odd_inputs_do_not_depend_on_the_slices(kind, monkeypatch):
    """Multipliers with NaN, ±inf, negative, 1e130 or no entries, at ε = 50 (e^ε κ up to 1e21) and a point far from
    feasible: the lower bound, its reduced costs and the repaired point are the same with slices of 5 rows as with
    one slice."""
    from problems.lp.bounds import repair
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    spec = ReducedPDDP(parse_symmetric_prior("contagious:0.9:0.3,0.7", 9, 2)).lp.spec
    rng = np.random.default_rng(len(kind))
    eps = 50.0
    lam = rng.random(spec.P) * 10.0 ** rng.integers(-20, 5, spec.P)
    nu = rng.normal(size=spec.G)
    at = rng.integers(0, spec.P, 7)
    if kind == "nan":
        lam[at] = np.nan
    elif kind == "inf":
        lam[at[:3]], lam[at[3:]] = np.inf, -np.inf
    elif kind == "negative":
        lam = -lam
    elif kind == "huge":
        lam[at] = 1e130
    else:
        lam[:] = 0.0
    z = rng.random(spec.K)
    out = []
    for rows in (1 << 19, 5):
        monkeypatch.setattr(ratio_rows, "ROW_SLICE", rows)
        out.append((lower_bound(spec, eps, nu, lam, upper=1.0), repair(spec, z, eps)))
    (lo1, d1), (z1, t1) = out[0]
    (lo2, d2), (z2, t2) = out[1]
    assert lo1 == lo2 and lo1 >= 0.0
    assert np.array_equal(d1, d2, equal_nan=True)
    assert (z1 is None) == (z2 is None) and (z1 is None or np.array_equal(z1, z2))
    assert t1 == t2 or (np.isnan(t1) and np.isnan(t2))

"""The rigorous feasibility test runs over the ratio rows in slices (problems/lp/exact_feasibility.py).

Reference: the same test over all rows at once (one slice), which the rest of the suite checks against exact
rational arithmetic; the answers must not depend on where the slices fall, including a row broken in the last
slice only.
"""

from __future__ import annotations

import numpy as np
import pytest

from problems.lp import exact_feasibility as ef
from problems.lp.bounds import tight_reference
from problems.orbit import ReducedPDDP
from problems.orbit.symmetric_prior import parse_symmetric_prior


@pytest.mark.parametrize("rows", [1, 7, 64])
def test_verify_in_slices_answers_as_over_all_rows(rows, monkeypatch):
    spec = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 8, 2)).lp.spec
    eps = 1.0
    z0 = tight_reference(spec, eps)
    assert z0 is not None
    rng = np.random.default_rng(rows)
    cases = []
    for p in [spec.P - 1, 0, *rng.integers(0, spec.P, 30)]:
        for rel in (1e-12, 1e-9, 1e-6):
            z = z0.copy()
            z[spec.src[p]] *= (
                1 + rel
            )  # row p (and the rows sharing its large side) pushed towards or past e^ε
            cases.append(z)
    monkeypatch.setattr(ef, "VERIFY_ROWS", spec.P)
    whole = [ef.verify(spec, z, eps) for z in cases]
    assert any(whole) and not all(whole)
    monkeypatch.setattr(ef, "VERIFY_ROWS", rows)
    assert [ef.verify(spec, z, eps) for z in cases] == whole
    # the last row alone broken: found in the last slice
    z = z0.copy()
    p = spec.P - 1
    z[spec.src[p]] = 2.0 * np.exp(eps) * z[spec.dst[p]] * max(1.0, float(np.exp(spec.log_kappa[p])))
    assert not ef.verify(spec, z, eps)


@pytest.mark.parametrize("rows", [1, 7, 64])
def test_the_lower_bounds_row_sums_in_slices_are_bitwise_numpys(rows, monkeypatch):
    """Σ_{p: d_p = j} fl(e^ε κ_p)·λ_p over slices of the rows equals ``np.bincount(dst, weights=rk * lam)`` bit for
    bit (the same additions in the same order), with multipliers spread over 60 orders of magnitude; a product
    that is not finite is reported; and the lower bound is the same number whatever the slices."""
    from problems.lp import bounds

    spec = ReducedPDDP(parse_symmetric_prior("contagious:0.9:0.3,0.7", 10, 2)).lp.spec
    eps = 2.0
    rng = np.random.default_rng(rows)
    rk = bounds._rk(spec, eps)[0]
    lam = np.exp(rng.uniform(-69, 69, spec.P)) * (rng.random(spec.P) < 0.8)
    want = np.bincount(spec.dst, weights=rk * lam, minlength=spec.K)
    nu = rng.standard_normal(spec.G)
    monkeypatch.setattr(bounds, "SUM_ROWS", spec.P)
    whole = bounds.lower_bound(spec, eps, nu, lam, upper=10.0)
    monkeypatch.setattr(bounds, "SUM_ROWS", rows)
    got, finite = bounds._dst_sums(spec, rk, lam)
    assert finite and np.array_equal(got, want)
    part = bounds.lower_bound(spec, eps, nu, lam, upper=10.0)
    assert part[0] == whole[0] and np.array_equal(part[1], whole[1])
    lam[-1] = np.inf
    assert not bounds._dst_sums(spec, rk, lam)[1]

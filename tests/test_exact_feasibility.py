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

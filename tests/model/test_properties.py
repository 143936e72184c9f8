"""Property tests: on random small models the certificate is consistent with an independent re-check."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from problems.errors import InfeasibleProgramError
from problems.model import MechanismModel, is_feasible, privacy


@st.composite
def models(draw):
    N = draw(st.integers(2, 4))
    K = draw(st.integers(2, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    prior = rng.dirichlet(np.full(N, 2.0))
    L = np.round(rng.uniform(0, 3, size=(N, K)), 3)
    model = MechanismModel(prior, L)
    kinds = draw(
        st.lists(st.sampled_from(["dp", "approx", "local", "metric", "mi", "loss"]), min_size=1, max_size=2)
    )
    pairs = np.stack([np.arange(N - 1), np.arange(1, N)], axis=1)
    for kind in kinds:
        eps = draw(st.floats(0.1, 3.0))
        if kind == "dp":
            model.add(privacy.differential(eps, neighbours=pairs))
        elif kind == "approx":
            model.add(privacy.approximate(eps, draw(st.floats(0.0, 0.3)), neighbours=pairs))
        elif kind == "local":
            model.add(privacy.local(eps))
        elif kind == "metric":
            idx = np.arange(N)
            model.add(privacy.metric(eps, distance=np.abs(idx[:, None] - idx[None, :]).astype(float)))
        elif kind == "mi":
            model.add(privacy.mutual_information(at_most=draw(st.floats(0.05, 0.5))))
        else:
            best = float(np.sum(prior * L.min(axis=1)))
            model.add(privacy.expected_loss(at_most=best + draw(st.floats(0.0, 2.0))))
    return model


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_certificate_is_consistent(model):
    try:
        res = model.solve()
    except InfeasibleProgramError as exc:  # only a loss cap can do this, and then it is proved
        assert "proved bound" in exc.reason
        return
    b = res.bounds
    assert b.lower <= b.upper
    if np.isfinite(b.upper):
        assert b.lower <= res.value <= b.upper * (1 + 1e-12) + 1e-15
        rep = is_feasible(res.matrix, model.to_json(), tol=1e-9)
        assert rep.feasible, rep.violations
    if res.path == "lp-core":  # both paths must agree within their proved bounds
        other = model.solve(path="cvxpy")
        assert other.bounds.lower <= b.upper * (1 + 1e-9) + 1e-12
        assert b.lower <= other.bounds.upper * (1 + 1e-9) + 1e-12

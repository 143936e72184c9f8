"""Property tests: on random small models the certificate is consistent with independent references.

The references do not use the library's constraint code: :mod:`reference.model_feasibility` re-checks the
returned mechanism from the definitions, the optimum of a linear model comes from one plain SciPy/HiGHS call
on an LP written here from the definitions ((ε, δ)-DP over every output set), and every model's optimum lies
between Σ p(x) min_y L[x,y] (no privacy) and the loss of the best constant mechanism (every privacy
constraint holds when all rows are equal).
"""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from problems.errors import InfeasibleProgramError
from problems.model import MechanismModel, privacy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from reference.model_feasibility import all_pairs, chain_pairs, violations  # noqa: E402


@st.composite
def models(draw):
    N = draw(st.integers(2, 4))
    K = draw(st.integers(2, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    prior = rng.dirichlet(np.full(N, 2.0))
    L = np.round(rng.uniform(0, 3, size=(N, K)), 3)
    model = MechanismModel(prior, L)
    specs = []
    kinds = draw(
        st.lists(st.sampled_from(["dp", "approx", "local", "metric", "mi", "loss"]), min_size=1, max_size=2)
    )
    pairs = np.stack([np.arange(N - 1), np.arange(1, N)], axis=1)
    for kind in kinds:
        eps = draw(st.floats(0.1, 3.0))
        if kind == "dp":
            model.add(privacy.differential(eps, neighbours=pairs))
            specs.append(("dp", eps, chain_pairs(N)))
        elif kind == "approx":
            delta = draw(st.floats(0.0, 0.3))
            model.add(privacy.approximate(eps, delta, neighbours=pairs))
            specs.append(("approx", eps, delta, chain_pairs(N)))
        elif kind == "local":
            model.add(privacy.local(eps))
            specs.append(("dp", eps, all_pairs(N)))
        elif kind == "metric":
            idx = np.arange(N)
            D = np.abs(idx[:, None] - idx[None, :]).astype(float)
            model.add(privacy.metric(eps, distance=D))
            specs.append(("metric", eps, D))
        elif kind == "mi":
            at_most = draw(st.floats(0.05, 0.5))
            model.add(privacy.mutual_information(at_most=at_most))
            specs.append(("mi", at_most))
        else:
            best = float(np.sum(prior * L.min(axis=1)))
            cap = best + draw(st.floats(0.0, 2.0))
            model.add(privacy.expected_loss(at_most=cap))
            specs.append(("loss", cap))
    return model, prior, L, specs


def _lp_optimum(prior, L, specs) -> float | None:
    """min Σ p(x)W[x,y]L[x,y] over row-stochastic W under the linear ``specs``, by one HiGHS call
    (``None``: proved infeasible)."""
    N, K = L.shape
    idx = lambda x, y: x * K + y  # noqa: E731
    rows, rhs = [], []

    def ratio(i, j, factor, S=None, slack=0.0):
        r = np.zeros(N * K)
        for y in S if S is not None else range(K):
            r[idx(i, y)] += 1.0
            r[idx(j, y)] -= factor
        rows.append(r)
        rhs.append(slack)

    for con in specs:
        if con[0] == "dp":
            for i, j in con[2]:
                for y in range(K):
                    ratio(i, j, math.exp(con[1]), [y])
        elif con[0] == "approx":
            for i, j in con[3]:
                for r in range(1, K + 1):
                    for S in itertools.combinations(range(K), r):
                        ratio(i, j, math.exp(con[1]), S, con[2])
        elif con[0] == "metric":
            D = con[2]
            for i in range(N):
                for j in range(N):
                    if i != j:
                        for y in range(K):
                            ratio(i, j, math.exp(con[1] * D[i, j]), [y])
        elif con[0] == "loss":
            rows.append((prior[:, None] * L).ravel())
            rhs.append(con[1])
    A_eq = np.kron(np.eye(N), np.ones(K))
    res = linprog(
        (prior[:, None] * L).ravel(),
        A_ub=np.array(rows) if rows else None,
        b_ub=np.array(rhs) if rows else None,
        A_eq=A_eq,
        b_eq=np.ones(N),
        bounds=(0, None),
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    if res.status == 2:
        return None
    assert res.status == 0, res.message
    return float(res.fun)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_certificate_is_consistent(case):
    model, prior, L, specs = case
    linear = all(c[0] != "mi" for c in specs)
    reference = _lp_optimum(prior, L, specs) if linear else None
    try:
        res = model.solve()
    except InfeasibleProgramError as exc:  # only a loss cap can do this, and then it is proved
        assert "proved bound" in exc.reason
        assert not linear or reference is None  # HiGHS agrees: no mechanism meets the constraints
        return
    b = res.bounds
    # the optimum lies in [b.lower, b.upper]; independent bounds on it: no privacy at all ...
    assert b.upper >= float(np.sum(prior * L.min(axis=1))) - 1e-9
    # ... and the best constant mechanism (all rows equal satisfy every privacy constraint)
    column = float((prior @ L).min())
    if all(column <= c[1] for c in specs if c[0] == "loss"):
        assert b.lower <= column + 1e-9
    if reference is not None:  # a linear model: HiGHS's optimum lies within the proved bounds
        assert b.lower <= reference + 1e-7 * (1 + abs(reference)) and reference <= b.upper + 1e-7
    if np.isfinite(b.upper):
        assert b.lower <= res.value <= b.upper * (1 + 1e-12) + 1e-15
        found = violations(res.matrix, prior, L, specs)
        assert max(found.values()) <= 1e-9, found
    if res.path == "lp-core":  # both paths must agree within their proved bounds
        other = model.solve(solver="cvxpy")
        assert other.bounds.lower <= b.upper * (1 + 1e-9) + 1e-12
        assert b.lower <= other.bounds.upper * (1 + 1e-9) + 1e-12


def test_the_reference_checker_sees_violations():
    """The identity mechanism on two binary records breaks every privacy constraint; equal rows break none."""
    from reference.model_feasibility import hamming_pairs

    p, L = np.full(4, 0.25), 1.0 - np.eye(4)
    H = hamming_pairs(2, 2)
    specs = [
        ("dp", 1.0, H),
        ("approx", 1.0, 0.1, H),
        ("identifiability", 1.0, H),
        ("mi", 0.5),
        ("c1", 0.4, 2, 2),
    ]
    found = violations(np.eye(4), p, L, specs)
    assert found["rows"] == 0.0 and all(v > 0 for k, v in found.items() if k != "rows"), found
    assert abs(found["3:mi"] - (np.log(4) - 0.5)) < 1e-12 and abs(found["4:c1"] - (np.log(2) - 0.4)) < 1e-9
    assert max(violations(np.full((4, 4), 0.25), p, L, specs).values()) <= 0.0

"""The memory guards of the reduced LPs: HiGHS's prediction (problems.solvers.kkt_memory) and the reduced LP's
own estimate, which counts ratio rows (problems.resources.require_reduced_lp).

The ratio-row count is checked against a brute-force enumeration of joint types and moves written here."""

from __future__ import annotations

import itertools

import pytest

from problems import resources
from problems.errors import ProblemTooLargeError
from problems.orbit import ReducedPDDP
from problems.orbit.symmetric_prior import parse_symmetric_prior
from problems.solvers import kkt_memory
from problems.solvers.chain import solve as solve_lp


def _brute_force_rows(n: int, m: int) -> tuple[int, int]:
    """(joint types, ratio rows): joint types are the counts of the m² cells (x-value, y-value) summing to n;
    a row moves one x-value a → b ≠ a within an occupied cell (a, c)."""
    cells = m * m
    types = [t for t in itertools.product(range(n + 1), repeat=cells) if sum(t) == n]
    rows = sum((m - 1) for t in types for cell in range(cells) if t[cell] > 0)
    return len(types), rows


@pytest.mark.parametrize(("n", "m"), [(1, 2), (3, 2), (5, 2), (2, 3), (3, 3)])
def test_ratio_row_count_matches_brute_force(n, m):
    K, P = _brute_force_rows(n, m)
    assert resources.reduced_lp_variables(n, m) == K
    assert resources.reduced_lp_ratio_rows(n, m) == P


@pytest.mark.parametrize(("n", "m"), [(6, 2), (3, 3)])
def test_ratio_row_count_matches_the_built_lp(n, m):
    row = ",".join(["0.2", "0.8"] if m == 2 else ["0.2", "0.3", "0.5"])
    spec = ReducedPDDP(parse_symmetric_prior(f"iid:{row}", n, m)).lp.spec
    assert (spec.K, spec.P) == (resources.reduced_lp_variables(n, m), resources.reduced_lp_ratio_rows(n, m))


def test_highs_is_skipped_over_budget_with_its_reason(monkeypatch):
    """HiGHS predicted over the budget is not started (the reason in the attempts); another back end answers."""
    monkeypatch.setattr(kkt_memory, "HIGHS_BYTES_PER_ROW", 1e12)
    spec = ReducedPDDP(parse_symmetric_prior("iid:0.3,0.7", 6, 2)).lp.spec
    sol = solve_lp(spec, 0.8, solver="highs")
    name, outcome = sol.stats.attempts[0]
    assert name == "HIGHS" and outcome.startswith("error: not run: HiGHS would need about")
    assert "variables and ratio rows" in outcome and "the memory budget is" in outcome
    assert sol.status == "optimal" and sol.stats.solver != "HIGHS"


def test_highs_prediction_covers_the_measured_peaks():
    """The measured peaks of the module docstring (bytes over the process before HiGHS started) lie below
    the prediction less the base, with room."""
    measured = {(6, 3): 35e6, (8, 3): 154e6, (10, 3): 546e6, (50, 2): 130e6, (100, 2): 955e6}
    for (n, m), peak in measured.items():
        rows = resources.reduced_lp_variables(n, m) + resources.reduced_lp_ratio_rows(n, m)
        assert kkt_memory.HIGHS_BYTES_PER_ROW * rows >= 1.3 * peak


def test_reduced_lp_estimate_counts_ratio_rows(monkeypatch):
    """m = 3, n = 10 peaked at 685 MB (block method): the per-variable estimate alone (412 MB) passed a 600 MB
    budget; with the ratio rows the LP is refused."""
    monkeypatch.setenv(resources.MEMORY_LIMIT_ENV, "600M")
    K, P = resources.reduced_lp_variables(10, 3), resources.reduced_lp_ratio_rows(10, 3)
    resources.require_reduced_lp(K)  # the old estimate: optimistic
    with pytest.raises(ProblemTooLargeError):
        resources.require_reduced_lp(K, P)
    monkeypatch.setenv(resources.MEMORY_LIMIT_ENV, "800M")
    resources.require_reduced_lp(K, P)


def test_scaled_highs_predicts_from_the_rows_it_keeps(monkeypatch):
    """The scaled HiGHS attempts are given only the ratio rows that can bind at an O(1) point (at large ε a few
    per cent of them), and predict their memory from those: with a budget between the two predictions the
    floored-column attempt runs and certifies where the plain one is refused."""
    from problems.solvers.scaled_lp import scaled_lp

    spec = ReducedPDDP(parse_symmetric_prior("contagious:0.2", 30, 2)).lp.spec
    eps = 30.0
    kept = scaled_lp(spec, eps, scale=True, mass=True).keep.size
    assert kept < 0.2 * spec.P
    full = kkt_memory.predicted_highs_memory(spec)
    assert kkt_memory.predicted_highs_memory(spec, kept) < full
    budget = (kkt_memory.predicted_highs_memory(spec, kept) + full) / 2
    monkeypatch.setattr(resources, "memory_limits", lambda: {"test budget": budget})
    refused = solve_lp(spec, eps, solver="highs").stats.attempts[0]
    assert refused[0] == "HIGHS" and refused[1].startswith("error: not run: HiGHS would need about")
    sol = solve_lp(spec, eps, solver="highs-mass")
    assert sol.stats.attempts[0][0] == "HIGHS-MASS" and sol.stats.solver == "HIGHS-MASS"
    assert sol.status == "optimal"


def test_scs_prediction_covers_its_measured_peaks():
    """SCS's measured peaks (bytes over the process before it, contagious (0.9; 0.3, 0.7), PD-DP ε = 2: module
    docstring of problems.solvers.kkt_memory) lie below its prediction with room; the sparse-LDLᵀ prediction it
    shared with Clarabel lay below them."""
    measured = {100: 1.30e9, 150: 4.67e9}
    for n, peak in measured.items():
        spec = ReducedPDDP(parse_symmetric_prior("contagious:0.9:0.3,0.7", n, 2)).lp.spec
        assert kkt_memory.predicted_ldl_memory(spec) < peak
        assert kkt_memory.predicted_scs_memory(spec) >= 1.2 * peak


def test_scs_is_refused_between_the_two_predictions(monkeypatch):
    """With a budget above the sparse-LDLᵀ prediction and below SCS's, Clarabel runs and SCS is not started,
    with its reason."""
    from problems.solvers.backends import BackendError, ClarabelBackend, ScsBackend

    spec = ReducedPDDP(parse_symmetric_prior("iid:0.3,0.7", 12, 2)).lp.spec
    low, high = kkt_memory.predicted_ldl_memory(spec), kkt_memory.predicted_scs_memory(spec)
    assert high > low
    monkeypatch.setattr(resources, "memory_limits", lambda: {"test budget": (low + high) / 2})
    with pytest.raises(BackendError, match="not run: SCS would need about .* the memory budget is"):
        ScsBackend().solve(spec, 1.0, time_limit=10.0)
    assert ClarabelBackend().solve(spec, 1.0, time_limit=10.0).z.size == spec.K

"""The mixture sandwich's lower side handed to the joint-type LP (``known_lower``) where the sandwich does not close.

The lower side n Σ_j w_j PD-DP₁(ε; π_j) is rigorous for the exact prior; the LP gets it shrunk by twice the type
law's rounding bound, only at the ε it was proved for, and never under ``method="lp"``.  Checks: the value passed,
that a stale bound of another ε is not used, and the answers against an independently built HiGHS LP.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_reduced_independent_highs import reference as highs_reference  # noqa: E402

from problems.orbit import ReducedPDDP  # noqa: E402
from problems.orbit.mixture_prior import mixture_enclosure  # noqa: E402
from problems.orbit.reduced_lp import ReducedLP  # noqa: E402
from problems.orbit.symmetric_prior import parse_symmetric_prior  # noqa: E402

MIXTURE = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"


@pytest.fixture
def passed(monkeypatch):
    seen: list[float] = []
    real = ReducedLP.solve

    def spy(self, eps, **kwargs):  # noqa: ANN001, ANN003, ANN202
        seen.append(kwargs.get("known_lower", 0.0))
        return real(self, eps, **kwargs)

    monkeypatch.setattr(ReducedLP, "solve", spy)
    return seen


def test_the_lower_side_reaches_the_lp_and_the_answer_is_right(passed) -> None:
    n, eps = 12, 1.0  # between the components' levels: neither theorem closes
    sym = parse_symmetric_prior(MIXTURE, n, 2)
    prog = ReducedPDDP(sym)
    res = prog.solve(eps)
    lower = mixture_enclosure(sym, eps).lower
    assert passed and lower * (1 - 1e-10) <= passed[-1] <= lower
    ref = highs_reference(MIXTURE, n, "pd-dp", eps)
    assert res.status == "optimal"
    assert res.bounds.lower - 1e-7 * ref <= ref <= res.bounds.upper + 1e-7 * ref
    assert abs(res.value - ref) <= 1e-6 * ref


def test_a_bound_of_another_eps_is_never_used(passed) -> None:
    prog = ReducedPDDP(parse_symmetric_prior(MIXTURE, 10, 2))
    prog.solve(0.5)  # below the sandwich's level: the lower side is stashed (constant outputs may answer)
    prog.__dict__["_sandwich_lower"] = (0.5, 1e9)  # a stale, absurd bound
    res = prog.solve(1.0, method="lp")
    assert passed[-1] == 0.0
    prog.__dict__["_sandwich_lower"] = (0.5, 1e9)
    prog.lp.solve(1.0)  # no program in between: nothing passed
    assert res.status == "optimal"
    assert abs(res.value - highs_reference(MIXTURE, 10, "pd-dp", 1.0)) <= 1e-6 * res.value

"""The solve-choice names left over: the reduced programs' ``backend=`` (now ``solver=``), the model's
``solve(path=)`` (now ``formulation=``/``method=``/``solver=``) and the sweep's ``path`` field (now
``formulation`` and ``method``): the old keywords warn and give the same answers as the new ones.

The values are checked against closed forms (h(ε) of Wang, Ying & Zhang (2016)) where one exists; the
comparisons old-keyword / new-keyword are what a deprecation promises (the same computation).
"""

from __future__ import annotations

import math

import pytest

from problems.database import DatabaseSpace
from problems.errors import InvalidInputError
from problems.orbit import ReducedPDDP, ReducedRPD, symmetric_iid


def _h(eps: float, n: int, m: int) -> float:
    """h(ε) = n / (1 + e^ε/(m−1)): R-PD's optimum (Wang, Ying & Zhang 2016, Lemma 1)."""
    return n / (1.0 + math.exp(eps) / (m - 1))


# ------------------------------------------------------------------------------ reduced programs: backend=
def test_reduced_backend_keyword_warns_and_names_the_first_solver():
    prior = symmetric_iid(4, [0.2, 0.3, 0.5])
    with pytest.warns(DeprecationWarning, match=r"backend='block'.*solver="):
        old = ReducedPDDP(prior, backend="block")
    new = ReducedPDDP(prior, solver="block")
    a, b = old.solve(0.7), new.solve(0.7)
    assert a.stats.attempts[0][0] == b.stats.attempts[0][0] == "BLOCK"
    assert a.value == b.value and a.bounds == b.bounds and a.status == b.status == "optimal"


def test_reduced_backend_keyword_still_checked():
    with pytest.raises(InvalidInputError, match="'nope'"):
        ReducedPDDP(symmetric_iid(3, [0.4, 0.6]), backend="nope")


def test_reduced_rpd_solver_and_old_backend_agree_with_h():
    space = DatabaseSpace(5, 3)
    with pytest.warns(DeprecationWarning, match="backend="):
        old = ReducedRPD(space, backend="cvxpy").solve(1.3, method="lp")
    new = ReducedRPD(space, solver="cvxpy").solve(1.3, method="lp")
    assert old.value == new.value
    assert new.bounds.lower <= _h(1.3, 5, 3) * (1 + 1e-9) and new.bounds.upper >= _h(1.3, 5, 3) * (1 - 1e-9)


def test_reduced_lp_prefer_and_old_backend():
    prog = ReducedPDDP(symmetric_iid(3, [0.2, 0.3, 0.5]))
    with pytest.warns(DeprecationWarning, match="prefer="):
        a = prog.lp.solve(0.9, backend="clarabel")
    b = prog.lp.solve(0.9, prefer="clarabel")
    assert a.value == b.value and a.bounds == b.bounds
    with pytest.raises(InvalidInputError, match="prefer must be one of"):
        prog.lp.solve(0.9, prefer="highs")

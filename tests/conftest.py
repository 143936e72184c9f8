"""Shared fixtures; factories live in :mod:`problems.testing`."""

import numpy as np
import pytest

from problems import DatabaseSpace


@pytest.fixture
def space32() -> DatabaseSpace:
    return DatabaseSpace(3, 2)


def _highs_optimum(spec, eps: float) -> float:  # noqa: ANN001
    """The optimum of a ratio LP spec at ε from one plain SciPy/HiGHS call (a solver independent of the
    toolkit's back ends and certificate), with tight feasibility tolerances."""
    from scipy.optimize import linprog

    res = linprog(
        spec.c,
        A_ub=spec.ratio_matrix(eps),
        b_ub=np.zeros(spec.P),
        A_eq=spec.A,
        b_eq=spec.b,
        bounds=(0, None),
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    assert res.status == 0, res.message
    return float(res.fun)


@pytest.fixture
def highs_optimum():
    """``highs_optimum(spec, eps)``: the HiGHS reference optimum of a ratio LP spec."""
    return _highs_optimum

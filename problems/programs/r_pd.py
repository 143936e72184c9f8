r"""R-PD: the relaxed privacy–distortion program (paper 002, (20)–(24)).

Relaxing PD-I's marginal constraint (11) to total mass one (23) gives, in the joint q (notes §1),

.. math::

    D^*_{\mathrm{relaxed}}(\epsilon) = \min_{q\ge 0} \sum_{x,y} q(x,y) d(x,y)
    \ \text{s.t.}\ q(x,y) \le e^{\epsilon} q(x',y)\ (x \sim x'),\ \textstyle\sum_{x,y} q(x,y) = 1,

whose optimum is :math:`h(\epsilon) = n/(1+e^\epsilon/(m-1))` (Lemma 1).  R-PD does not involve the prior;
the optimal joint induces its own input marginal, reported as ``extras["p_x"]``, and the mechanism
:math:`p_{Y|X} = q/p_X` is with respect to it.
"""

from __future__ import annotations

import numpy as np

from ..database import DatabaseSpace
from ..result import SolveResult
from ._lp_result import lp_result
from .ratio_lp import RatioLP

__all__ = ["RPD", "solve_r_pd"]


class RPD:
    """R-PD on a database space, compiled once; :meth:`solve` re-solves for each ε."""

    program = "r-pd"

    def __init__(self, space: DatabaseSpace, *, solver: str | None = None):
        self.space, self.solver = space, solver
        self.lp = RatioLP(space, space.hamming_matrix(), None, program=self.program)

    def solve(self, eps: float, *, solver: str | None = None) -> SolveResult:
        """Minimum of R-PD (= h(ε) by Lemma 1) and an optimal joint."""
        sol = self.lp.solve(eps, solver=solver or self.solver)
        q = np.clip(sol.Z, 0.0, None)
        q = q / q.sum()
        p_x = q.sum(axis=1)
        W = q / p_x[:, None]
        return lp_result(self.program, sol, self.space, W, q, extras={"p_x": p_x})


def solve_r_pd(space: DatabaseSpace, eps: float, *, solver: str | None = None) -> SolveResult:
    """One-shot :class:`RPD` solve."""
    return RPD(space, solver=solver).solve(eps)

r"""PD-DP: the privacy–distortion program under differential privacy (paper 002, (13)–(15)).

.. math::

    D^*_{\mathrm d}(\epsilon) = \min_{p_{Y|X}} \sum_{x,y} p_X(x)\,p_{Y|X}(y|x)\,d(x,y)
    \ \text{s.t.}\ p_{Y|X}(y|x) \le e^{\epsilon} p_{Y|X}(y|x')\ (x\sim x'),\
    \textstyle\sum_y p_{Y|X}(y|x) = 1,\ p_{Y|X} \ge 0.

A linear program in p_{Y|X} (see :mod:`problems.programs.ratio_lp`).  It is feasible for every ε ≥ 0 and
every prior (a constant mechanism is 0-DP), and does not need full support.
"""

from __future__ import annotations

import numpy as np

from ..priors import Prior
from ..result import SolveResult
from ._lp_result import lp_result
from .ratio_lp import RatioLP

__all__ = ["PDDP", "solve_pd_dp"]


class PDDP:
    """PD-DP for a prior, compiled once; :meth:`solve` re-solves for each ε.

    ``distortion_matrix`` defaults to the Hamming distance d(x, y) (the paper's choice).
    """

    program = "pd-dp"

    def __init__(
        self, prior: Prior, *, distortion_matrix: np.ndarray | None = None, solver: str | None = None
    ):
        self.prior, self.space, self.solver = prior, prior.space, solver
        self.d = prior.space.hamming_matrix() if distortion_matrix is None else np.asarray(distortion_matrix)
        self.lp = RatioLP(
            self.space, prior.pmf[:, None] * self.d, np.ones(self.space.size), program=self.program
        )

    def solve(self, eps: float, *, solver: str | None = None) -> SolveResult:
        """Minimum expected distortion D*_d(ε) and an optimal ε-DP mechanism."""
        sol = self.lp.solve(eps, solver=solver or self.solver)
        W = sol.Z
        return lp_result(self.program, sol, self.space, W, self.prior.pmf[:, None] * np.clip(W, 0, None))


def solve_pd_dp(prior: Prior, eps: float, *, solver: str | None = None) -> SolveResult:
    """One-shot :class:`PDDP` solve."""
    return PDDP(prior, solver=solver).solve(eps)

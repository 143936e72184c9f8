r"""R-PD: the relaxed privacy–distortion program (Wang, Ying & Zhang 2016, (20)–(24)).

Relaxing PD-I's marginal constraint (11) to total mass one (23) gives, in the joint q (notes §1),

.. math::

    D^*_{\mathrm{relaxed}}(\epsilon) = \min_{q\ge 0} \sum_{x,y} q(x,y) d(x,y)
    \ \text{s.t.}\ q(x,y) \le e^{\epsilon} q(x',y)\ (x \sim x'),\ \textstyle\sum_{x,y} q(x,y) = 1,

whose optimum is :math:`h(\epsilon) = n/(1+e^\epsilon/(m-1))` (Lemma 1).  By default the theorem path returns
it with the kernel joint e^{−εd}/(N(1+(m−1)e^{−ε})ⁿ), verified; ``method="lp"`` solves the LP.  R-PD does not
involve the prior; the optimal joint induces its own input marginal, reported as ``extras["p_x"]``, and the
mechanism :math:`p_{Y|X} = q/p_X` is with respect to it.
"""

from __future__ import annotations

import numpy as np

from ..closed_forms import apply_kron, check_eps, kernel
from ..database import DatabaseSpace
from ..errors import InvalidInputError
from ..lp.tiny import in_tiny_regime
from ..resources import require_dense_lp
from ..result import SolveResult
from ..solve_choice import METHODS, check_method, method_from_path
from ..solvers.backends import check_solver
from ._lp_result import lp_result, theorem_result
from .ratio_lp import RatioLP
from .theorem import safe_h_lower, small_eps, theorem_point

__all__ = ["RPD", "solve_r_pd"]


class RPD:
    """R-PD on a database space; :meth:`solve` re-solves for each ε."""

    program = "r-pd"

    def __init__(self, space: DatabaseSpace, *, solver: str | None = None):
        if not isinstance(space, DatabaseSpace):
            raise InvalidInputError(f"R-PD needs a DatabaseSpace, got {type(space).__name__}")
        require_dense_lp(space, "R-PD")
        self.space, self.solver = space, solver
        check_solver(solver)
        self.lp = RatioLP(space, space.hamming_matrix(), None, program=self.program)

    @staticmethod
    def _split(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p_x = q.sum(axis=1)
        return p_x, q / p_x[:, None]

    def solve(
        self, eps: float, *, solver: str | None = None, method: str = "auto", path: str | None = None
    ) -> SolveResult:
        """Minimum of R-PD (= h(ε) by Lemma 1) and an optimal joint, with proved bounds.  ``method`` and
        ``solver``: :mod:`problems.dispatch` (``path``: deprecated)."""
        if path is not None:  # the deprecated name of method=
            method = method_from_path(method, path)
        eps = check_eps(eps)
        n, m, N = self.space.n, self.space.m, self.space.size
        lower = safe_h_lower(eps, n, m)
        if eps == 0.0 or small_eps(eps, n):
            # q(·, y) constant in x: every such joint has distortion h(0); the uniform one, exactly.  It is
            # feasible at every ε, and h(ε) ≥ its distortion·(1 − ε) is the lower bound at nε ≤ 1e-7.
            q = np.full((N, N), 1.0 / (N * N))
            p_x, W = self._split(q)
            from ..lp import Bounds

            h0 = safe_h_lower(0.0, n, m) / (1.0 - 1e-13)
            return theorem_result(
                self.program,
                eps,
                self.space,
                W,
                p_x,
                h0,
                Bounds(lower, h0 * (1 + 1e-13)),
                "Wang, Ying & Zhang (2016) Lemma 1 at ε = 0 (columns of q constant in x)"
                if eps == 0.0
                else "0 < nε ≤ 1e-7: the ε = 0 optimum (columns of q constant in x, distortion h(0)) is "
                "feasible, and h(ε) is a lower bound (Wang, Ying & Zhang 2016 Lemma 1)",
                extras={"p_x": p_x},
            )
        if method not in METHODS:
            check_method(method)  # bad input naming the valid methods
        if method != "lp" and not in_tiny_regime(self.lp.spec, eps):  # large ε: lp.tiny answers
            q0 = apply_kron(kernel(eps, m), np.eye(N), n) / N
            got = theorem_point(self.lp.spec, eps, q0.ravel(), lower)
            if got is not None:
                z, bounds = got
                q = z.reshape(N, N) / z.sum()
                p_x, W = self._split(q)
                return theorem_result(
                    self.program,
                    eps,
                    self.space,
                    W,
                    p_x,
                    float(self.lp.spec.c @ z),
                    bounds,
                    "Wang, Ying & Zhang (2016) Lemma 1 (R-PD = h(ε), kernel joint; R-PD has no prior: the input marginal is a "
                    "variable)",
                    extras={"p_x": p_x},
                )
            if method == "theorem":
                raise InvalidInputError("the kernel joint could not be verified at this ε; use method='lp'")
        sol = self.lp.solve(eps, solver=solver or self.solver, known_lower=lower)
        q = sol.Z / sol.Z.sum()
        p_x, W = self._split(q)
        return lp_result(self.program, sol, self.space, W, p_x, extras={"p_x": p_x})


def solve_r_pd(space: DatabaseSpace, eps: float, *, solver: str | None = None) -> SolveResult:
    """One-shot :class:`RPD` solve."""
    return RPD(space, solver=solver).solve(eps)

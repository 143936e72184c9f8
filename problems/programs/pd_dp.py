r"""PD-DP: the privacy–distortion program under differential privacy (Wang, Ying & Zhang 2016, (13)–(15)).

.. math::

    D^*_{\mathrm d}(\epsilon) = \min_{p_{Y|X}} \sum_{x,y} p_X(x)\,p_{Y|X}(y|x)\,d(x,y)
    \ \text{s.t.}\ p_{Y|X}(y|x) \le e^{\epsilon} p_{Y|X}(y|x')\ (x\sim x'),\
    \textstyle\sum_y p_{Y|X}(y|x) = 1,\ p_{Y|X} \ge 0.

A linear program in p_{Y|X} (see :mod:`problems.programs.ratio_lp`).  It is feasible for every ε ≥ 0 and
every prior (a constant mechanism is 0-DP), and does not need full support.

*Theorem path* (:mod:`problems.programs.theorem`): for the uniform prior the optimum is h(ε) with E_d
(Lemma 5 and Theorem 1 (19)); at ε = 0 it is the best constant mechanism.  Every other LP solve carries
Theorem 1's lower bound h(ε + ε_X) as a known bound.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidInputError
from ..lp.tiny import in_tiny_regime
from ..mechanism import exponential_mechanism
from ..prior_constants import eps_X
from ..priors import Prior, require_prior
from ..resources import require_dense_lp
from ..result import SolveResult
from ..solve_choice import METHODS, check_method, method_from_path
from ..solvers.backends import check_solver
from ._lp_result import lp_result, theorem_result, verified_theorem_result
from .ratio_lp import RatioLP
from .theorem import SMALL_EPS_THEOREM, best_constant, constant_lower, safe_h_lower, small_eps

__all__ = ["PDDP", "solve_pd_dp", "PATHS"]

#: ``method=`` of the programs (:mod:`problems.dispatch`): the theorem path where it applies (auto), always
#: the LP, or only a theorem.  (The old name of :data:`problems.solve_choice.METHODS`.)
PATHS = METHODS


def check_path(path: str) -> str:
    """``path`` if it is one of :data:`PATHS` (the methods), else bad input."""
    return check_method(path)


class PDDP:
    """PD-DP for a prior; :meth:`solve` re-solves for each ε.

    ``distortion_matrix`` defaults to the Hamming distance d(x, y) (the paper's choice).
    """

    program = "pd-dp"

    def __init__(
        self, prior: Prior, *, distortion_matrix: np.ndarray | None = None, solver: str | None = None
    ):
        prior = require_prior(prior, "PD-DP")
        if distortion_matrix is None:
            require_dense_lp(prior.space, "PD-DP")
        self.prior, self.space, self.solver = prior, prior.space, solver
        check_solver(solver)
        self.hamming = distortion_matrix is None
        self.d = prior.space.hamming_matrix() if distortion_matrix is None else np.asarray(distortion_matrix)
        self.cost = prior.pmf[:, None] * self.d
        self.eps_X = eps_X(prior) if prior.has_full_support else np.inf
        self.lp = RatioLP(self.space, self.cost, np.ones(self.space.size), program=self.program)

    def _theorem(self, eps: float) -> SolveResult | None:
        n, m = self.space.n, self.space.m
        if eps == 0.0 or small_eps(eps, n):
            return constant_result(self.program, self.space, self.prior.pmf, self.cost, eps)
        if self.hamming and self.prior.kind == "uniform":
            E = exponential_mechanism(self.space, eps).matrix
            return verified_theorem_result(
                self.program,
                eps,
                self.lp,
                self.prior.pmf,
                E,
                safe_h_lower(eps, n, m),
                "Wang, Ying & Zhang (2016) Lemma 5 (E_d) and Theorem 1 (19) with ε_X = 0",
            )
        return None

    def solve(
        self, eps: float, *, solver: str | None = None, method: str = "auto", path: str | None = None
    ) -> SolveResult:
        """Minimum expected distortion D*_d(ε) and an optimal ε-DP mechanism, with proved bounds.

        ``method`` and ``solver`` are the solve choice of :mod:`problems.dispatch`; ``path`` is the deprecated
        name of ``method``."""
        from ..closed_forms import check_eps

        if path is not None:  # the deprecated name of method=
            method = method_from_path(method, path)
        eps = check_eps(eps)
        tiny = in_tiny_regime(self.lp.spec, eps)  # large ε: the LP answers without solving (lp.tiny)
        at_zero = eps == 0.0 or small_eps(eps, self.space.n)  # ε = 0: no interior, always the theorem
        if method not in METHODS:
            check_method(method)  # bad input naming the valid methods
        if (method != "lp" or at_zero) and not tiny:
            res = self._theorem(eps)
            if res is not None:
                return res
            if method == "theorem":
                raise InvalidInputError(
                    "no theorem of Wang, Ying & Zhang (2016) gives PD-DP in closed form for this prior and ε"
                )
        known = 0.0
        if self.hamming and np.isfinite(self.eps_X):
            known = safe_h_lower(eps + self.eps_X, self.space.n, self.space.m)
        sol = self.lp.solve(eps, solver=solver or self.solver, known_lower=known)
        W = sol.Z
        return lp_result(self.program, sol, self.space, W, self.prior.pmf)


def constant_result(
    program: str,
    space,  # noqa: ANN001
    pmf: np.ndarray,
    cost: np.ndarray,
    eps: float = 0.0,
) -> SolveResult:
    """ε = 0: every 0-DP mechanism has equal rows (the neighbour graph is connected), so the optimum is the
    best constant mechanism, all mass on y* = argmin_y Σ_x C(x, y); exactly feasible as constructed.

    At 0 < nε ≤ 1e-7 the same mechanism is returned with the lower bound of :func:`constant_lower`."""
    from ..lp import Bounds

    y, lo, up = best_constant(cost)
    basis = "ε = 0: a 0-DP mechanism has equal rows; the best constant mechanism"
    if eps > 0:
        lo, basis = constant_lower(lo, eps, space.n), SMALL_EPS_THEOREM
    W = np.zeros((space.size, space.size))
    W[:, y] = 1.0
    return theorem_result(program, eps, space, W, pmf, float(cost[:, y].sum()), Bounds(lo, up), basis)


def solve_pd_dp(prior: Prior, eps: float, *, solver: str | None = None) -> SolveResult:
    """One-shot :class:`PDDP` solve."""
    return PDDP(prior, solver=solver).solve(eps)

r"""The linear program shared by PD-DP, PD-I and R-PD (Wang, Ying & Zhang 2016), on the LP core of :mod:`problems.lp`.

All three are, in a suitable variable :math:`Z \in \mathbb{R}^{N\times N}_{\ge 0}` (row = input database x,
column = output y), the linear program

.. math::

    \min_Z \sum_{x,y} C(x,y) Z(x,y) \quad\text{s.t.}\quad
    Z(x,y) \le e^{\epsilon}\kappa_{xx'} Z(x',y)\ \ \forall x\sim x',\ \forall y,\qquad
    \text{(normalisation)},\qquad Z \ge 0,

with the normalisation either row sums :math:`\sum_y Z(x,y) = \rho(x)` or a total :math:`\sum_{x,y}Z = 1`:

=======  ======================  ======================  =====================  ==================
program  variable Z              cost C                  normalisation          paper
=======  ======================  ======================  =====================  ==================
PD-DP    p_{Y|X}(y|x)            p_X(x) d(x,y)           rows sum to 1          (13)–(15)
PD-I     W = q/p_X               p_X(x) d(x,y)           rows sum to 1          (8)–(12), κ = p_X(x')/p_X(x)
R-PD     joint q(x,y)            d(x,y)                  total mass 1           (20)–(24), notes §1
=======  ======================  ======================  =====================  ==================

:class:`RatioLP` builds the :class:`~problems.lp.spec.RatioLPSpec` once (:func:`~problems.lp.spec.dense_spec`)
and solves it through the chain of :func:`problems.solvers.solve`: every answer is repaired to an exactly
feasible point and bounded from below by a safe dual bound; ``status`` is ``optimal`` only when the bounds
agree to 1e-6 relative (``docs/certificates.md``).  At ε so large that the optimum is below the absolute
tolerance of the status rule, no LP is solved (:mod:`problems.lp.tiny`).
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from .._lazy import deprecated_aliases
from ..closed_forms import check_eps
from ..database import DatabaseSpace
from ..errors import InvalidInputError
from ..lp import dense_spec
from ..lp.solution import LPSolution
from ..lp.tiny import tiny_solution
from ..solvers.chain import solve as solve_lp

__all__ = ["RatioLP"]


#: ``RatioLPSolution``: the old name of :class:`~problems.lp.solution.LPSolution` (deprecated; its Z, ratio_duals, normalisation_duals and nonnegativity_duals remain).
__getattr__ = deprecated_aliases(__name__, {"RatioLPSolution": (LPSolution, "problems.lp.LPSolution")})


class RatioLP:
    """Parametric LP ``min <C, Z>`` under neighbour ratio constraints; see the module docstring.

    Parameters
    ----------
    space:
        The database space (fixes the neighbour pairs).
    cost:
        ``(N, N)`` cost matrix C (non-negative).
    row_mass:
        Right-hand side of the row-sum constraints, or ``None`` for a single total-mass constraint.
    program:
        Program name used in messages.
    pair_log_kappa:
        ln κ per ordered neighbour pair (default 0).
    eps_min:
        The LP has a strictly feasible point for ε > eps_min (ε_X for PD-I).
    """

    def __init__(
        self,
        space: DatabaseSpace,
        cost: np.ndarray,
        row_mass: np.ndarray | None,
        *,
        program: str,
        pair_log_kappa: np.ndarray | None = None,
        eps_min: float = 0.0,
    ) -> None:
        self.space, self.program, self.N = space, program, space.size
        self.spec = dense_spec(
            space, cost, program=program, row_mass=row_mass, pair_log_kappa=pair_log_kappa, eps_min=eps_min
        )
        self.pairs = space.neighbour_pairs
        self.last: LPSolution | None = None

    def solve(
        self,
        eps: float,
        *,
        solver: str | None = None,
        method: str | None = None,
        time_limit: float | None = None,
        known_lower: float = 0.0,
    ) -> LPSolution:
        """Solve at privacy level ε through the chain of back ends.

        ``solver`` names the back end tried first (``clarabel``, ``highs``, ``scs``, ``cvxpy``,
        ``structured``).  ``method`` is deprecated (a ``DeprecationWarning``; removed in the next release):
        ``"structured"`` = ``solver="structured"``, ``"cvxpy"`` = ``solver="cvxpy"``, ``"auto"`` = the default
        chain (structured first from N = 128).
        """
        eps = check_eps(eps)
        if method is not None:
            warnings.warn(
                "RatioLP.solve(method=...) is deprecated: name the back end with solver= "
                "(method= stops working in the next release)",
                DeprecationWarning,
                stacklevel=2,
            )
        else:
            method = "auto"
        if method not in ("auto", "cvxpy", "structured"):
            raise InvalidInputError(f"method must be 'auto', 'cvxpy' or 'structured', got {method!r}")
        if solver is None and method != "auto":
            solver = method
        tiny = tiny_solution(self.spec, eps, known_lower)
        if tiny is not None:  # the optimum is below the absolute tolerance: no LP (problems.lp.tiny)
            return self._store(tiny)
        sol = solve_lp(self.spec, eps, solver=solver, time_limit=time_limit, known_lower=known_lower)
        return self._store(sol)

    def _store(self, sol: LPSolution) -> LPSolution:
        self.last = replace(sol, shape=(self.N, self.N))  # Z and the duals as N × N matrices
        return self.last

    def sensitivity(self, sol: LPSolution | None = None) -> float:
        """dD*/dε at ``sol`` (default: the last solve) by the envelope theorem: −e^ε Σ_k λ_k κ_k Z[j_k].

        One-sided where the active set changes with ε.
        """
        sol = self.last if sol is None else sol
        if sol is None:
            raise InvalidInputError("sensitivity() needs a solution: solve first, or pass sol")
        r = float(np.exp(sol.eps))
        z = sol.Z.ravel()
        return -r * float(sol.ratio_duals.ravel() @ (self.spec.kappa * z[self.spec.dst]))

r"""The one solution type of a ratio LP (:class:`LPSolution`), whatever the formulation that built it.

The LP chain (:func:`problems.lp.solve`), the large-ε answer (:mod:`problems.lp.tiny`), the dense programs
(:class:`problems.programs.ratio_lp.RatioLP`), the orbit-reduced programs
(:class:`problems.orbit.reduced_lp.ReducedLP`) and the theorem paths all return it.  For the LP

.. math::

    \min_z c^\top z \quad\text{s.t.}\quad \textstyle\sum_{j \in g} z_j = b_g,\qquad
    z_{s_p} \le e^\epsilon\kappa_p z_{d_p},\qquad z \ge 0,

it holds the exactly feasible point z, the multipliers ν (one per group), λ ≥ 0 (one per ratio row) and the
reduced costs :math:`d = c + G^\top\lambda + A^\top\nu`, the rigorous bounds and the status decided by
:func:`problems.lp.status.decide_status`.  A dense program stores its (N, N) shape, so that :attr:`LPSolution.Z`
and the dual views come back as matrices.  This module does not import CVXPY.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ..certificate import Certificate
from ..solvers.stats import SolverStats
from .bounds import Bounds
from .status import Status, decide_status

__all__ = ["LPSolution", "with_objective_error"]


@dataclass(frozen=True, eq=False)
class LPSolution:
    """The answer of a ratio LP at one ε.

    Attributes
    ----------
    z:
        The exactly feasible point whose objective is the upper bound (its exact normalisation; see
        :func:`problems.lp.bounds.verify`); when none could be proved (``bounds.upper = inf``), the back
        end's point, normalised but unverified.
    value:
        c'z (floating point).
    bounds:
        Rigorous ``lower ≤ optimum ≤ upper``.
    status:
        :class:`~problems.lp.status.Status` (decided by :func:`~problems.lp.status.decide_status`).
    nu, lam, reduced_costs:
        The multipliers that gave the lower bound (ν per group, λ ≥ 0 per ratio row, d = c + Gᵀλ + Aᵀν).
    certificate:
        Residuals and bounds in the toolkit's :class:`~problems.certificate.Certificate`.
    stats:
        Back end used, time, iterations and every attempt.
    eps:
        The privacy level.
    mix:
        Weight of the reference point mixed into the back end's point by the exact repair.
    shape:
        ``(N, K)`` of a dense program's matrix variable (:attr:`Z`), ``None`` for a vector variable.
    """

    z: np.ndarray
    value: float
    bounds: Bounds
    status: Status
    nu: np.ndarray
    lam: np.ndarray
    reduced_costs: np.ndarray
    certificate: Certificate
    stats: SolverStats
    eps: float
    mix: float
    shape: tuple[int, int] | None = None

    # ---------------------------------------------------------------- views in the programs' vocabulary
    @property
    def Z(self) -> np.ndarray:  # noqa: N802 - the matrix variable of the paper
        """The point as the (N, K) matrix of a dense program (``z`` itself without a shape)."""
        z = self.z if self.z is not None else np.full(int(np.prod(self.shape or (0,))), np.nan)
        return z.reshape(self.shape) if self.shape is not None else z

    @property
    def u(self) -> np.ndarray:
        """The point of an orbit-reduced program (``z``)."""
        return self.z

    @property
    def normalisation_duals(self) -> np.ndarray:
        """ν: one multiplier per normalisation row (``eq_duals``)."""
        return self.nu

    eq_duals = normalisation_duals

    @cached_property
    def ratio_duals(self) -> np.ndarray:
        """λ ≥ 0 per ratio row; ``(P/K, K)`` (one row per neighbour pair) for a dense program."""
        return self.lam.reshape(-1, self.shape[1]) if self.shape is not None else self.lam

    @cached_property
    def nonnegativity_duals(self) -> np.ndarray:
        """The reduced costs clipped at 0 (the multipliers of z ≥ 0), shaped like :attr:`Z`."""
        d = np.clip(self.reduced_costs, 0.0, None)
        return d.reshape(self.shape) if self.shape is not None else d

    @property
    def nonneg_duals(self) -> np.ndarray:
        return self.nonnegativity_duals

    @property
    def duals(self) -> dict[str, np.ndarray]:
        """The multipliers by constraint family, as results report them: ``ratio`` (λ), ``normalisation`` (ν),
        ``nonnegativity`` (the clipped reduced costs)."""
        return {
            "ratio": self.ratio_duals,
            "normalisation": self.normalisation_duals,
            "nonnegativity": self.nonnegativity_duals,
        }


def with_objective_error(sol: LPSolution, rel: float) -> LPSolution:
    r"""``sol`` with its bounds widened for objective coefficients known to a relative error ``rel``.

    The bounds of an answer are rigorous for the LP the back end saw, whose costs c are floats; where the exact
    costs are :math:`c_t(1 + \theta_t)` with :math:`|\theta_t| \le` ``rel`` (the orbit-reduced programs: the
    type law P(t(X) = t) computed through logarithms), c ≥ 0 and z ≥ 0 give
    :math:`(1 - \text{rel})\,c^\top z \le c_{\text{exact}}^\top z \le (1 + \text{rel})\,c^\top z` for every
    feasible z, so [ℓ − rel·|ℓ|, U + rel·|U|] bounds the exact optimum.  The status is decided again on the
    widened bounds (an answer never becomes ``optimal`` here)."""
    if not rel > 0.0:
        return sol
    lo, up = float(sol.bounds.lower), float(sol.bounds.upper)
    grow = 1.0 + 2.0**-52  # one rounding of each product below
    new = Bounds(lo - rel * abs(lo) * grow, up + rel * abs(up) * grow)
    status = sol.status
    if status is Status.OPTIMAL:
        status = decide_status(new.lower, new.upper)
    cert = replace(sol.certificate, lower_bound=new.lower, upper_bound=new.upper)
    return replace(sol, bounds=new, status=status, certificate=cert)

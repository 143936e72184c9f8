r"""The linear program shared by PD-DP, PD-I and R-PD (paper 002).

All three are, in a suitable variable :math:`Z \in \mathbb{R}^{N\times N}_{\ge 0}` (row = input database x,
column = output y), the linear program

.. math::

    \min_Z \sum_{x,y} C(x,y) Z(x,y) \quad\text{s.t.}\quad
    Z(x,y) \le e^{\epsilon} Z(x',y)\ \ \forall x\sim x',\ \forall y,\qquad
    \text{(normalisation)},\qquad Z \ge 0,

with the normalisation either row sums :math:`\sum_y Z(x,y) = \rho(x)` or a total :math:`\sum_{x,y}Z = 1`.
The ratio constraint may carry a constant per-pair factor, :math:`Z(x,y) \le e^\epsilon \kappa_{xx'} Z(x',y)`:

=======  ======================  ======================  =====================  ==================
program  variable Z              cost C                  normalisation          paper
=======  ======================  ======================  =====================  ==================
PD-DP    p_{Y|X}(y|x)            p_X(x) d(x,y)           rows sum to 1          (13)–(15)
PD-I     joint q(x,y)            d(x,y)                  rows sum to p_X(x)     (8)–(12), notes §1
R-PD     joint q(x,y)            d(x,y)                  total mass 1           (20)–(24), notes §1
=======  ======================  ======================  =====================  ==================

The program is built **once**: :math:`r = e^{\epsilon}` is a CVXPY ``Parameter``, and the ratio constraints
are written as ``S₁ z − r·(S₂ z) ≤ 0`` with sparse selection matrices S₁, S₂ built from the neighbour-pair
index arrays (no loop over pairs), so the problem is DPP and a sweep over ε re-uses the compiled form.
The same sparse matrices give the toolkit's own KKT certificate (:func:`~problems.certificate.lp_certificate`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..certificate import Certificate, ratio_lp_certificate
from ..closed_forms import check_eps
from ..database import DatabaseSpace
from ..errors import InvalidInputError, ShapeMismatchError, SolverFailedError
from ..solver import SolverStats, solve_with_fallback

__all__ = ["RatioLP", "RatioLPSolution", "STRUCTURED_MIN_N", "STRUCTURED_ACCEPT"]

#: ``method="auto"`` uses the structured interior-point method from this many databases on.
STRUCTURED_MIN_N = 128
#: largest KKT measure accepted from the structured method before retrying with CVXPY.
STRUCTURED_ACCEPT = 1e-7


@dataclass(frozen=True)
class RatioLPSolution:
    """Primal and dual values of one solve of a :class:`RatioLP`."""

    Z: np.ndarray  # (N, N)
    value: float
    ratio_duals: np.ndarray  # (P, N): multiplier of Z[i_p, y] <= r Z[j_p, y]
    normalisation_duals: np.ndarray  # (N,) or (1,)
    nonnegativity_duals: np.ndarray  # (N, N)
    certificate: Certificate
    stats: SolverStats
    eps: float


class RatioLP:
    """Parametric LP ``min <C, Z>`` under neighbour ratio constraints; see the module docstring.

    Parameters
    ----------
    space:
        The database space (fixes the neighbour pairs).
    cost:
        ``(N, N)`` cost matrix C.
    row_mass:
        Right-hand side of the row-sum constraints, or ``None`` for a single total-mass constraint.
    program:
        Program name used in messages.
    """

    def __init__(
        self,
        space: DatabaseSpace,
        cost: np.ndarray,
        row_mass: np.ndarray | None,
        *,
        program: str,
        pair_scale: np.ndarray | None = None,
    ) -> None:
        space.require_dense()
        N = space.size
        cost = np.asarray(cost, dtype=float)
        if cost.shape != (N, N):
            raise ShapeMismatchError(f"cost matrix must be {N}×{N} for {space}, got {cost.shape}")
        self.space, self.program, self.N = space, program, N
        self.cost = cost
        pi, pj = space.neighbour_pairs
        self.pairs = (pi, pj)
        P = pi.size
        cols = np.arange(N)
        rows = np.arange(P * N)
        # flat index of Z[x, y] is x*N + y; constraint row p*N + y compares Z[i_p, y] with Z[j_p, y]
        self.S1 = sp.csr_matrix(
            (np.ones(P * N), (rows, (pi[:, None] * N + cols).ravel())), shape=(P * N, N * N)
        )
        kappa = np.ones(P) if pair_scale is None else np.asarray(pair_scale, dtype=float)
        if kappa.shape != (P,):
            raise ShapeMismatchError(
                f"pair_scale must have one entry per neighbour pair ({P}), got {kappa.shape}"
            )
        self.kappa = kappa
        self.row_mass = None if row_mass is None else np.asarray(row_mass, dtype=float)
        self.S2 = sp.csr_matrix(
            (np.repeat(kappa, N), (rows, (pj[:, None] * N + cols).ravel())), shape=(P * N, N * N)
        )
        if row_mass is None:
            self.A = sp.csr_matrix(np.ones((1, N * N)))
            self.b = np.ones(1)
        else:
            self.A = sp.kron(sp.eye(N, format="csr"), np.ones((1, N)), format="csr")
            self.b = np.asarray(row_mass, dtype=float)
        self.c = cost.ravel()

        start = time.perf_counter()
        self._r = cp.Parameter(nonneg=True, name="exp_eps")
        self._z = cp.Variable(N * N, name="Z")
        self._ratio = self.S1 @ self._z - self._r * (self.S2 @ self._z) <= 0
        self._norm = self.A @ self._z == self.b
        self._nonneg = self._z >= 0
        self.problem = cp.Problem(cp.Minimize(self.c @ self._z), [self._ratio, self._norm, self._nonneg])
        self.build_time = time.perf_counter() - start
        self._compiled = False
        self.last: RatioLPSolution | None = None

    def solve(
        self,
        eps: float,
        *,
        solver: str | None = None,
        infeasible_reason: Callable[[], str] | None = None,
        method: str = "auto",
    ) -> RatioLPSolution:
        """Solve at privacy level ε.

        ``method``: ``"cvxpy"`` — the compiled CVXPY problem (only the parameter changes between solves);
        ``"structured"`` — the block-angular interior-point method of :mod:`.structured_lp` (row-normalised
        LPs only); ``"auto"`` — structured when the LP is row-normalised, N ≥ :data:`STRUCTURED_MIN_N` and no
        ``solver`` is named, else CVXPY.  A structured solve that fails, or whose certificate exceeds
        :data:`STRUCTURED_ACCEPT`, is retried with CVXPY (recorded in ``stats.attempts``).
        """
        eps = check_eps(eps)
        if method not in ("auto", "cvxpy", "structured"):
            raise InvalidInputError(f"method must be 'auto', 'cvxpy' or 'structured', got {method!r}")
        r = float(np.exp(eps))
        prior_attempts: tuple[tuple[str, str], ...] = ()
        use_structured = method == "structured" or (
            method == "auto" and self.row_mass is not None and self.N >= STRUCTURED_MIN_N and solver is None
        )
        if use_structured:
            from .structured_lp import SOLVER_NAME, solve_ratio_lp_structured

            try:
                z, nu, lam_ratio, s, iters, seconds = solve_ratio_lp_structured(self, eps)
            except SolverFailedError as exc:
                prior_attempts = tuple(exc.attempts)
            else:
                cert = self._certificate(z, nu, lam_ratio, s, r)
                if cert.max_residual <= STRUCTURED_ACCEPT:
                    stats = SolverStats(SOLVER_NAME, seconds, 0.0, iters, ((SOLVER_NAME, "optimal"),))
                    return self._store(z, nu, lam_ratio, s, cert, stats, eps)
                prior_attempts = (
                    (SOLVER_NAME, f"certificate {cert.max_residual:.1e} > {STRUCTURED_ACCEPT:g}"),
                )
        self._r.value = r
        t0 = time.perf_counter()
        stats = solve_with_fallback(
            self.problem, program=self.program, solver=solver, lp=True, infeasible_reason=infeasible_reason
        )
        wall = time.perf_counter() - t0
        compile_time = max(0.0, wall - stats.solve_time) if not self._compiled else 0.0
        self._compiled = True
        stats = SolverStats(
            stats.solver,
            stats.solve_time,
            compile_time,
            stats.iterations,
            prior_attempts + tuple(stats.attempts),
        )
        z = np.asarray(self._z.value, dtype=float)
        lam_ratio = np.asarray(self._ratio.dual_value, dtype=float)
        nu = np.atleast_1d(np.asarray(self._norm.dual_value, dtype=float))
        s = np.asarray(self._nonneg.dual_value, dtype=float)
        cert = self._certificate(z, nu, lam_ratio, s, r)
        return self._store(z, nu, lam_ratio, s, cert, stats, eps)

    def _certificate(
        self, z: np.ndarray, nu: np.ndarray, lam_ratio: np.ndarray, s: np.ndarray, r: float
    ) -> Certificate:
        """The toolkit's KKT certificate of (z, ν, λ, s) at r = e^ε (G stacks the ratio rows and −I)."""
        return ratio_lp_certificate(
            self.c,
            z,
            A=self.A,
            b=self.b,
            nu=nu,
            S1=self.S1,
            S2=self.S2,
            r=r,
            lam_ratio=lam_ratio,
            lam_nonneg=s,
        )

    def _store(
        self,
        z: np.ndarray,
        nu: np.ndarray,
        lam_ratio: np.ndarray,
        s: np.ndarray,
        cert: Certificate,
        stats: SolverStats,
        eps: float,
    ) -> RatioLPSolution:
        self.last = RatioLPSolution(
            Z=z.reshape(self.N, self.N),
            value=float(self.c @ z),
            ratio_duals=lam_ratio.reshape(-1, self.N),
            normalisation_duals=nu,
            nonnegativity_duals=s.reshape(self.N, self.N),
            certificate=cert,
            stats=stats,
            eps=eps,
        )
        return self.last

    def sensitivity(self, sol: RatioLPSolution | None = None) -> float:
        """dD*/dε at ``sol`` (default: the last solve) by the envelope theorem: −e^ε Σ_k λ_k (S₂z)_k.

        One-sided where the active set changes with ε.
        """
        sol = self.last if sol is None else sol
        r = float(np.exp(sol.eps))
        return -r * float(sol.ratio_duals.ravel() @ (self.S2 @ sol.Z.ravel()))

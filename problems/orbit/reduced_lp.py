r"""The orbit-reduced ratio LP, built with scipy.sparse and solved by Clarabel (directly or through CVXPY).

Every reduced program of this package is an LP of the form

.. math::

    \min_{u}\ c^\top u \quad\text{s.t.}\quad A u = b,\qquad
    u_{s_p} - e^{\epsilon}\kappa_p\, u_{d_p} \le 0\ \ (p = 1..P),\qquad u \ge 0,

where p runs over the *moves* of :class:`~problems.orbit.types.JointTypes` (or over the distance chain),
:math:`\kappa_p > 0` are fixed coefficients and only :math:`r = e^\epsilon` changes between solves.  In the
certificate's notation (:func:`problems.certificate.lp_certificate`) ``G = [S₁ − r·diag(κ)S₂; −I]``, ``h = 0``.

Three back ends:

``"clarabel"`` (default)
    builds the stacked constraint matrix once in CSC form and, for each ε, only rewrites the ``−rκ_p`` entries
    in place (a fixed permutation maps them into the CSC data array); then calls ``clarabel.DefaultSolver``.
    No modelling-layer compile at all.
``"cvxpy"``
    the same LP as a DPP CVXPY problem with a ``Parameter`` r, solved through
    :func:`problems.solver.solve_with_fallback` (Clarabel, then the fallbacks).  Compile time grows with the
    number of constraints; ``benchmarks/bench_orbit.py`` measures both.
``"block"``
    the block-angular interior-point method of :mod:`problems.orbit.block_ipm` (dense Cholesky per block of
    joint types with one y-type).  Its solution is certified here like any other; if the method fails or its
    certificate exceeds :data:`BLOCK_ACCEPT`, the LP is solved again by the ``"clarabel"`` back end (both
    attempts are recorded in ``stats.attempts``).  The reduced programs choose it for m ≥ 3 and large LPs,
    where Clarabel's sparse LDLᵀ fills the (6-D lattice) blocks almost completely.

Both return the primal u and multipliers in CVXPY's sign convention (Lagrangian c'u + ν'(Au − b) + λ'(Gu − h),
λ ≥ 0), from which the toolkit computes its own KKT certificate.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..certificate import Certificate, lp_certificate, ratio_lp_certificate
from ..closed_forms import check_eps
from ..errors import InfeasibleProgramError, InvalidInputError, ProblemTooLargeError, SolverFailedError
from ..solver import SolverStats, solve_with_fallback

__all__ = [
    "ReducedLP",
    "ReducedLPSolution",
    "BACKENDS",
    "BLOCK_ACCEPT",
    "CLARABEL_SETTINGS",
    "IMPLIED_NONNEG_MIN_EPS",
    "SMALL_LP_SIZE",
    "SMALL_LP_TOLERANCE",
]

BACKENDS = ("clarabel", "block", "cvxpy")

#: The ``"block"`` back end's answer is kept when the toolkit's certificate of it is at most this
#: (× max(1, |value|)); otherwise Clarabel solves the LP again.
BLOCK_ACCEPT = 1e-8

#: Clarabel settings of the direct back end.  Tolerances 1e-8 give toolkit certificates ~1e-9 on the
#: joint-type LPs (the issue asks for ≤ 1e-7); 1e-9 costs ~30 % and 1e-10 ~60 % more iterations there and
#: often ends "AlmostSolved" (measured, ``docs/orbit_reduction.md`` §6).  Presolve off (nothing to remove
#: here) and a longer step to the boundary (0.995) save a few iterations.  The LDL back end is pinned to
#: QDLDL: "auto" picks faer in this Clarabel build, 1.3× slower for m = 2 and 4× slower for m = 3 here.  Override per LP with ``ReducedLP(settings=...)``.
CLARABEL_SETTINGS: dict[str, float | int | bool] = {
    "tol_gap_abs": 1e-8,
    "tol_gap_rel": 1e-8,
    "tol_feas": 1e-8,
    "tol_ktratio": 1e-6,
    "max_iter": 400,
    "max_step_fraction": 0.995,
    "direct_solve_method": "qdldl",
    "presolve_enable": False,
    "verbose": False,
}

#: LPs with at most this many variables are solved with the tighter tolerance ``SMALL_LP_TOLERANCE`` (cheap
#: there; values then agree with the dense path to ~1e-10 instead of ~1e-8).
SMALL_LP_SIZE = 20_000
SMALL_LP_TOLERANCE = 1e-10

#: From this ε on, the direct back end omits the rows u ≥ 0 when they are implied (see :class:`ReducedLP`).
IMPLIED_NONNEG_MIN_EPS = 0.05


@dataclass(frozen=True)
class ReducedLPSolution:
    """Primal/dual values of one solve of a :class:`ReducedLP`."""

    u: np.ndarray
    value: float
    eq_duals: np.ndarray  # ν (one per equality)
    ratio_duals: np.ndarray  # λ ≥ 0 (one per move)
    nonneg_duals: np.ndarray  # λ ≥ 0 (one per variable)
    certificate: Certificate
    stats: SolverStats
    eps: float


class ReducedLP:
    """``min c'u`` s.t. ``A u = b``, ``u[src] ≤ e^ε κ u[dst]``, ``u ≥ 0`` (see the module docstring).

    Parameters
    ----------
    c:
        Objective (length K).
    A, b:
        Equality constraints (sparse ``(E, K)`` and length E).
    src, dst, log_kappa:
        The ratio constraints ``u[src_p] ≤ e^ε · exp(log_kappa_p) · u[dst_p]``.
    program:
        Program name for messages.
    drop_implied_nonneg:
        If true (default), the direct back end omits the K rows ``u ≥ 0`` for ε ≥ ``IMPLIED_NONNEG_MIN_EPS``
        when they are implied.  They are implied when every variable is the source of some move p whose
        reverse move p' (dst ↔ src) also exists with κ_p κ_p' = 1: then
        u_s ≤ rκ_p u_d ≤ r²κ_pκ_p' u_s = r² u_s, i.e. (1 − r²) u_s ≤ 0, so u_s ≥ 0 for r = e^ε > 1.  This
        holds for every move set of this package (moves come in reverse pairs, and the PD-I factor
        p_X(x')/p_X(x) is inverted by the reverse move).  The LP keeps the same feasible set; the KKT system
        loses K rows and Clarabel needs fewer iterations (measured ~25 % less time).  The certificate is
        still computed for the LP *with* ``u ≥ 0`` (multipliers 0), so it certifies the original LP.
    """

    def __init__(
        self,
        c: np.ndarray,
        A: sp.spmatrix,
        b: np.ndarray,
        src: np.ndarray,
        dst: np.ndarray,
        log_kappa: np.ndarray,
        *,
        program: str,
        balance: bool = True,
        log_scale: Callable[[float], np.ndarray] | None = None,
        settings: dict | None = None,
        drop_implied_nonneg: bool = True,
    ) -> None:
        start = time.perf_counter()
        self.program = program
        self.c = np.asarray(c, dtype=float)
        self.K = self.c.size
        self.A = sp.csr_matrix(A)
        self.b = np.asarray(b, dtype=float)
        self.src = np.asarray(src, dtype=np.int64)
        self.dst = np.asarray(dst, dtype=np.int64)
        log_kappa = np.asarray(log_kappa, dtype=float)
        self.kappa = np.exp(log_kappa)
        # Row balancing: row p is divided by sqrt(κ_p), so its two coefficients are κ_p^{∓1/2} (same LP).
        self.row_scale = np.exp(-0.5 * log_kappa) if balance else np.ones_like(log_kappa)
        P = self.src.size
        self.P = P
        rows = np.arange(P)
        self.S1 = sp.csr_matrix((self.row_scale, (rows, self.src)), shape=(P, self.K))
        self.S2k = sp.csr_matrix(
            (self.row_scale * self.kappa, (rows, self.dst)), shape=(P, self.K)
        )  # diag(s·κ) S₂
        # Stacked Clarabel matrix [A; S1 - r S2k; -I] with a permutation from COO order to CSC data.
        Acoo = self.A.tocoo()
        E = self.A.shape[0]
        self._base = np.concatenate([Acoo.data, self.row_scale, np.zeros(P), -np.ones(self.K)])
        self._rscale = np.concatenate(
            [np.zeros(Acoo.nnz + P), -self.row_scale * self.kappa, np.zeros(self.K)]
        )
        coo_rows = np.concatenate([Acoo.row, E + rows, E + rows, E + P + np.arange(self.K)])
        coo_cols = np.concatenate([Acoo.col, self.src, self.dst, np.arange(self.K)])
        tag = np.arange(1, coo_rows.size + 1, dtype=float)
        M = sp.csc_matrix((tag, (coo_rows, coo_cols)), shape=(E + P + self.K, self.K))
        M.sort_indices()
        self._perm = M.data.astype(np.int64) - 1
        self._M = M
        self.E = E
        self._coo = (Acoo.row, Acoo.col, Acoo.data)
        self.log_scale = log_scale
        tight = {}
        if self.K <= SMALL_LP_SIZE:
            tight = {k: SMALL_LP_TOLERANCE for k in ("tol_gap_abs", "tol_gap_rel", "tol_feas")}
        self.settings = {**CLARABEL_SETTINGS, **tight, **(settings or {})}
        self.nonneg_implied = bool(drop_implied_nonneg) and self._nonneg_implied(log_kappa)
        self.build_time = time.perf_counter() - start
        self._cvx: tuple | None = None

    # ---------------------------------------------------------------- helpers
    def _nonneg_implied(self, log_kappa: np.ndarray) -> bool:
        """True if every variable is the source of a move whose reverse exists with κ_p κ_p' = 1."""
        if self.P == 0 or not np.all(np.isfinite(log_kappa)):
            return False
        from ..programs.structured_lp import reverse_pairs

        rev, has_rev = reverse_pairs(self.src, self.dst, self.K)
        paired = has_rev & (np.abs(log_kappa + log_kappa[rev]) <= 1e-9)
        covered = np.zeros(self.K, dtype=bool)
        covered[self.src[paired]] = True
        return bool(covered.all())

    def G(self, r: float) -> sp.csr_matrix:
        """The inequality matrix ``[S₁ − r·diag(κ)S₂; −I]`` at r = e^ε."""
        return sp.vstack([self.S1 - r * self.S2k, -sp.eye(self.K, format="csr")], format="csr")

    def certificate(self, u, nu, lam_ratio, lam_nonneg, r: float) -> Certificate:
        """KKT residuals of the reduced LP at (u, ν, λ) (toolkit's own computation)."""
        return ratio_lp_certificate(
            self.c,
            u,
            A=self.A,
            b=self.b,
            nu=nu,
            S1=self.S1,
            S2=self.S2k,
            r=r,
            lam_ratio=lam_ratio,
            lam_nonneg=lam_nonneg,
        )

    # ---------------------------------------------------------------- solving
    def solve(
        self,
        eps: float,
        *,
        backend: str = "clarabel",
        solver: str | None = None,
        infeasible_reason: Callable[[], str] | None = None,
    ) -> ReducedLPSolution:
        """Solve at privacy level ε ≥ 0 with the chosen back end (``"clarabel"`` or ``"cvxpy"``)."""
        eps = check_eps(eps)
        r = float(np.exp(eps))
        if backend == "clarabel":
            return self._clarabel_solution(r, eps, infeasible_reason)
        if backend == "block":
            return self._block_solution(r, eps, infeasible_reason)
        if backend == "cvxpy":
            u, nu, lr, ln, stats = self._solve_cvxpy(r, solver, infeasible_reason)
            cert = self.certificate(u, nu, lr, ln, r)
            return ReducedLPSolution(u, float(self.c @ u), nu, lr, ln, cert, stats, eps)
        raise InvalidInputError(f"backend must be one of {BACKENDS}, got {backend!r}")

    def _clarabel_solution(self, r: float, eps: float, infeasible_reason, attempts=()) -> ReducedLPSolution:  # noqa: ANN001
        u, nu, lr, ln, stats = self._solve_clarabel(r, infeasible_reason)
        if attempts:
            stats = SolverStats(
                stats.solver,
                stats.solve_time,
                stats.compile_time,
                stats.iterations,
                (*attempts, *stats.attempts),
            )
        if self.log_scale is not None:
            # u holds z = u/s here: certify the LP that was solved (an exact diagonal rescaling), then map back
            sc, cz, Az, Gz = self.scaled(r)
            cert = lp_certificate(
                cz, u, A=Az, b=self.b, nu=nu, G=Gz, h=np.zeros(Gz.shape[0]), lam=np.concatenate([lr, ln])
            )
            u = sc * u
        else:
            cert = self.certificate(u, nu, lr, ln, r)
        return ReducedLPSolution(u, float(self.c @ u), nu, lr, ln, cert, stats, eps)

    def _block_solution(self, r: float, eps: float, infeasible_reason) -> ReducedLPSolution:  # noqa: ANN001
        """The block interior-point method, certified; Clarabel again if it fails or is not accurate enough."""
        from .block_ipm import BLOCK_SOLVER_NAME, solve_block_lp

        # the rows u ≥ 0 are left out where they are implied (as for Clarabel): s ≡ 0, no degenerate bounds
        bounded = not (self.nonneg_implied and r >= np.exp(IMPLIED_NONNEG_MIN_EPS))
        try:
            u, nu, lam, ln, iters, secs = solve_block_lp(
                self.c,
                self.A,
                self.b,
                self.src,
                self.dst,
                self.kappa,
                r,
                program=self.program,
                bounded=bounded,
            )
        except (SolverFailedError, ProblemTooLargeError, np.linalg.LinAlgError) as exc:
            reason = "; ".join(w for _, w in exc.attempts) if isinstance(exc, SolverFailedError) else str(exc)
            return self._clarabel_solution(r, eps, infeasible_reason, ((BLOCK_SOLVER_NAME, reason),))
        lr = lam / self.row_scale  # multipliers of the balanced rows s_p(u_s − rκ_p u_d) ≤ 0
        cert = self.certificate(u, nu, lr, ln, r)
        value = float(self.c @ u)
        accepted = cert.max_residual <= BLOCK_ACCEPT * max(1.0, abs(value))
        stats = SolverStats(
            solver=BLOCK_SOLVER_NAME,
            solve_time=float(secs),
            compile_time=0.0,
            iterations=int(iters),
            attempts=((BLOCK_SOLVER_NAME, "Solved"),),
        )
        own = ReducedLPSolution(u, value, nu, lr, ln, cert, stats, eps)
        if accepted:
            return own
        note = f"certificate {cert.max_residual:.1e} above {BLOCK_ACCEPT:g}"
        other = self._clarabel_solution(r, eps, infeasible_reason, ((BLOCK_SOLVER_NAME, note),))
        if self.log_scale is None and cert.max_residual < other.certificate.max_residual:
            # Clarabel did worse on the same LP (it can end "AlmostSolved"): keep the better certified point
            kept = (*other.stats.attempts, (BLOCK_SOLVER_NAME, "kept: smaller certificate than Clarabel's"))
            stats = SolverStats(BLOCK_SOLVER_NAME, float(secs), 0.0, int(iters), kept)
            return ReducedLPSolution(u, value, nu, lr, ln, cert, stats, eps)
        return other

    def _solve_clarabel(self, r: float, infeasible_reason):
        import clarabel

        t0 = time.perf_counter()
        M = self._M.copy()
        c = self.c
        if self.log_scale is None:
            M.data = (self._base + r * self._rscale)[self._perm]
        else:
            c, data = self._scaled_data(r)
            M.data = data[self._perm]
        drop = self.nonneg_implied and r >= np.exp(IMPLIED_NONNEG_MIN_EPS)
        if drop:  # the last K rows are −I (u ≥ 0), implied here: keep the first E + P rows
            M = sp.csc_matrix(M[: self.E + self.P])
            M.sort_indices()
        settings = clarabel.DefaultSettings()
        for key, value in self.settings.items():
            setattr(settings, key, value)
        n_ineq = self.P + (0 if drop else self.K)
        cones = [clarabel.NonnegativeConeT(n_ineq)]
        if self.E:
            cones.insert(0, clarabel.ZeroConeT(self.E))
        bvec = np.concatenate([self.b, np.zeros(n_ineq)])
        P = sp.csc_matrix((self.K, self.K))
        setup = time.perf_counter()
        solver = clarabel.DefaultSolver(P, c, M, bvec, cones, settings)
        sol = solver.solve()
        wall = time.perf_counter() - t0
        status = str(sol.status)
        attempts = (("CLARABEL-direct", status),)
        if "Infeasible" in status and "Dual" not in status:
            reason = infeasible_reason() if infeasible_reason else f"Clarabel reports {status}"
            raise InfeasibleProgramError(self.program, reason)
        if status not in ("Solved", "AlmostSolved"):
            raise SolverFailedError(self.program, list(attempts))
        z = np.asarray(sol.z, dtype=float)
        u = np.asarray(sol.x, dtype=float)
        nu = z[: self.E]
        lr = z[self.E : self.E + self.P]
        ln = np.zeros(self.K) if drop else z[self.E + self.P :]
        stats = SolverStats(
            solver="CLARABEL-direct",
            solve_time=float(sol.solve_time),
            compile_time=float(setup - t0),
            iterations=int(sol.iterations),
            attempts=attempts,
        )
        del wall
        return u, nu, lr, ln, stats

    def scaled(self, r: float) -> tuple[np.ndarray, np.ndarray, sp.csr_matrix, sp.csr_matrix]:
        """``(s, c_z, A_z, G_z)``: the LP in z = u/s actually solved by the direct back end at r = e^ε."""
        if self.log_scale is None:
            return np.ones(self.K), self.c, self.A, self.G(r)
        s = np.exp(self.log_scale(r))
        c, data = self._scaled_data(r)
        M = self._M.copy()
        M.data = data[self._perm]
        M = M.tocsr()
        return s, c, M[: self.E], M[self.E :]

    def _scaled_data(self, r: float) -> tuple[np.ndarray, np.ndarray]:
        """Objective and COO data of the variable-scaled LP (u = s ⊙ z, ratio rows balanced)."""
        assert self.log_scale is not None
        ls = np.asarray(self.log_scale(r), dtype=float)
        s = np.exp(ls)
        rows, cols, adata = self._coo
        # row p: s_src z_src − rκ s_dst z_dst ≤ 0, divided by sqrt(s_src · rκ s_dst): coefficients e^{±ℓ}
        ell = 0.5 * (ls[self.src] - ls[self.dst] - np.log(r) - np.log(self.kappa))
        data = np.concatenate([adata * s[cols], np.exp(ell), -np.exp(-ell), -np.ones(self.K)])
        return self.c * s, data

    def _solve_cvxpy(self, r: float, solver: str | None, infeasible_reason):
        import cvxpy as cp

        first = self._cvx is None
        if first:
            rp = cp.Parameter(nonneg=True, name="exp_eps")
            z = cp.Variable(self.K, name="u")
            ratio = self.S1 @ z - rp * (self.S2k @ z) <= 0
            eq = self.A @ z == self.b
            nonneg = z >= 0
            prob = cp.Problem(cp.Minimize(self.c @ z), [eq, ratio, nonneg])
            self._cvx = (prob, rp, z, eq, ratio, nonneg)
        prob, rp, z, eq, ratio, nonneg = self._cvx
        rp.value = r
        t0 = time.perf_counter()
        stats = solve_with_fallback(
            prob, program=self.program, solver=solver, lp=True, infeasible_reason=infeasible_reason
        )
        wall = time.perf_counter() - t0
        compile_time = max(0.0, wall - stats.solve_time) if first else 0.0
        stats = SolverStats(stats.solver, stats.solve_time, compile_time, stats.iterations, stats.attempts)
        u = np.asarray(z.value, dtype=float)
        nu = np.atleast_1d(np.asarray(eq.dual_value, dtype=float))
        lr = np.asarray(ratio.dual_value, dtype=float)
        ln = np.asarray(nonneg.dual_value, dtype=float)
        return u, nu, lr, ln, stats

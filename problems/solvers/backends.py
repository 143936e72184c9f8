r"""Back ends of the ratio LP, all behind one interface.

Every back end takes a :class:`~problems.lp.spec.RatioLPSpec` and ε and returns a :class:`RawSolution`:
the primal z and multipliers (ν, λ) *in the spec's variables and rows*, with the sign convention of
CVXPY (Lagrangian :math:`c^\top z + \nu^\top(Az-b) + \lambda^\top G z`, λ ≥ 0).  A back end never decides
whether its answer is right: :func:`problems.solvers.chain.solve` certifies it.

========== ==================================================================================
name       method
========== ==================================================================================
CLARABEL   Clarabel's interior-point method, called directly on the stacked sparse matrices
CLARABEL-  the same on the LP scaled by the program's own profile (PD-I: the shape of E_i), where one exists
ALT
HIGHS      HiGHS (dual simplex / IPM) through :func:`scipy.optimize.linprog`
SCS        SCS (first-order, splitting), called directly
CVXPY      the same LP as a DPP CVXPY problem (Parameters for every ε-dependent coefficient),
           solved with Clarabel through CVXPY
STRUCTURED the block-angular interior-point method for dense row-normalised LPs
           (:mod:`problems.ipm.structured`)
BLOCK      the block interior-point method of the joint-type LPs (:mod:`problems.ipm.block`)
========== ==================================================================================

**Scaling for large ε**: the sparse back ends share the scaled form of :mod:`problems.solvers.scaled_lp`.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
import scipy.sparse as sp

from ..errors import InvalidInputError
from ..lp.spec import RatioLPSpec
from . import forked, settings
from .scaled_lp import ScaledLP, drop_nonneg, nonneg_implied, scaled_lp, scales, stacked  # noqa: F401
from .settings import (
    CLARABEL_LP_LOOSE,
    CLARABEL_LP_OPTIONS,
    CLARABEL_LP_TIGHT,
    CVXPY_CLARABEL_LP_OPTIONS,
    DEFAULT_TIME_LIMIT,
    HIGHS_AFTER_BLOCK_FROM,
    HIGHS_LP_OPTIONS,
    HIGHS_MASS_OPTIONS,
    LP_ORDER,
    SCALE_MIN_EPS,
    SCS_LP_OPTIONS,
    SCS_MAX_ITERS,
    SCS_TIME_LIMIT,
    SMALL_LP_SIZE,
    STRUCTURED_MIN_N,
)

__all__ = [
    "RawSolution",
    "BackendError",
    "Backend",
    "BACKENDS",
    "ALIASES",
    "SCALE_MIN_EPS",
    "DEFAULT_TIME_LIMIT",
    "BLOCK_THREADS_MIN_VARIABLES",
    "backend",
    "default_order",
    "resolve_order",
    "check_solver",
]


@dataclass(frozen=True)
class RawSolution:
    """A back end's answer in the spec's variables: z, ν (one per group), λ (one per ratio row)."""

    z: np.ndarray
    nu: np.ndarray
    lam: np.ndarray
    status: str
    iterations: int | None
    seconds: float


#: An early-stop test ``enough(z, ν, λ)`` in the spec's variables: a back end that can look at its iterates may
#: stop at the first one that passes it (the chain passes its own certificate); the others ignore it.
Enough = Callable[[np.ndarray, np.ndarray, np.ndarray], bool]


class BackendError(Exception):
    """A back end could not produce a point (crash, time limit without a point, unsupported LP)."""


class Backend(Protocol):
    """What the chain needs of a back end."""

    name: str

    def available(self) -> bool: ...

    def supports(self, spec: RatioLPSpec) -> bool: ...

    def solve(
        self, spec: RatioLPSpec, eps: float, *, time_limit: float, enough: Enough | None = None
    ) -> RawSolution: ...


def _require_backend_memory(
    spec: RatioLPSpec, name: str, *, highs: bool = False, scs: bool = False, rows: int | None = None
) -> None:
    """Skip (BackendError, before anything is built) a back end on a reduced LP whose predicted memory exceeds
    the memory budget: a sparse LDLᵀ (:func:`problems.solvers.kkt_memory.predicted_ldl_memory`), with ``scs``
    SCS's (:func:`~problems.solvers.kkt_memory.predicted_scs_memory`), or, with ``highs``, HiGHS's simplex
    (:func:`~problems.solvers.kkt_memory.predicted_highs_memory`) on ``rows`` of the ratio rows (default: all)."""
    if spec.dense is not None:
        return  # dense programs are refused up front (problems.resources.require_dense_lp)
    from ..resources import format_bytes, memory_limits
    from .kkt_memory import predicted_highs_memory, predicted_ldl_memory, predicted_scs_memory

    if highs:
        need = predicted_highs_memory(spec, rows)
    else:
        need = predicted_scs_memory(spec) if scs else predicted_ldl_memory(spec)
    source, budget = min(memory_limits().items(), key=lambda kv: kv[1])
    if need > budget:
        what = (
            f"for its copies of the LP and its simplex factor "
            f"({spec.K + (spec.P if rows is None else rows):,} variables and ratio rows)"
            if highs
            else "for its sparse factorisation"
        )
        raise BackendError(
            f"not run: {name} would need about {format_bytes(need)} {what}; the memory "
            f"budget is {format_bytes(budget)} ({source})"
        )


# ------------------------------------------------------------------------------------------------ back ends
class _DirectConic:
    """Shared by the back ends called directly on ``[A diag(s); balanced ratio rows; −I]`` (cone form)."""

    name = ""
    module = ""

    def available(self) -> bool:
        import importlib.util

        return importlib.util.find_spec(self.module) is not None

    def supports(self, spec: RatioLPSpec) -> bool:
        return True

    alternative = False

    def data(self, spec: RatioLPSpec, eps: float) -> tuple[ScaledLP, sp.csc_matrix, np.ndarray, int, int]:
        sc = scaled_lp(spec, eps, alternative=self.alternative)
        return (sc, *stacked(spec, sc, drop_nonneg(spec, eps, sc)))


class ClarabelBackend(_DirectConic):
    """Clarabel called directly on the stacked sparse matrices (no modelling-layer compile)."""

    name = "CLARABEL"
    module = "clarabel"

    def __init__(self, settings: dict | None = None) -> None:
        self.settings = settings or {}

    def solve(
        self, spec: RatioLPSpec, eps: float, *, time_limit: float, enough: Enough | None = None
    ) -> RawSolution:
        import clarabel

        if self.alternative and spec.alt_log_scale is None:
            raise BackendError("this LP has no alternative scaling")
        _require_backend_memory(spec, "Clarabel")
        t0 = time.perf_counter()
        sc, M, rhs, E, n_ineq = self.data(spec, eps)
        opts = {
            **(CLARABEL_LP_TIGHT if spec.K <= SMALL_LP_SIZE else CLARABEL_LP_LOOSE),
            **CLARABEL_LP_OPTIONS,
            "time_limit": float(time_limit),
            **self.settings,
        }
        settings = clarabel.DefaultSettings()
        for key, value in opts.items():
            setattr(settings, key, value)
        cones = [clarabel.ZeroConeT(E), clarabel.NonnegativeConeT(n_ineq)]
        try:
            sol = clarabel.DefaultSolver(
                sp.csc_matrix((spec.K, spec.K)), sc.q, M, rhs, cones, settings
            ).solve()
        except Exception as exc:  # noqa: BLE001 - a crash of the back end is an attempt that failed
            raise BackendError(f"{type(exc).__name__}: {exc}") from exc
        status = str(sol.status)
        x = np.asarray(sol.x, dtype=float)
        y = np.asarray(sol.z, dtype=float)
        if x.size != spec.K or not np.all(np.isfinite(x)):
            raise BackendError(f"{status}: no finite point")
        z, nu, lam = sc.unscale(x, y[:E], y[E : E + sc.keep.size])
        return RawSolution(z, nu, lam, status, int(sol.iterations), time.perf_counter() - t0)


class ClarabelAltBackend(ClarabelBackend):
    """Clarabel on the LP scaled by the program's own profile (``spec.alt_log_scale``; PD-I: the shape of the
    identifiability mechanism E_i, p_Y(y) e^{−εd(x,y)}/p_X(x) with p_Y floored), at every ε."""

    name = "CLARABEL-ALT"
    alternative = True
    needs = "a program with its own column scaling (the reduced PD-I)"

    def supports(self, spec: RatioLPSpec) -> bool:
        return spec.alt_log_scale is not None


class ScsBackend(_DirectConic):
    """SCS (operator splitting) called directly on the same stacked matrices."""

    name = "SCS"
    module = "scs"

    def solve(
        self, spec: RatioLPSpec, eps: float, *, time_limit: float, enough: Enough | None = None
    ) -> RawSolution:
        import scs

        _require_backend_memory(spec, "SCS", scs=True)
        t0 = time.perf_counter()
        sc, M, rhs, E, n_ineq = self.data(spec, eps)
        # a large LP runs in a child killed at the attempt's deadline, its iterations in half the time (forked)
        child = spec.K + spec.P >= forked.FORK_ABOVE and forked.can_fork()
        left = max(0.0, float(time_limit) - (time.perf_counter() - t0))
        iterations = min(left / 2 if child else float(time_limit), SCS_TIME_LIMIT)

        def run() -> dict:
            solver = scs.SCS(
                {"A": M, "b": rhs, "c": sc.q},
                {"z": E, "l": n_ineq},
                **SCS_LP_OPTIONS,
                max_iters=SCS_MAX_ITERS,
                time_limit_secs=iterations,
                verbose=False,
            )
            out = solver.solve()
            return {"x": out["x"], "y": out["y"], "info": {k: out["info"][k] for k in ("status", "iter")}}

        try:
            out = forked.run_forked(run, left) if child else run()
        except forked.ForkedTimeout as exc:
            raise BackendError(f"stopped at the attempt's time limit of {time_limit:g} s ({exc})") from exc
        except Exception as exc:  # noqa: BLE001
            raise BackendError(f"{type(exc).__name__}: {exc}") from exc
        x, y = np.asarray(out["x"], dtype=float), np.asarray(out["y"], dtype=float)
        if not np.all(np.isfinite(x)):
            raise BackendError(f"{out['info']['status']}: no finite point")
        z, nu, lam = sc.unscale(x, y[:E], y[E : E + sc.keep.size])
        return RawSolution(
            z, nu, lam, str(out["info"]["status"]), int(out["info"]["iter"]), time.perf_counter() - t0
        )


class HighsBackend:
    """HiGHS through :func:`scipy.optimize.linprog` (a simplex method: exact vertices, independent code)."""

    name = "HIGHS"

    def available(self) -> bool:
        return True  # HiGHS ships inside SciPy

    def supports(self, spec: RatioLPSpec) -> bool:
        return True

    def solve(
        self, spec: RatioLPSpec, eps: float, *, time_limit: float, enough: Enough | None = None
    ) -> RawSolution:
        _require_backend_memory(spec, "HiGHS", highs=True)
        t0 = time.perf_counter()
        raw = self._solve(spec, eps, time_limit, scale=False)
        # HiGHS drops matrix entries below 1e-9 and scales the model itself, so it first sees the LP unscaled.
        # At large ε its absolute tolerances can then stop far from the optimum (contagious PD-DP, n = 30,
        # ε = 20: 6 % above it); where the chain's certificate rejects that point and the programs scale
        # (ε − ε_min ≥ SCALE_MIN_EPS), the LP in E_d-scaled columns is solved as well and kept if it is proved.
        # A reduced LP's chain runs that solve as an attempt of its own (HIGHS-SCALED, after the block method).
        left = time_limit - (time.perf_counter() - t0)
        if enough is None or left <= 0 or spec.dense is None or not scales(spec, eps):
            return raw
        if enough(raw.z, raw.nu, raw.lam):
            return raw
        try:
            scaled = self._solve(spec, eps, left, scale=True)
        except BackendError:
            scaled = None
        if scaled is not None and enough(scaled.z, scaled.nu, scaled.lam):
            return replace(
                scaled, status=scaled.status + " (E_d-scaled columns)", seconds=time.perf_counter() - t0
            )
        return replace(raw, seconds=time.perf_counter() - t0)  # the attempt's time includes the scaled solve

    def _solve(
        self,
        spec: RatioLPSpec,
        eps: float,
        time_limit: float,
        scale: bool,
        mass: bool = False,
        sc: ScaledLP | None = None,
        options: dict | None = None,
    ) -> RawSolution:
        from scipy.optimize import linprog

        t0 = time.perf_counter()
        if sc is None:
            sc = scaled_lp(spec, eps, scale=scale, mass=mass)
        K, P = spec.K, sc.keep.size
        rows = np.arange(P)
        src, dst = spec.src[sc.keep], spec.dst[sc.keep]
        G = sp.csr_matrix(
            (
                np.concatenate([sc.a_src, sc.a_dst]),
                (np.concatenate([rows, rows]), np.concatenate([src, dst])),
            ),
            shape=(P, K),
        )
        A = sp.csr_matrix((sc.eq_data, (spec.group, np.arange(K))), shape=(spec.G, K))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                res = linprog(
                    sc.q,
                    A_ub=G,
                    b_ub=np.zeros(P),
                    A_eq=A,
                    b_eq=spec.b,
                    bounds=(0, None),
                    method="highs",
                    options={"time_limit": float(time_limit), **HIGHS_LP_OPTIONS, **(options or {})},
                )
            except Exception as exc:  # noqa: BLE001
                raise BackendError(f"{type(exc).__name__}: {exc}") from exc
        if res.x is None:
            raise BackendError(f"status {res.status}: {res.message}")
        nu_s = -np.asarray(res.eqlin.marginals, dtype=float)
        lam_s = -np.asarray(res.ineqlin.marginals, dtype=float)
        z, nu, lam = sc.unscale(np.asarray(res.x, dtype=float), nu_s, lam_s)
        status = "optimal" if res.status == 0 else f"status {res.status}: {res.message}"
        return RawSolution(z, nu, lam, status, int(getattr(res, "nit", 0) or 0), time.perf_counter() - t0)


class HighsScaledBackend(HighsBackend):
    """HiGHS on the LP in E_d-scaled columns (where the programs scale, ε − ε_min ≥ :data:`SCALE_MIN_EPS`).

    A reduced LP's chain tries it after the block method: at large ε HiGHS's absolute tolerances can stop far
    from the optimum of the unscaled LP (contagious PD-DP, n = 30, ε = 20: 6 % above it), and in these columns
    every variable is O(1) at the optimum.  Below the threshold it is not run."""

    name = "HIGHS-SCALED"
    #: floor the columns by the rows' prior mass (:class:`HighsMassBackend`)
    mass = False
    columns = "E_d-scaled columns"
    #: the solves, in order (:meth:`solve`): a label for the attempt's status and HiGHS's options
    options: tuple[tuple[str, dict], ...] = (("", {}),)

    def solve(
        self, spec: RatioLPSpec, eps: float, *, time_limit: float, enough: Enough | None = None
    ) -> RawSolution:
        if not scales(spec, eps):
            raise BackendError(
                f"not run: the LP is solved in scaled columns from ε − ε_min ≥ "
                f"{min(SCALE_MIN_EPS, spec.scale_from):g}"
            )
        t0 = time.perf_counter()
        # at large ε the scaled LP leaves out most ratio rows (they cannot bind at an O(1) point: m = 2, n = 100,
        # ε = 30, floored columns: 5 % of them kept), and HiGHS's memory is that of the rows it is given
        sc = scaled_lp(spec, eps, scale=True, mass=self.mass)
        _require_backend_memory(spec, "HiGHS", highs=True, rows=int(sc.keep.size))
        # one solve per entry of ``options``, the next only where the chain's test does not prove the last point
        # (the attempt raises only if no solve returned a point)
        raw, how, failed = None, "", None
        for k, (label, opts) in enumerate(self.options):
            left = time_limit - (time.perf_counter() - t0)
            if k > 0 and left <= 0:
                break
            try:
                raw = self._solve(spec, eps, left, scale=True, mass=self.mass, sc=sc, options=opts)
            except BackendError as exc:
                failed = exc
                continue
            how = f"; {label}" if label else ""
            if enough is None or k == len(self.options) - 1 or enough(raw.z, raw.nu, raw.lam):
                break
        if raw is None:
            assert failed is not None
            raise failed
        return replace(raw, status=f"{raw.status} ({self.columns}{how})", seconds=time.perf_counter() - t0)


class HighsMassBackend(HighsScaledBackend):
    """HiGHS on the LP in E_d-scaled columns floored by the rows' prior mass
    (:func:`~problems.solvers.scaled_lp.mass_floor`; reduced PD-DP, where ε ≥ :data:`SCALE_MIN_EPS`).

    Rows of negligible prior mass may take any shape at no cost, and at large ε the optimum of a contagious prior
    uses that: the rows next to the point masses give up their accuracy so that the point masses' rows become
    almost deterministic, with entries up to 1e13 times E_d's (n = 60, ε = 30), out of reach in E_d's columns.
    Measured at m = 2, n = 100, contagious (0.2; 0.3, 0.7): ε = 27–32 certified in 1–3 s (E_d's columns: the
    value of E_d, 25 % above the optimum).  The columns are scaled already, so HiGHS's simplex first runs without
    its own scaling (:data:`~problems.solvers.settings.HIGHS_MASS_OPTIONS`): with it, the contagious priors at
    ε = 18–22 stopped at a vertex 1e-5 above the optimum or with status 4 (n = 100), without it they are proved in
    3–5 s; where that point is not proved (ε ≥ 30, 0.1–0.3 s), the same attempt solves again with HiGHS's scaling."""

    name = "HIGHS-MASS"
    needs = "the prior masses of its rows (the reduced PD-DP)"
    mass = True
    columns = "E_d columns floored by the prior mass"
    options = HIGHS_MASS_OPTIONS

    def supports(self, spec: RatioLPSpec) -> bool:
        return spec.dense is None and spec.log_group_mass is not None


class CvxpyBackend:
    """The LP as a DPP CVXPY problem in the scaled variables, compiled once per spec; Clarabel by default."""

    name = "CVXPY"

    def __init__(self, solver: str = "CLARABEL") -> None:
        self.solver = solver

    def available(self) -> bool:
        try:
            import cvxpy as cp
        except ImportError:
            return False
        return self.solver in cp.installed_solvers()

    def supports(self, spec: RatioLPSpec) -> bool:
        return True

    def _plain(self, spec: RatioLPSpec):  # noqa: ANN202
        """``S₁z − r·(diag(κ)S₂z) ≤ 0`` with one scalar Parameter r: the fastest DPP compile."""
        import cvxpy as cp

        if "cvxpy_plain" not in spec.cache:
            z = cp.Variable(spec.K, name="z")
            r = cp.Parameter(nonneg=True, name="exp_eps")
            S1, S2 = spec.S()
            S2k = (sp.diags(spec.kappa) @ S2).tocsr()
            ratio = S1 @ z - r * (S2k @ z) <= 0
            eq = spec.A @ z == spec.b
            problem = cp.Problem(cp.Minimize(spec.c @ z), [eq, ratio, z >= 0])
            spec.cache["cvxpy_plain"] = (problem, z, r, eq, ratio)
        return spec.cache["cvxpy_plain"]

    def _scaled_problem(self, spec: RatioLPSpec):  # noqa: ANN202
        """The LP in v = z/s with Parameters for every ε-dependent coefficient (used for large ε)."""
        import cvxpy as cp

        if "cvxpy_scaled" not in spec.cache:
            K, P = spec.K, spec.P
            v = cp.Variable(K, name="v")
            q = cp.Parameter(K, name="objective")
            s = cp.Parameter(K, nonneg=True, name="column_scale")
            a1 = cp.Parameter(P, nonneg=True, name="ratio_src")
            a2 = cp.Parameter(P, nonneg=True, name="ratio_dst")
            S1, S2 = spec.S()
            ratio = cp.multiply(a1, S1 @ v) - cp.multiply(a2, S2 @ v) <= 0
            eq = spec.A @ cp.multiply(s, v) == spec.b
            problem = cp.Problem(cp.Minimize(q @ v), [eq, ratio, v >= 0])
            spec.cache["cvxpy_scaled"] = (problem, v, q, s, a1, a2, eq, ratio)
        return spec.cache["cvxpy_scaled"]

    def solve(
        self, spec: RatioLPSpec, eps: float, *, time_limit: float, enough: Enough | None = None
    ) -> RawSolution:
        import cvxpy as cp

        _require_backend_memory(spec, f"CVXPY + {self.solver}")
        t0 = time.perf_counter()
        sc = scaled_lp(spec, eps, loosen=False)
        scaled = not np.all(sc.s == 1.0)
        if scaled:
            problem, v, q, s, a1, a2, eq, ratio = self._scaled_problem(spec)
            q.value, s.value, a1.value, a2.value = sc.q, sc.s, sc.a_src, -sc.a_dst
        else:
            problem, v, r, eq, ratio = self._plain(spec)
            r.value = math.exp(eps)
        opts: dict = {}
        if self.solver == "CLARABEL":
            opts = {**CVXPY_CLARABEL_LP_OPTIONS, "time_limit": float(time_limit)}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                problem.solve(solver=self.solver, **opts)
        except (cp.error.SolverError, ArithmeticError, ValueError) as exc:
            raise BackendError(f"{type(exc).__name__}: {exc}".splitlines()[0][:200]) from exc
        if v.value is None or eq.dual_value is None or ratio.dual_value is None:
            raise BackendError(f"{problem.status}: no point")
        x = np.asarray(v.value, dtype=float)
        nu = np.atleast_1d(np.asarray(eq.dual_value, dtype=float))
        lam = np.asarray(ratio.dual_value, dtype=float)
        if scaled:
            z, nu, lam = sc.unscale(x, nu, lam)
        else:
            z = x
        st = problem.solver_stats
        iters = None if st is None or st.num_iters is None else int(st.num_iters)
        return RawSolution(z, nu, lam, str(problem.status), iters, time.perf_counter() - t0)


class StructuredBackend:
    """The dense block-angular interior-point method (row-normalised dense LPs only)."""

    name = "STRUCTURED"
    needs = "a dense row-normalised LP"

    def available(self) -> bool:
        return True

    def supports(self, spec: RatioLPSpec) -> bool:
        return spec.dense is not None

    def solve(
        self, spec: RatioLPSpec, eps: float, *, time_limit: float, enough: Enough | None = None
    ) -> RawSolution:
        from ..errors import ProblemTooLargeError, SolverFailedError
        from ..ipm.structured import solve_ratio_lp_structured

        lay = spec.dense
        if lay is None:
            raise BackendError("only dense row-normalised LPs are supported")
        t0 = time.perf_counter()
        try:
            z, nu, lam, _s, iters, _secs = solve_ratio_lp_structured(
                spec.c.reshape(lay.N, lay.N),
                spec.b,
                lay.pi,
                lay.pj,
                lay.kappa,
                eps,
                program=spec.program,
                time_limit=time_limit,
                enough=enough,
            )
        except (SolverFailedError, ProblemTooLargeError, np.linalg.LinAlgError) as exc:
            raise BackendError(str(exc)) from exc
        return RawSolution(z, nu, lam, "converged", iters, time.perf_counter() - t0)


#: Below this many variables the block method runs on one thread: its blocks are then too small for a thread pool
#: to pay (measured, m = 2, n = 30, 5 456 variables, 2 cores: one thread 0.22–0.57 CPU s per point against
#: 0.46–0.94 s and a longer wall time with two; at n = 40, 12 341 variables, the two are alike in CPU time).
BLOCK_THREADS_MIN_VARIABLES = 10_000


class BlockBackend:
    """The block interior-point method of the joint-type LPs (dense Cholesky per y-type block)."""

    name = "BLOCK"
    needs = "a reduced LP"
    #: it solves in the LP's own columns (the chain's settled rule: ``UNSCALED_RESOLUTION``)
    unscaled = True

    def available(self) -> bool:
        return True

    def supports(self, spec: RatioLPSpec) -> bool:
        return spec.dense is None

    def expected_seconds(self, spec: RatioLPSpec) -> float | None:
        """Expected wall seconds on an idle 2-core machine where they are known: the layered method on an m = 2
        joint-type LP (:func:`~problems.resources.layered_lp_seconds`); None otherwise."""
        from ..resources import layered_lp_seconds, m2_joint_type_rows

        n = m2_joint_type_rows(spec.K, spec.G)
        return None if n is None else layered_lp_seconds(n)

    def solve(
        self, spec: RatioLPSpec, eps: float, *, time_limit: float, enough: Enough | None = None
    ) -> RawSolution:
        """The block method on ``spec``; with a certificate to stop at (``enough``), its iterates are also
        offered to :class:`~problems.lp.active_blocks.ActiveBlockProbe` (reduced LPs of several blocks): an
        answer from the heaviest blocks that the certificate accepts ends the iteration, and is returned."""
        from ..errors import ProblemTooLargeError, SolverFailedError
        from ..lp.active_blocks import blocks_of
        from .active import active_probe, run_block_lp

        def run(lp: RatioLPSpec, level: float, limit: float, stop: Enough | None, **kw) -> tuple:  # noqa: ANN003
            threads = 1 if lp.K < BLOCK_THREADS_MIN_VARIABLES else None
            return run_block_lp(
                lp, level, limit, stop, bounded=not drop_nonneg(lp, level), threads=threads, **kw
            )

        t0 = time.perf_counter()
        probe = None
        if enough is not None and settings.ACTIVE_BLOCKS:
            probe = active_probe(spec, eps, enough, run, t0 + time_limit)
        if probe is not None and probe.try_hint():  # the caller's guess of the active blocks, priced out
            ans = probe.answer
            assert ans is not None
            status = f"converged (hinted blocks: {ans.active.size} of {blocks_of(spec)[0]})"
            return RawSolution(ans.z, ans.nu, ans.lam, status, ans.iterations, time.perf_counter() - t0)
        try:
            u, nu, lam, iters = run(spec, eps, time_limit, enough, probe=probe)
        except (SolverFailedError, ProblemTooLargeError, np.linalg.LinAlgError, FloatingPointError) as exc:
            raise BackendError(str(exc)) from exc
        status = "converged"
        if probe is not None and probe.answer is not None:
            ans = probe.answer
            u, nu, lam, iters = ans.z, ans.nu, ans.lam, iters + ans.iterations
            status = f"converged (active blocks: {ans.active.size} of {blocks_of(spec)[0]})"
        return RawSolution(u, nu, lam, status, iters, time.perf_counter() - t0)


BACKENDS: dict[str, type] = {
    "CLARABEL": ClarabelBackend,
    "CLARABEL-ALT": ClarabelAltBackend,
    "HIGHS": HighsBackend,
    "HIGHS-SCALED": HighsScaledBackend,
    "HIGHS-MASS": HighsMassBackend,
    "SCS": ScsBackend,
    "CVXPY": CvxpyBackend,
    "STRUCTURED": StructuredBackend,
    "BLOCK": BlockBackend,
}
#: Other spellings accepted for ``solver=``.
ALIASES = {
    "CLARABEL-DIRECT": "CLARABEL",
    "STRUCTURED-IPM": "STRUCTURED",
    "BLOCK-IPM": "BLOCK",
    "CVXPY-CLARABEL": "CVXPY",
}


def backend(name: str) -> Backend:
    """The back end called ``name`` (case-insensitive); :class:`InvalidInputError` for an unknown name."""
    key = str(name).strip().upper()
    key = ALIASES.get(key, key)
    if key not in BACKENDS:
        raise InvalidInputError(
            f"unknown solver {name!r}; valid solvers are {', '.join(n.lower() for n in BACKENDS)}"
        )
    return BACKENDS[key]()


def check_solver(name: str | None) -> str | None:
    """Validate a ``solver=`` name early (bad input before any work); returns the canonical name or None."""
    return None if name is None else backend(name).name


def default_order(spec: RatioLPSpec, prefer: str | Sequence[str] | None = None) -> list[str]:
    """The chain tried when no solver is named: a structure-exploiting method first where it pays, then
    Clarabel, HiGHS, the block method (reduced LPs only: its own multipliers certify contagious PD-DP at
    ε = 10, n = 20, where HiGHS's absolute dual tolerance leaves the bound 4e-5 short), HiGHS in E_d-scaled
    columns (reduced LPs at large ε) and SCS; reduced LPs above
    :data:`~problems.solvers.settings.HIGHS_AFTER_BLOCK_FROM` variables try the block method before HiGHS.
    ``prefer`` (a back end or a sequence of them) is the program's own first choice, tried first."""
    order = list(LP_ORDER)
    if spec.dense is None and spec.K > HIGHS_AFTER_BLOCK_FROM:  # a large reduced LP: the block method first
        order.remove("HIGHS")
        order.insert(order.index("BLOCK") + 1, "HIGHS")
    if spec.dense is None:  # HiGHS in E_d-scaled columns (large ε only), after the block method and HiGHS
        order.insert(max(order.index("BLOCK"), order.index("HIGHS")) + 1, "HIGHS-SCALED")
        order.insert(order.index("HIGHS-SCALED") + 1, "HIGHS-MASS")
    if spec.alt_log_scale is not None:
        order.insert(1, "CLARABEL-ALT")
    if prefer is not None:
        # canonical names (case and aliases): a preferred back end is not tried a second time in its default place
        first = [backend(p).name for p in ([prefer] if isinstance(prefer, str) else prefer)]
        return first + [o for o in order if o not in first]
    if spec.dense is not None and spec.dense.N >= STRUCTURED_MIN_N:
        return ["STRUCTURED", *order]
    return order


def resolve_order(
    spec: RatioLPSpec, solver: str | None, prefer: str | Sequence[str] | None = None
) -> list[Backend]:
    """The back ends to try: the named ``solver`` first (validated), then the rest of the default chain."""
    names = default_order(spec, prefer)
    if solver is not None:
        named = backend(solver)
        if not named.supports(spec):
            raise InvalidInputError(
                f"solver {solver!r} does not apply to this LP ({spec.program}): "
                f"it needs {getattr(named, 'needs', 'a different LP')}"
            )
        if not named.available():
            raise InvalidInputError(f"solver {solver!r} is not installed")
        first = named.name
        names = [first] + [n for n in names if n != first]
    out = []
    for n in names:
        b = backend(n)
        if b.available() and b.supports(spec):
            out.append(b)
    if not out:
        raise InvalidInputError(f"solver {solver!r} cannot solve this LP and no fallback is installed")
    return out

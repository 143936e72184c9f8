r"""Optimal mechanism design under :math:`\epsilon`-information privacy (Wu, Xia & He 2020, Definitions 5–6, Theorem 2).

The program (expected distortion, ``objective="expected"``):

.. math::

    D^*_{\mathrm{IP}}(\epsilon)=\min_{p_{Y|X}}\ \sum_{x,y}p_X(x)\,p(y|x)\,d(f(x),y)
    \quad\text{s.t.}\quad C(B)\le\epsilon\ \ \forall B\in\mathbb S_i,\ \forall i,

which is :math:`C_1\le\epsilon` (eq. (2)) by Theorem 2 (eq. (48)).  With the Csiszár–Gallager min–max form
:math:`C(B)=\min_{q\in\Delta(\mathcal Y)}\max_a D(B_a\|q)` (Gallager 1968, Theorem 4.5.1),

.. math:: C(B)\le\epsilon\iff\exists\,q_B\in\Delta(\mathcal Y):\ D(B_a\|q_B)\le\epsilon\ \ \forall a,

so introducing one auxiliary :math:`q_B` per vertex channel turns the program into a convex exponential-cone
program in :math:`(p_{Y|X},(q_B)_B)`: ``cp.sum(cp.rel_entr(row, q_B)) <= eps`` is jointly convex (the
relative entropy is jointly convex).  Both directions of the equivalence hold: given a feasible :math:`q_B`,
:math:`C(B)\le\max_a D(B_a\|q_B)\le\epsilon`; conversely the minimising :math:`q` of the min–max form
(which exists, :math:`\Delta(\mathcal Y)` being compact) is feasible.  ε enters only as a CVXPY ``Parameter`` on
the right-hand side, so the problem is DPP and a sweep over ε compiles once.

Variants: ``objective="worst"`` minimises :math:`\max_x\sum_y p(y|x)d(f(x),y)`; ``factor=True`` restricts to
mechanisms :math:`p(y|x)=w(y|f(x))` (vertex channels deduplicated as in :mod:`problems.design.problem`);
:func:`ip_privacy_distortion` solves the reverse program :math:`\epsilon^*_{\mathrm{IP}}(D)=\min t` s.t.
:math:`D(B_a\|q_B)\le t`, :math:`\mathbb E[d]\le D`; ``method="cg"`` generates vertex channels on demand with
the :math:`C_1` routine :func:`problems.information.individual_capacity`.

Certificate (see :func:`_lagrangian_bound`).  Only the capacity (and distortion / epigraph) constraints are
dualised; the simplices of the rows of :math:`p_{Y|X}` and of every :math:`q_B` are kept as the domain
:math:`Z`.  For the multipliers :math:`\lambda\ge0` returned by the solver the Lagrangian :math:`L(\cdot,\lambda)`
is convex on :math:`Z`, so for *any* interior point :math:`z_\delta`

.. math:: g(\lambda)=\min_{z\in Z}L(z,\lambda)\ \ge\ L(z_\delta,\lambda)+\min_{z\in Z}\nabla L(z_\delta,\lambda)^\top(z-z_\delta),

and the right-hand side is closed-form (a linear function is minimised over a product of simplices by picking
the smallest gradient entry in each block).  By weak duality it is a **rigorous lower bound** on the optimum
(of the program restricted to the vertex channels in the constraint set — a relaxation, hence also a lower bound
on the full program).  :math:`z_\delta=(1-\delta)z^\star+\delta\cdot\text{uniform}` for a few δ; the best bound is
kept.  Primal feasibility is checked independently: :math:`C_1` of the returned mechanism is recomputed by
:func:`problems.information.individual_capacity` (certified bracket), and if it exceeds ε the mechanism is mixed
with a constant channel, :math:`(1-\theta)W+\theta\,\mathbf 1p_Y^\top`, :math:`\theta=1-\epsilon/\overline{C_1}`,
which by convexity of capacity in the channel gives :math:`C_1\le\epsilon` (the distortion it costs is reported).
Hence ``value - certificate.dual_objective`` bounds the suboptimality of a mechanism proved feasible.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, cast

import cvxpy as cp
import numpy as np

from ..certificate import Certificate
from ..errors import (
    InvalidDistortionError,
    InvalidInputError,
    InvalidPrivacyLevelError,
    ProblemTooLargeError,
    SolverFailedError,
)
from ..lp import Bounds, Status
from ..lp.status import decide_status
from ..mechanism import Mechanism
from ..result import SolveResult
from ..solvers.conic import solve_with_fallback
from ..solvers.settings import DESIGN_CONIC_OPTIONS as _CONIC_OPTIONS
from ..solvers.stats import SolverStats
from ..units import check_unit, from_unit, to_unit
from .lagrangian import _divergence_rows, _lagrangian_bound
from .problem import DEFAULT_VERTEX_LIMIT, DesignProblem, VertexSet, check_design_memory, enumerate_vertices

__all__ = [
    "OBJECTIVES",
    "METHODS",
    "IPDesign",
    "design_mechanism",
    "ip_privacy_distortion",
    "recompute_c1",
    "neighbour_vertices",
]

OBJECTIVES = ("expected", "worst")
METHODS = ("auto", "full", "cg")
_C1_TOL = 1e-10
_ACTIVE_TOL = 1e-7


def _check_eps(eps: float, unit: str = "nats") -> float:
    from ..closed_forms import as_real

    e = as_real(eps, "privacy level eps must be a number", InvalidPrivacyLevelError)
    if not np.isfinite(e) or e < 0:
        raise InvalidPrivacyLevelError(f"privacy level eps must be finite and >= 0 ({unit}), got {eps!r}")
    return float(from_unit(e, check_unit(unit)))


def _check_choice(name: str, value: str, valid: tuple[str, ...]) -> str:
    if value not in valid:
        raise InvalidInputError(f"{name} must be one of {valid}, got {value!r}")
    return value


def neighbour_vertices(problem: DesignProblem, *, factor: bool) -> VertexSet:
    """Vertex channels with the same other records for every value: ``{(a, b)}_a`` for each i and b.

    These are the channels an adversary who knows everybody else sees; they seed constraint generation.
    """
    space = problem.space
    n, m = space.n, space.m
    e = space.elements
    sets: set[tuple[int, ...]] = set()
    for i in range(n):
        base = np.flatnonzero(e[:, i] == 0)
        step = m ** (n - 1 - i)
        idx = base[:, None] + step * np.arange(m)[None, :]  # (m^{n-1}, m) database indices
        rows = problem.answer_index[idx] if factor else idx
        for r in np.unique(np.sort(rows, axis=1), axis=0):
            u = tuple(int(v) for v in np.unique(r))
            if len(u) > 1:
                sets.add(u)
    return VertexSet.from_sets(sorted(sets))


def recompute_c1(problem: DesignProblem, W_full: np.ndarray, tol: float = _C1_TOL):
    """C₁ of the ``(N, K)`` mechanism by :func:`problems.information.individual_capacity` (independent check)."""
    from ..information import individual_capacity

    arr = np.asarray(W_full, dtype=float).reshape(problem.space.shape + (W_full.shape[1],))
    return individual_capacity(arr, tol=tol)


def _solve(problem: cp.Problem, solver: str | None) -> SolverStats:
    try:
        return solve_with_fallback(
            problem, program="ip-design", solver=solver or "CLARABEL", options=_CONIC_OPTIONS, fallback=False
        )
    except SolverFailedError:
        return solve_with_fallback(problem, program="ip-design", solver=solver, options=_CONIC_OPTIONS)


@dataclass
class _Built:
    problem: cp.Problem
    W: cp.Variable
    q: cp.Variable | None
    cap: cp.Constraint | None
    dist: cp.Constraint | None
    norm: cp.Constraint
    qnorm: cp.Constraint | None
    param: cp.Parameter
    aux: cp.Variable | None
    build_time: float
    compiled: bool = False


@dataclass(frozen=True)
class _Solution:
    W: np.ndarray  # (R, K) rows of the program (databases or answers)
    q: np.ndarray  # (V, K)
    lam: np.ndarray  # (L,) capacity multipliers
    mu: np.ndarray  # distortion multipliers ((R,) worst, (1,) reverse, (0,) expected)
    stats: SolverStats
    objective: float
    status: str


@dataclass
class _Program:
    """One CVXPY program over rows R (databases or answers) and a fixed vertex set."""

    cost: np.ndarray  # (R, K) expected-distortion weights p(row) d(row, y)
    d: np.ndarray  # (R, K) d(row, y)
    vertices: VertexSet
    mode: str  # "expected" | "worst" | "reverse"
    solver: str | None = None
    built: _Built | None = field(default=None, init=False)

    def build(self) -> _Built:
        start = time.perf_counter()
        R, K = self.cost.shape
        V = self.vertices.count
        W = cp.Variable((R, K), nonneg=True, name="W")
        param = cp.Parameter(nonneg=True, name="eps" if self.mode != "reverse" else "D")
        aux = None
        cons = []
        norm = cp.sum(W, axis=1) == 1
        cons.append(norm)
        q = cap = qnorm = dist = None
        if self.mode == "reverse":
            aux = cp.Variable(name="t")
        elif self.mode == "worst":
            aux = cp.Variable(name="s")
        if V:
            q = cp.Variable((V, K), nonneg=True, name="q")
            div = cp.sum(cp.rel_entr(W[self.vertices.rows, :], q[self.vertices.vertex, :]), axis=1)
            cap = div <= (aux if self.mode == "reverse" else param)
            qnorm = cp.sum(q, axis=1) == 1
            cons += [cap, qnorm]
        if self.mode == "expected":
            objective = cp.sum(cp.multiply(self.cost, W))
        elif self.mode == "worst":
            dist = cp.sum(cp.multiply(self.d, W), axis=1) <= aux
            cons.append(dist)
            objective = aux
        else:
            dist = cp.sum(cp.multiply(self.cost, W)) <= param
            cons.append(dist)
            objective = aux if V else cp.Constant(0.0)
        prob = cp.Problem(cp.Minimize(objective), cons)
        self.built = _Built(prob, W, q, cap, dist, norm, qnorm, param, aux, time.perf_counter() - start)
        return self.built

    def solve(self, value: float) -> _Solution:
        b = self.built or self.build()
        b.param.value = float(value)
        t0 = time.perf_counter()
        stats = _solve(b.problem, self.solver)
        wall = time.perf_counter() - t0
        compile_time = 0.0 if b.compiled else max(0.0, wall - stats.solve_time) + b.build_time
        b.compiled = True
        stats = SolverStats(stats.solver, stats.solve_time, compile_time, stats.iterations, stats.attempts)
        R, K = self.cost.shape
        W = np.asarray(b.W.value, dtype=float).reshape(R, K)
        q = np.zeros((0, K)) if b.q is None else np.asarray(b.q.value, dtype=float).reshape(-1, K)
        lam = np.zeros(0) if b.cap is None else np.atleast_1d(np.asarray(b.cap.dual_value, dtype=float))
        mu = np.zeros(0) if b.dist is None else np.atleast_1d(np.asarray(b.dist.dual_value, dtype=float))
        return _Solution(W, q, lam, mu, stats, float(b.problem.value), str(b.problem.status))


# ----------------------------------------------------------------------------------------- main class
class IPDesign:
    r"""Minimum-distortion :math:`\epsilon`-information-private mechanism for a :class:`DesignProblem`.

    Parameters
    ----------
    problem:
        Query, outputs, distortion and prior.
    factor:
        Restrict to mechanisms that factor through the query, :math:`p(y|x)=w(y|f(x))`.
    objective:
        ``"expected"`` (prior-weighted) or ``"worst"`` (:math:`\max_x\mathbb E[d\mid x]`).
    method:
        ``"full"`` (every vertex channel), ``"cg"`` (constraint generation) or ``"auto"`` (full when the
        enumeration has at most ``full_limit`` vertex channels).
    solver:
        Preferred conic solver (default Clarabel; others are tried on failure).
    """

    program = "ip-design"

    def __init__(
        self,
        problem: DesignProblem,
        *,
        factor: bool = False,
        objective: str = "expected",
        method: str = "auto",
        solver: str | None = None,
        full_limit: int = 5_000,
        max_iterations: int = 100,
        add_per_iteration: int = 64,
    ) -> None:
        if not isinstance(problem, DesignProblem):
            raise InvalidInputError(f"problem must be a DesignProblem, got {type(problem).__name__}")
        self.problem = problem
        self.factor = bool(factor)
        self.objective = _check_choice("objective", objective, OBJECTIVES)
        self.method = _check_choice("method", method, METHODS)
        if not (isinstance(max_iterations, int) and max_iterations >= 1):
            raise InvalidInputError(f"max_iterations must be an integer >= 1, got {max_iterations!r}")
        self.solver, self.max_iterations, self.add_per_iteration = solver, max_iterations, add_per_iteration
        if self.factor:
            self.row_prior = problem.answer_prior
            self.d = np.asarray(problem.distortion, dtype=float)
        else:
            self.row_prior = np.asarray(problem.prior.pmf, dtype=float)
            self.d = np.asarray(problem.database_distortion, dtype=float)
        self.cost = self.row_prior[:, None] * self.d
        check_design_memory(  # the cheap bound first: nothing enumerated if it cannot fit anyway
            problem, factor=self.factor, cap=max(full_limit, max_iterations * add_per_iteration)
        )
        self.pool: VertexSet | None
        try:
            self.pool = enumerate_vertices(problem, factor=self.factor, limit=DEFAULT_VERTEX_LIMIT)
        except ProblemTooLargeError:  # too many to enumerate: constraint generation without a pool
            self.pool = None
        if self.method == "auto":
            self.method = "full" if self.pool is not None and self.pool.count <= full_limit else "cg"
        if self.method == "full" and self.pool is None:
            enumerate_vertices(problem, factor=self.factor)  # raises ProblemTooLargeError with the count
        self._check_memory()
        self._full: _Program | None = None
        #: called once per constraint-generation iteration with a one-line description (or None)
        self.progress: Callable[[str], object] | None = None

    # -- helpers -----------------------------------------------------------------------------------------
    def _check_memory(self) -> None:
        """Refuse a program that would not fit in the memory budget (:func:`check_design_memory`)."""
        if self.method == "full" and self.pool is not None:
            vertices = self.pool.count
        else:
            cap = self.max_iterations * self.add_per_iteration
            vertices = cap if self.pool is None else min(self.pool.count, cap)
        check_design_memory(self.problem, factor=self.factor, vertices=vertices)

    def _mode(self, reverse: bool) -> str:
        return "reverse" if reverse else self.objective

    def _rows_to_labels(self, rows: tuple[int, ...]) -> list[str]:
        labels = self.problem.answer_labels if self.factor else tuple(self.problem.space.labels)
        return [labels[r] for r in rows]

    def _full_matrix(self, W: np.ndarray) -> np.ndarray:
        W = np.clip(W, 0.0, None)
        W = W / W.sum(axis=1, keepdims=True)
        return self.problem.expand(W) if self.factor else W

    def _vertex_of_c1(self, c1) -> tuple[int, ...] | None:
        idx = [self.problem.space.index(x) for x in c1.vertex_databases]
        rows = self.problem.answer_index[idx] if self.factor else np.asarray(idx)
        u = tuple(int(v) for v in np.unique(rows))
        return u if len(u) > 1 else None

    def _violated_in_pool(self, W: np.ndarray, eps: float, active: set, limit: int) -> list[tuple[int, ...]]:
        """Up to ``limit`` pool vertices whose certified capacity lower bound exceeds ε (most violated first)."""
        if self.pool is None or limit <= 0:
            return []
        from ..information import blahut_arimoto_batch

        sets = [s for s in self.pool.sets() if s not in active]
        if not sets:
            return []
        out: list[tuple[float, tuple[int, ...]]] = []
        by_size: dict[int, list[tuple[int, ...]]] = {}
        for s in sets:
            by_size.setdefault(len(s), []).append(s)
        for _size, group in by_size.items():
            B = W[np.asarray(group)]  # (V, size, K)
            lo, _up, _p, _it = blahut_arimoto_batch(B, tol=1e-9, max_iter=300)
            for k in np.flatnonzero(lo > eps * (1 + 1e-6) + 1e-12):
                out.append((float(lo[k]), group[k]))
        out.sort(key=lambda t: -t[0])
        return [s for _, s in out[:limit]]

    # -- solve -------------------------------------------------------------------------------------------
    def _run(self, value: float, reverse: bool):
        mode = self._mode(reverse)
        history: list[dict] = []
        if self.method == "full":
            assert self.pool is not None
            if self._full is None or self._full.mode != mode:
                self._full = _Program(self.cost, self.d, self.pool, mode, self.solver)
            return self._full, self._full.solve(value), 1, history
        vs = neighbour_vertices(self.problem, factor=self.factor)
        if vs.count > 2_000:
            vs = VertexSet.from_sets([])
        active = set(vs.sets())
        eps_target = value
        prog: _Program | None = None
        sol: _Solution | None = None
        total_solver = 0.0
        for it in range(1, self.max_iterations + 1):
            prog = _Program(self.cost, self.d, VertexSet.from_sets(sorted(active)), mode, self.solver)
            sol = prog.solve(value)
            total_solver += sol.stats.solve_time
            if reverse:
                eps_target = sol.objective
            W = np.clip(sol.W, 0.0, None)
            W = W / W.sum(axis=1, keepdims=True)
            c1 = recompute_c1(self.problem, self._full_matrix(W))
            history.append(
                {"iteration": it, "constraints": len(active), "objective": sol.objective, "C1": c1.c1}
            )
            if self.progress is not None:
                self.progress(f"iteration {it}: {len(active)} vertex channels, C1 = {c1.c1:.6g} nats")
            if c1.c1 <= eps_target * (1 + 1e-6) + 1e-9:
                return prog, sol, it, history
            new = []
            worst = self._vertex_of_c1(c1)
            if worst is not None and worst not in active:
                new.append(worst)
            new += [
                s
                for s in self._violated_in_pool(W, eps_target, active, self.add_per_iteration)
                if s not in new
            ]
            if not new:
                break  # the worst vertex is already in the set: solver tolerance; repaired below
            active.update(new)
        assert prog is not None and sol is not None
        return prog, sol, len(history), history

    def _finish(
        self,
        prog: _Program,
        sol: _Solution,
        eps: float,
        iterations: int,
        history,
        unit: str,
        reverse: bool,
        D: float | None,
    ) -> SolveResult:
        problem = self.problem
        vs = prog.vertices
        W = np.clip(sol.W, 0.0, None)
        W = W / W.sum(axis=1, keepdims=True)
        q = sol.q
        W_full = self._full_matrix(W)
        c1 = recompute_c1(problem, W_full)
        if reverse:  # the mechanism meets E[d] <= D; its recomputed C1 is the privacy level it achieves
            eps = float(c1.c1)
        theta = 0.0
        if not reverse and c1.upper_bound > eps:
            theta = 1.0 - eps / c1.upper_bound if c1.upper_bound > 0 else 0.0
            p_y = self.row_prior @ W
            W = (1 - theta) * W + theta * p_y[None, :]
            W_full = self._full_matrix(W)
            c1 = recompute_c1(problem, W_full)
        value = float(np.sum(self.cost * W))
        worst_value = float(np.max(np.sum(self.d * W, axis=1)))
        # Lagrangian lower bound
        lam = np.clip(sol.lam, 0.0, None)
        mu = np.clip(sol.mu, 0.0, None)
        if prog.mode == "expected":
            C, const, primal = self.cost, -eps * float(lam.sum()), value
        elif prog.mode == "worst":
            s = float(mu.sum()) or 1.0
            lam, mu = lam / s, mu / s
            C, const, primal = mu[:, None] * self.d, -eps * float(lam.sum()), worst_value
        else:
            s = float(lam.sum()) or 1.0
            lam, mu = lam / s, mu / s
            nu = float(mu[0]) if mu.size else 0.0
            assert D is not None
            C, const, primal = nu * self.cost, -nu * D, eps
        bound, fw_gap = _lagrangian_bound(W, q, vs, lam, C, const)
        div = _divergence_rows(W, q, vs)
        rhs = eps
        slack = float(np.max(lam * np.abs(div - rhs), initial=0.0))
        primal_res = max(
            0.0 if reverse else c1.upper_bound - eps,
            float(np.max(np.abs(W_full.sum(axis=1) - 1), initial=0.0)),
            float(np.max(-W_full, initial=0.0)),
            (value - D) if (reverse and D is not None) else 0.0,
            0.0,
        )
        # bounds (forward program): the dual bound below; above, the distortion of the returned mechanism when
        # its recomputed C₁ upper bound proves it feasible (C₁ ≤ ε); evaluated in floating point with a margin
        bounds = None
        if not reverse:
            margin = 64.0 * W_full.size * 2.0**-53 * (1.0 + abs(float(primal)))
            feasible = float(c1.upper_bound) <= float(eps) * (1 + 1e-12) + 1e-15
            bounds = Bounds(max(0.0, float(bound) - margin), float(primal) + margin if feasible else np.inf)
        cert = Certificate(
            primal_residual=float(primal_res),
            dual_residual=float(max(fw_gap, float(np.max(-sol.lam, initial=0.0)), 0.0)),
            complementary_slackness=slack,
            duality_gap=float(abs(primal - bound)),
            primal_objective=float(primal),
            dual_objective=float(bound),
            tolerance=1e-6,
            **cast(
                "dict[str, Any]",
                {}
                if bounds is None
                else {
                    "lower_bound": bounds.lower,
                    "upper_bound": bounds.upper,
                    "basis": "capacity-constrained dual bound and a mechanism whose recomputed C₁ is ≤ ε",
                },
            ),
        )
        # duals per vertex channel
        lam_raw = np.clip(sol.lam, 0.0, None)
        per_vertex = np.bincount(vs.vertex, weights=lam_raw, minlength=vs.count) if vs.count else np.zeros(0)
        scale = max(float(per_vertex.max(initial=0.0)), 1e-12)
        binding_idx = np.flatnonzero(per_vertex > _ACTIVE_TOL * max(scale, 1.0))
        sets = vs.sets()
        binding = [
            {
                "rows": self._rows_to_labels(sets[v]),
                "dual": float(per_vertex[v]),
                "adversary_input": (lam_raw[vs.vertex == v] / per_vertex[v]).tolist(),
            }
            for v in binding_idx
        ]
        mech = Mechanism(W_full, tuple(problem.space.labels), problem.output_labels)
        extras = {
            "C1": float(to_unit(c1.c1, unit)),
            "C1_upper": float(to_unit(c1.upper_bound, unit)),
            "C1_individual": c1.individual + 1,
            "C1_vertex_databases": [list(x) for x in c1.vertex_databases],
            "eps_unit": unit,
            "objective": prog.mode if prog.mode != "reverse" else "reverse",
            "factor_through_query": self.factor,
            "method": self.method,
            "iterations": int(iterations),
            "cg_history": history,
            "constraint_set": [self._rows_to_labels(s) for s in sets],
            "constraint_set_size": vs.count,
            "vertices_enumerated": None if self.pool is None else self.pool.count,
            "active_vertices": binding,
            "expected_distortion": value,
            "worst_case_distortion": worst_value,
            "lower_bound": float(bound),
            "repair_theta": float(theta),
            "sensitivity_dD_deps": -float(lam_raw.sum()) if prog.mode == "expected" else None,
            "problem": problem.to_dict(),
        }
        if self.factor:
            extras["answer_channel"] = W
            extras["answer_labels"] = list(problem.answer_labels)
        bounds = Bounds(-np.inf, np.inf) if bounds is None else bounds
        return SolveResult.from_mechanism(
            self.program if not reverse else "ip-reverse",
            mech,
            problem.prior.pmf,
            # the toolkit's rule decides on the proved bounds (the reverse program has none: never optimal); the
            # solver's word only says whether there is a point at all, and is kept in stats.attempts
            status=decide_status(
                bounds.lower, bounds.upper, answered=Status.from_solver_word(sol.status) is not Status.FAILED
            ),
            value=float(primal) if not reverse else float(to_unit(eps, unit)),
            eps=float(to_unit(eps, unit)),
            distortion=None if not reverse or D is None else float(D),
            duals={
                "capacity_per_vertex": per_vertex,
                "capacity": lam_raw,
                "distortion": np.clip(sol.mu, 0, None),
            },
            certificate=cert,
            stats=sol.stats,
            unit=problem.distortion_name if not reverse else unit,
            extras=extras,
            bounds=bounds,
        )

    def solve(self, eps: float, *, unit: str = "nats") -> SolveResult:
        """Minimum distortion at privacy level ε (in ``unit``); ``value`` is the distortion of the objective.

        Two levels are settled by theory, without a conic solve (:meth:`_theorem`): ε = 0 (expected
        objective) and ε at least the C₁ of the unconstrained optimum.
        """
        e = _check_eps(eps, unit)
        res = self._theorem(e, check_unit(unit))
        if res is not None:
            return res
        prog, sol, iters, history = self._run(e, reverse=False)
        return self._finish(prog, sol, e, iters, history, check_unit(unit), False, None)

    def _theorem(self, eps: float, unit: str) -> SolveResult | None:
        r"""The optimum where theory gives it, with exact bounds, or ``None``.

        * **ε ≥ C₁(W*)**, W* the unconstrained optimum (each row on argmin_y d(row, y)): W* is feasible, and
          no mechanism does better than the row-wise minimum: the value is Σ_x p(x) min_y d (expected) or
          max_x min_y d (worst case), 0 when every answer is an output.  C₁(W*) ≤ ln m always (a vertex
          channel has at most m inputs), so ε ≥ ln m needs no capacity computation; otherwise the certified
          upper end of C₁(W*) (:func:`recompute_c1`) must be ≤ ε.
        * **ε = 0** (expected objective): C(B) = 0 forces equal rows in every vertex channel; the vertex
          channels that change one individual connect all databases, so the mechanism is constant and the
          optimum is the best constant row, min_y Σ_x p(x) d(x, y) (:func:`problems.programs.theorem.best_constant`).
        """
        from ..certificate import theorem_certificate
        from ..programs.theorem import best_constant

        R, K = self.cost.shape
        best = np.argmin(self.d, axis=1)
        W = np.zeros((R, K))
        W[np.arange(R), best] = 1.0
        dmin = self.d[np.arange(R), best]
        basis = None
        if eps >= np.log(self.problem.space.m) * (1 + 1e-15) or (
            eps > 0
            and float(recompute_c1(self.problem, self._full_matrix(W)).upper_bound) * (1 + 1e-9) <= eps
        ):  # the margin covers the rounding of the capacity bracket (ε = fl(ln 2) is below C₁ = ln 2)
            if self.objective == "expected":
                _, lo, up = best_constant(np.diag(self.row_prior * dmin))
                lo = lo if np.any(dmin) else 0.0
                up = up if np.any(dmin) else 0.0
            else:
                lo = up = float(dmin.max())
            basis = "ε ≥ C₁ of the unconstrained optimum (each row on its nearest output): that mechanism is optimal"
        elif eps == 0.0 and self.objective == "expected":
            y, lo, up = best_constant(self.cost)
            W = np.zeros((R, K))
            W[:, y] = 1.0
            basis = "ε = 0: every vertex channel has equal rows, so the mechanism is constant; the best constant row"
        if basis is None:
            return None
        value = float(np.sum(self.cost * W)) if self.objective == "expected" else float(dmin.max())
        stats = SolverStats("theorem", 0.0, 0.0, 0, (("theorem", basis),))
        mode = self.objective
        prog = _Program(self.cost, self.d, VertexSet.from_sets([]), mode, self.solver)
        mu = np.zeros(R if mode == "worst" else 0)
        sol = _Solution(W, np.zeros((0, K)), np.zeros(0), mu, stats, value, "optimal")
        res = self._finish(prog, sol, eps, 1, [], unit, False, None)
        bounds = Bounds(float(lo), float(up))
        return replace(
            res,
            status=decide_status(bounds.lower, bounds.upper),
            value=value,
            certificate=theorem_certificate(value, bounds.lower, bounds.upper, basis),
            bounds=bounds,
        )

    def solve_reverse(self, distortion: float, *, unit: str = "nats") -> SolveResult:
        r""":math:`\epsilon^*_{\mathrm{IP}}(D)`: the smallest largest vertex capacity with :math:`\mathbb E[d]\le D`.

        ``value`` (and ``eps``) is :math:`\epsilon^*_{\mathrm{IP}}(D)` in ``unit``.
        """
        check_unit(unit)
        try:
            D = float(distortion)
        except (TypeError, ValueError) as exc:
            raise InvalidDistortionError(f"distortion bound D must be a number, got {distortion!r}") from exc
        dmin = float(np.sum(self.row_prior * self.d.min(axis=1)))
        if not np.isfinite(D) or D < dmin - 1e-12:
            raise InvalidDistortionError(
                f"distortion bound D = {distortion!r} is below the smallest achievable expected distortion "
                f"{dmin:.6g} (or not finite); valid: D >= {dmin:.6g}"
            )
        if self.objective != "expected":
            raise InvalidInputError("the reverse program is defined for objective='expected'")
        prog, sol, iters, history = self._run(D, reverse=True)
        return self._finish(prog, sol, 0.0, iters, history, unit, True, D)


def design_mechanism(
    problem: DesignProblem,
    eps: float,
    *,
    factor: bool = False,
    objective: str = "expected",
    method: str = "auto",
    unit: str = "nats",
    solver: str | None = None,
    max_iterations: int = 100,
) -> SolveResult:
    """One-shot :meth:`IPDesign.solve` (see :class:`IPDesign` for the parameters)."""
    return IPDesign(
        problem,
        factor=factor,
        objective=objective,
        method=method,
        solver=solver,
        max_iterations=max_iterations,
    ).solve(eps, unit=unit)


def ip_privacy_distortion(
    problem: DesignProblem,
    distortion: float,
    *,
    factor: bool = False,
    method: str = "auto",
    unit: str = "nats",
    solver: str | None = None,
) -> SolveResult:
    r"""One-shot reverse program :math:`\epsilon^*_{\mathrm{IP}}(D)` (:meth:`IPDesign.solve_reverse`)."""
    return IPDesign(problem, factor=factor, method=method, solver=solver).solve_reverse(distortion, unit=unit)

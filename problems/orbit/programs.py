r"""Orbit-reduced PD-DP, PD-I and R-PD (Wang, Ying & Zhang 2016) for priors invariant under permuting rows.

Derivation (full version in ``docs/orbit_reduction.md``).  S_n acts on pairs (x, y) by permuting the rows of
x and y together.  For an exchangeable prior p_X(σx) = p_X(x), d(σx, σy) = d(x, y) and σ maps neighbours to
neighbours, so the objective and every constraint of PD-DP (13)–(15), PD-I (8)–(12) (as the LP in the joint,
notes §1) and R-PD (20)–(24) are invariant.  Averaging an optimal solution over the group keeps it feasible
(the constraints are linear) and optimal (the objective is invariant and linear): some optimal solution is
constant on orbits, i.e. a function of the joint type T(x, y).  Hence the LP restricted to orbit-constant
points has the same optimum as the full LP.

*Variables.*  u[T] = c(T|t)·W(y|x) = P(T(x, Y) = T | X = x) for x of type t — a conditional pmf over the
joint types with row sums t.  Normalisation (14)/(11): Σ_{T: rows t} u[T] = 1 per x-type t.  Objective:
Σ_t P(t(X) = t) Σ_T u[T]·(n − tr T), with the x-type probabilities P(t) (a multinomial mixture, O(1) in
aggregate) — this is the scaling that keeps the program accurate at n = 200.

*Ratio constraints.*  Moving one row of x from a to a' in a row where y is b maps T to
T' = T − e_ab + e_a'b (and t to t' = t − e_a + e_a').  (13) for this pair reads W(y|x) ≤ e^ε W(y|x'), i.e.

.. math::  u[T] \le e^{\epsilon}\,\frac{t_a}{t_{a'}+1}\,\frac{T_{a'b}+1}{T_{ab}}\,u[T'] \qquad\text{(PD-DP)},

and for PD-I, p_X(x)W(y|x) ≤ e^ε p_X(x')W(y|x') gives the same with the extra factor p_X(x')/p_X(x) (one
database each, a ratio of two mixture masses computed in logs).  The constraint of the orbit-averaged
solution for one pair holds iff it holds for every pair of the orbit, since all of them give the same
inequality in u.  For the uniform prior (and for R-PD, which has no prior) the larger group
(S_m)ⁿ ⋊ S_n of row-value relabellings acts transitively on x and its orbits on pairs are the distances
d(x, y) = l, so u becomes g[l] = P(d(x, Y) = l) (n + 1 variables) with
g[l] ≤ e^ε (l+1)/((n−l)(m−1)) g[l+1] and g[l+1] ≤ e^ε (n−l)(m−1)/(l+1) g[l].

*i.i.d. priors.*  For p_X = π^{⊗n} both programs single-letterise (D*_n(ε) = n·D*_1(ε; π)):
:mod:`problems.orbit.product_prior` answers them from the certified one-row program at any n, and the joint types
below are built only when the LP is asked for (``method="lp"``) or the theorem's answer is not certified.

*Certificates.*  The certificate is the toolkit's KKT check of the reduced LP.  It certifies the full LP: the
reduced primal u lifts to a feasible full point with the same objective (W(y|x) = u[T]/c(T|t)), and a
reduced dual lifts to a full dual of equal value (spread each ratio multiplier λ_p evenly over the pairs of
its orbit, scaled by the Jacobian of the change of variables; stationarity of the full LP at an
orbit-constant point is the orbit-average of reduced stationarity).  So reduced optimum = full optimum,
which the tests also check against the dense programs for small n.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..database import DatabaseSpace
from ..errors import InfeasibleProgramError, InvalidInputError
from ..lp import Bounds, Status
from ..lp.solution import LPSolution, with_objective_error
from ..lp.status import decide_status
from ..lp.tiny import in_tiny_regime
from ..mechanism import Mechanism
from ..prior_constants import eps_X_symmetric, exp_at_least, mixture_eps_X_ratio, near_eps_X, round_up_eps_X
from ..priors import Prior
from ..programs.theorem import SMALL_EPS_THEOREM, constant_lower, small_eps
from ..result import SolveResult
from ..solve_choice import METHODS, check_method, method_from_path
from ..solvers.backends import check_solver
from ..solvers.settings import (
    INTERIOR_MARGIN,
    LAYERED_MIN_VARIABLES,
    PDI_BLOCK_MARGIN,
    UNIT_ROUNDOFF,
)
from .backend_choice import choose_backend, first_backends
from .boundary_band import BAND_LP_MAX_VARIABLES, band_answer
from .constant_output import constant_output_blocks, type_law_margin
from .lift import _lift_matrix, _log_distance_counts, _type_channel, lift_mechanism, sample  # noqa: F401
from .mixture_pd_i import mixture_identifiability_theorem
from .mixture_prior import components, mixture_theorem
from .product_prior import product_theorem
from .reduced_lp import ReducedLP, deprecated_backend
from .symmetric_prior import SymmetricPrior, as_symmetric
from .types import JointTypes

__all__ = [
    "ReducedPDDP",
    "ReducedPDI",
    "ReducedRPD",
    "DistanceLP",
    "lift_mechanism",
    "sample",
    "LIFT_LIMIT",
    "PDI_BLOCK_MARGIN",
    "LAYERED_MIN_VARIABLES",
    "choose_backend",
]

#: Results with N = mⁿ up to this carry the lifted N×N mechanism; larger ones a type-level channel.
LIFT_LIMIT = 1024

#: Attributes of the joint-type reduction built on first use for an i.i.d. prior (:meth:`_PriorProgram.__getattr__`).
_DEFERRED = ("lp", "types", "log_px_type", "log_mass")


class DistanceLP:
    """The distance-reduced LP in g[l] = P(d(x, Y) = l), l = 0..n (uniform prior, R-PD)."""

    def __init__(self, n: int, m: int, *, program: str) -> None:
        self.n, self.m = n, m
        l = np.arange(n)
        logN = _log_distance_counts(n, m)
        # g[l] ≤ r N_l/N_{l+1} g[l+1]  and  g[l+1] ≤ r N_{l+1}/N_l g[l]
        src, dst = np.concatenate([l, l + 1]), np.concatenate([l + 1, l])
        lk = np.concatenate([logN[:-1] - logN[1:], logN[1:] - logN[:-1]])
        c = np.arange(n + 1, dtype=float)
        A = sp.csr_matrix(np.ones((1, n + 1)))
        lvals = np.arange(n + 1, dtype=float)

        def log_profile(e: float) -> np.ndarray:  # E_d: P(d = l) = N_l θ^l/(1+(m−1)θ)^n, θ = e^{−ε}
            return logN - lvals * e - n * math.log1p((m - 1) * math.exp(-e))

        # the distance chain spans e^{−nε}: always solved scaled by E_d
        self.lp = ReducedLP(
            c, A, np.ones(1), src, dst, lk, program=program, log_profile=log_profile, scale_from=0.0
        )
        self.log_counts = logN


class _Base:
    program = ""

    def __init__(self, n: int, m: int, backend: str | None, solver: str | None, lift_limit: int) -> None:
        deprecated_backend(backend)  # backend= is solver= (the back end tried first); kept for one release
        self.n, self.m = n, m
        self.space = DatabaseSpace(n, m)
        self.backend, self.solver, self.lift_limit = backend or "auto", solver, lift_limit
        check_solver(solver)
        self.types: JointTypes | None = None
        self.lp: ReducedLP
        self.reduction: str  # "distance" or "joint-type"
        self.log_px_type: np.ndarray  # ln P(t(X) = t) per x-type (joint-type reduction of a prior)

    def _extras(self) -> dict[str, Any]:  # pragma: no cover - the programs with a prior define it
        raise NotImplementedError

    # -------------------------------------------------------------- results
    def _result(self, sol: LPSolution, reduction: str, extra: dict[str, Any]) -> SolveResult:
        u = np.clip(sol.u, 0.0, None)
        extras: dict[str, Any] = {
            "path": "reduced",
            "reduction": reduction,
            "n": self.n,
            "m": self.m,
            "u": u,
            "variables": int(u.size),
            "ratio_constraints": int(self.lp.P),
            "build_time": float(self.lp.build_time),
            "backend": self.backend,
        }
        extras.update(extra)
        mech, p_x = self._mechanism(u, reduction, extras)
        status, value, bounds, cert = sol.status, sol.value, sol.bounds, sol.certificate
        if extras.get("mechanism_level") == "database":
            W, status, value, bounds, cert = self._exact_lift(
                mech.matrix, sol.eps, status, value, bounds, cert
            )
            if W is not mech.matrix:
                mech = Mechanism.on_space(W, self.space)
        return SolveResult.from_lp(
            self.program,
            sol,
            mech,
            p_x,
            extras=extras,
            status=status,
            value=value,
            bounds=bounds,
            certificate=cert,
        )

    def _objective_error(self) -> float:
        """A bound on the relative error of the LP's float costs against the exact prior (0: exact)."""
        return 0.0

    def _pair_log_kappa(self) -> np.ndarray | None:
        """ln κ per neighbour pair of the W-form constraint W(x,y) ≤ e^ε κ W(x',y) (None: κ = 1)."""
        return None

    def _log_kappa_error(self) -> float:
        """A bound on the absolute error of :meth:`_pair_log_kappa` (0 for κ = 1)."""
        return 0.0

    def _exact_lift(self, W: np.ndarray, eps: float, status, value, bounds, cert):  # noqa: ANN001, ANN202
        """The lifted N×N mechanism made exactly feasible (:mod:`problems.lp.matrix_check`).

        A lifted reduced point (W = u[T]/c(T|t)) or a closed form with tight rows breaks ratio rows by round-off
        (~1e-15).  W is verified as it is; if a row fails it is closed (``close_matrix``), else mixed with E_d at
        the level ε − ε_min − min(1, (ε − ε_min)/2) or with the constant mechanism, whichever proves the lower
        value; the value and upper bound become its (without a verified matrix, the status is at most inaccurate).
        """
        from dataclasses import replace

        from ..lp.matrix_check import matrix_value_bound, repair_matrix, verify_matrix
        from ..lp.status import decide_status
        from ..mechanism import exponential_mechanism

        lk, lk_err = self._pair_log_kappa(), self._log_kappa_error()
        if verify_matrix(W, self.space, eps, lk, lk_err):
            return W, status, value, bounds, cert
        slack, fixed, best = eps - getattr(self, "eps_X", 0.0), None, math.inf
        cost = self._lifted_p_x()[:, None] * self.space.hamming_matrix()
        if slack > 0 and math.isfinite(slack):
            level = slack - min(1.0, 0.5 * slack)
            # the constant mechanism lies far above W's tiny entries at large ε: a tiny weight gives them room
            refs = [(exponential_mechanism(self.space, level).matrix, 1e-16)] if level > 0 else []
            for ref, start in [*refs, (np.ones_like(W), None)]:
                cand, t = repair_matrix(W, ref, self.space, eps, lk, lk_err, default_start=start)
                if cand is not None and (bound := matrix_value_bound(cand, cost)) < best:
                    fixed, best = cand, bound
                if t == 0.0:  # closed without a mixture (``close_matrix``): the next reference gives the same
                    break
        elif slack == 0.0:
            # ε = ε_min (PD-DP and R-PD at ε = 0): no interior, but identical rows are exactly feasible wherever
            # e^ε κ ≥ 1 (verify_matrix decides); the constant mechanism with W's column means
            C = np.broadcast_to(W.mean(axis=0), W.shape).copy()
            fixed = C if verify_matrix(C, self.space, eps, lk, lk_err) else None
        if fixed is None:  # the returned matrix is not proved feasible: never "optimal"
            if status is Status.OPTIMAL:
                status = decide_status(bounds.lower, bounds.upper, feasible=False)
            return W, status, value, bounds, cert
        # p_X is computed through logarithms: the bound is widened by its rounding
        up = matrix_value_bound(fixed, cost) * (1.0 + self._objective_error())
        value = float(np.sum(cost * (fixed / fixed.sum(axis=1, keepdims=True))))
        new = Bounds(min(bounds.lower, up), up)
        cert = replace(cert, lower_bound=new.lower, upper_bound=new.upper, primal_objective=value)
        # the lifted matrix is exactly feasible; the reduced answer's status still has to have been optimal
        status = decide_status(new.lower, new.upper, feasible=status is Status.OPTIMAL)
        return fixed, status, value, new, cert

    def _theorem_solution(
        self, u: np.ndarray, value: float, bounds: Bounds, theorem: str, eps: float
    ) -> LPSolution:
        """A reduced point proved optimal by a theorem, in the shape of an LP solution (no multipliers)."""
        from ..certificate import theorem_certificate
        from ..solvers.stats import SolverStats

        return LPSolution(
            z=u,
            value=value,
            bounds=bounds,
            status=decide_status(bounds.lower, bounds.upper),
            nu=np.zeros(self.lp.spec.G),
            lam=np.zeros(self.lp.P),
            reduced_costs=np.zeros(u.size),
            certificate=theorem_certificate(value, bounds.lower, bounds.upper, theorem),
            stats=SolverStats("theorem", 0.0, 0.0, 0, (("theorem", theorem),)),
            eps=float(eps),
            mix=0.0,
        )

    def _distance_theorem(self, eps: float) -> SolveResult:
        """Uniform prior (PD-DP, PD-I) and R-PD on the distance reduction: the optimum is h(ε) (Wang, Ying & Zhang 2016,
        Lemma 1; Lemma 5 / Theorem 1 (19) with ε_X = 0; Lemma 4 with ε̃_X = 0), attained by E_d, whose distance
        law is g[l] = N_l e^{−εl}/(1+(m−1)e^{−ε})ⁿ."""
        from ..closed_forms import h
        from ..programs.theorem import CLOSED_FORM_MARGIN

        value = float(h(eps, self.n, self.m))
        bounds = Bounds(value * (1 - CLOSED_FORM_MARGIN), value * (1 + CLOSED_FORM_MARGIN))
        u = np.exp(self.lp.spec.log_profile(eps))
        u = u / u.sum()
        theorem = {
            "r-pd": "Wang, Ying & Zhang (2016) Lemma 1: R-PD = h(ε), attained by E_d with a uniform input marginal (R-PD has no "
            "prior: the input marginal is a variable)",
            "pd-dp": "Wang, Ying & Zhang (2016) Lemma 5 (E_d) and Theorem 1 (19), uniform prior (ε_X = 0)",
            "pd-i": "Wang, Ying & Zhang (2016) Lemma 4 (E_i = E_d), uniform prior (ε̃_X = 0), and Lemma 1",
        }[self.program]
        sol = self._theorem_solution(u, value, bounds, theorem, eps)
        return self._result(sol, "distance", {"theorem": theorem})

    def _constant_theorem(self, eps: float = 0.0) -> SolveResult:
        """ε = 0 on joint types: a 0-DP mechanism is constant (the neighbour graph is connected), and for a
        row-exchangeable prior E d(X, y) = n − Σ_k P(X_k = y_k) is least at y* = (a*, …, a*), a* the most
        likely value of a row.  In joint types: u[T] = 1 for T = t ⊗ e_{a*}, else 0."""
        u = self._constant_u()
        value = float(self.lp.spec.c @ u)
        err = (4.0 * (u.size + 4) * 2.0**-53 + self._objective_error()) * value
        bounds = Bounds(max(0.0, value - err), value + err)
        theorem = (
            "ε = 0: a 0-DP mechanism is constant; the best one outputs (a*, …, a*), a* = argmax P(X_k = a)"
        )
        if eps > 0:  # nε ≤ 1e-7: the optimum is at least e^{−nε} times the constant's (programs.theorem)
            bounds = Bounds(constant_lower(bounds.lower, eps, self.n), bounds.upper)
            theorem = SMALL_EPS_THEOREM
        sol = self._theorem_solution(u, value, bounds, theorem, eps)
        res = self._result(sol, self.reduction, self._extras())
        res.extras["theorem"] = theorem
        return res

    def _constant_u(self) -> np.ndarray:
        """The best constant mechanism in joint types: u[T] = 1 for T = t ⊗ e_{a*}, a* = argmax P(X_k = a)."""
        J = self.types
        assert J is not None
        px = np.exp(self.log_px_type)
        mean_row = (px[:, None] * J.x_types).sum(axis=0) / self.n  # π̄_a = P(X_k = a)
        a_star = int(np.argmax(mean_row))
        T = J.T.reshape(J.size, self.m, self.m)
        t = J.x_types[J.x_index]
        return np.all(T[:, :, a_star] == t, axis=1).astype(float)

    def _mechanism(self, u, reduction, extras):  # noqa: ANN001, ANN202
        """The lifted N×N mechanism and the input law p_X (database level, up to ``lift_limit``), or the type
        channel and ``None``."""
        if self.space.size <= self.lift_limit:
            W = _lift_matrix(self.n, self.m, reduction, u, self.types)
            extras["mechanism_level"] = "database"
            return Mechanism.on_space(W, self.space, clean=True), self._lifted_p_x()
        extras["mechanism_level"] = "type"
        return _type_channel(self.n, self.m, reduction, u, self.types), None

    def _lifted_p_x(self) -> np.ndarray:
        return np.full(self.space.size, 1.0 / self.space.size)


class _PriorProgram(_Base):
    """Shared construction of ReducedPDDP / ReducedPDI."""

    def __init__(
        self,
        prior: Prior | SymmetricPrior,
        *,
        backend: str | None = None,
        solver: str | None = None,
        lift_limit: int = LIFT_LIMIT,
        force_joint_types: bool = False,
    ) -> None:
        sym = as_symmetric(prior)
        super().__init__(sym.n, sym.m, backend, solver, lift_limit)
        self.prior = sym
        self._dense_pmf = prior.pmf if isinstance(prior, Prior) else None
        start = time.perf_counter()
        self.reduction = "distance" if (sym.kind == "uniform" and not force_joint_types) else "joint-type"
        if self.reduction == "distance":
            self.lp = DistanceLP(sym.n, sym.m, program=self.program).lp
            size = self.lp.K
        else:
            size = math.comb(sym.n + sym.m**2 - 1, sym.m**2 - 1)  # the joint types
            # self.types is set by _build_joint_types on first use (__getattr__): the theorem paths
            # (single-letterisation, the mixture sandwich, constant outputs, Lemma 4) need no joint types
            del self.types
            self.__dict__["_deferred"] = True
        if self.backend == "auto":
            self.backend = choose_backend(self.reduction, sym.m, size)
        self.setup_time = time.perf_counter() - start

    def __getattr__(self, name: str) -> Any:
        """The joint-type LP of an i.i.d. prior (or of PD-DP), built on first use of one of :data:`_DEFERRED`."""
        if name in _DEFERRED and self.__dict__.pop("_deferred", False):
            try:
                self._build_joint_types()
            except BaseException:
                self.__dict__["_deferred"] = True
                raise
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _build_joint_types(self) -> None:
        """The joint-type reduction of the module docstring: types, x-type laws and the reduced LP."""
        sym = self.prior
        J = JointTypes(sym.n, sym.m)
        self.types = J
        mv = J.moves
        self.log_px_type = sym.log_type_probability(J.x_types)  # ln P(t(X) = t)
        self.log_mass = sym.log_mass(J.x_types)  # ln p_X(x) for one x of type t
        weight = np.exp(self.log_px_type)[J.x_index]
        c = weight * J.distance
        A = sp.csr_matrix(
            (np.ones(J.size), (J.x_index, np.arange(J.size))), shape=(J.x_types.shape[0], J.size)
        )
        lk = self._log_kappa(mv)
        logc, dist, n_, m_ = J.log_count_given_x, J.distance, sym.n, sym.m

        def log_profile(e: float) -> np.ndarray:  # E_d: P(T | t) = c(T|t) Π K_ab^{T_ab}
            return logc - dist * e - n_ * math.log1p((m_ - 1) * math.exp(-e))

        self.lp = ReducedLP(
            c,
            A,
            np.ones(A.shape[0]),
            mv.src,
            mv.dst,
            lk,
            program=self.program,
            log_profile=log_profile,
            eps_min=getattr(self, "eps_X", 0.0),
            constant=self._constant_u() > 0.5,  # 0/1: kept as booleans
            m=sym.m,
            log_group_mass=self.log_px_type if self.program == "pd-dp" else None,
        )
        del mv, lk
        J.__dict__.pop("moves", None)  # the LP keeps what it needs (m = 2, n = 200: 83–124 MB of moves)
        self.lp.spec.cache["mirror"] = J.mirror  # a symmetry when the prior has it: problems.lp.fold

    def _log_kappa(self, mv) -> np.ndarray:
        return mv.log_kappa

    def _lifted_p_x(self) -> np.ndarray:
        if self._dense_pmf is not None:
            return np.asarray(self._dense_pmf)
        e = self.space.elements
        t = np.stack([(e == a).sum(axis=1) for a in range(self.m)], axis=1)
        return np.exp(self.prior.log_mass(t))

    def _extras(self) -> dict[str, Any]:
        d: dict[str, Any] = {"prior": self.prior.to_dict()}
        if self.types is not None:
            d["x_type_probability"] = np.exp(self.log_px_type)
            d["objective_error"] = self._objective_error()  # relative, widening the LP's bounds
        return d

    def solve(
        self, eps: float, *, solver: str | None = None, method: str = "auto", path: str | None = None
    ) -> SolveResult:
        """The reduced program at ε; ``method`` and ``solver``: :mod:`problems.dispatch` (``path``: deprecated)."""
        from ..closed_forms import check_eps

        if path is not None:  # the deprecated name of method=
            method = method_from_path(method, path)
        eps = check_eps(eps)
        if method not in METHODS:
            check_method(method)  # bad input naming the valid methods
        if method != "lp" and self.reduction != "distance":  # an i.i.d. prior: n × the one-row answer
            res = product_theorem(self, eps, solver=solver or self.solver)
            if res is None and self.program == "pd-dp":  # a mixture: the sandwich, constant outputs
                res = mixture_theorem(self, eps, solver=solver or self.solver)
            elif res is None:  # PD-I, an exchangeable prior: Lemma 4 where its output law is non-negative
                res = mixture_identifiability_theorem(self, eps)
            if res is not None:
                return res
            if (early := self._before_lp(eps)) is not None:
                return early
        tiny = in_tiny_regime(self.lp.spec, eps)  # large ε: the LP answers without solving (lp.tiny)
        if self.reduction == "distance" and (method != "lp" or eps == 0.0) and not tiny:
            return self._distance_theorem(eps)
        if eps == 0.0 or (small_eps(eps, self.n) and getattr(self, "eps_X", 0.0) == 0.0):
            # no interior (or nε ≤ 1e-7): the best constant mechanism; the uniform prior's distance LP has no
            # joint types and its closed form h(ε) holds at every ε
            return (
                self._distance_theorem(eps) if self.reduction == "distance" else self._constant_theorem(eps)
            )
        if method == "theorem":
            raise InvalidInputError(
                f"no theorem answers {self.program} for the prior {self.prior.name} at ε = {eps:g}: the theorem path "
                "needs the uniform prior, an i.i.d. prior whose one-row program is certified (single-letterisation, "
                "problems.orbit.product_prior) or a mixture prior whose components allow it at ε (PD-DP: the "
                "mixture sandwich, problems.orbit.mixture_prior; PD-I: Lemma 4 with p_Y ≥ 0, "
                "problems.orbit.mixture_pd_i); use method='auto' or 'lp'"
            )
        hint = (
            self.__dict__.pop("_constant_hint", False) and method != "lp"
        )  # constant outputs: try them first
        self.lp.spec.cache["active_hint"] = constant_output_blocks(self) if hint else None
        # the sandwich's lower side (a mixture's PD-DP, proved for the exact prior), valid for the float LP too
        at, lower = self.__dict__.pop("_sandwich_lower", (eps, 0.0))
        known = lower * (1.0 - 2.0 * self._objective_error()) if at == eps and method != "lp" else 0.0
        sol = self.lp.solve(
            eps, prefer=self._lp_backend(eps), solver=solver or self.solver, known_lower=known
        )
        sol = with_objective_error(sol, self._objective_error())
        return self._result(sol, self.reduction, self._extras())

    def _objective_error(self) -> float:
        """The LP's costs P(t(X) = t)·d carry the type law's rounding (through logarithms: ``type_law_margin``)
        and one rounding of the product; the bounds are widened by it (``lp.solution.with_objective_error``)."""
        if self.reduction == "distance":
            return 0.0  # the distance LP of the uniform prior: its costs d = 0..n are exact
        return type_law_margin(self.prior, components(self.prior)) + 2.0 * UNIT_ROUNDOFF

    def _before_lp(self, eps: float) -> SolveResult | None:
        """An answer without the LP where running it is known to be futile (PD-I: ``boundary_band``)."""
        return None

    def _lp_backend(self, eps: float) -> str | tuple[str, ...]:
        """The back ends the LP at ε tries first (:func:`~problems.orbit.backend_choice.first_backends`)."""
        return first_backends(self.backend, self.m, eps, floored=self.lp.spec.log_group_mass is not None)


class ReducedPDDP(_PriorProgram):
    """PD-DP (Wang, Ying & Zhang 2016, (13)–(15)) reduced to joint types (or distances for the uniform prior).

    ``ReducedPDDP(prior).solve(eps)`` returns the same :class:`~problems.result.SolveResult` as
    :class:`problems.programs.PDDP`; the duals and certificate refer to the reduced LP.  ``prior`` is a
    :class:`~problems.priors.Prior` of kind uniform/iid/exchangeable or a
    :class:`~problems.orbit.symmetric_prior.SymmetricPrior` (any n).  ``solver`` names the back end of
    :mod:`problems.solvers` tried first (``block``: :mod:`problems.ipm.block`); without it the program's own
    choice (:func:`choose_backend`, kept as ``.backend``) goes first.  ``backend=`` is its deprecated name.  For
    an i.i.d. prior ``method="auto"`` / ``"theorem"`` answer by single-letterisation at any n
    (:mod:`problems.orbit.product_prior`; the joint types are then never built), ``method="lp"`` by the reduced LP.
    """

    program = "pd-dp"


class ReducedPDI(_PriorProgram):
    """PD-I (Wang, Ying & Zhang 2016, (8)–(12), as the LP in the joint) reduced to joint types (distances if uniform).

    Ratio coefficients carry the extra factor p_X(x')/p_X(x).  Infeasible for ε < ε_X (Lemma 3), computed here
    over moves between x-types: ε_X = max |ln p_X(x') − ln p_X(x)|.  An i.i.d. prior is answered as for
    :class:`ReducedPDDP` (single-letterisation; Lemma 4's E_i^{(1)⊗n} is the case where the one row is E_i).
    """

    program = "pd-i"

    def __init__(self, prior: Prior | SymmetricPrior, **kwargs) -> None:
        sym = as_symmetric(prior)
        self.prior = sym
        # uniform / i.i.d.: the smallest float ε ≥ the exact ε_X (PD-I is feasible from here on, Lemma 3)
        self.eps_X = round_up_eps_X(_eps_X(sym), self._exact_eps_X_ratio())
        super().__init__(prior, **kwargs)

    def _build_joint_types(self) -> None:
        super()._build_joint_types()
        self.lp.spec.alt_log_scale = self._joint_log_scale

    def _joint_log_scale(self, eps: float) -> np.ndarray:
        """ln of a column scaling for the CLARABEL-ALT back end: the joint p_X(x)W(y|x) ∝ p_X(y) e^{−εd(x,y)},
        i.e. u ∝ c(T|t)·p_X(y)/p_X(x)·e^{−εd}, with the largest entry of every x-type row set to 1.

        Where ε_X is large (contagious priors: e^{ε_X} ≈ 1e14 at n = 30) the ratio rows mix e^{±ε_X}; in these
        columns their coefficients are O(1).  Scaling only: it never enters a proof."""
        J = self.types
        assert J is not None  # installed only where the joint types exist
        if "log_py_px" not in self.lp.spec.cache:
            with np.errstate(invalid="ignore"):
                self.lp.spec.cache["log_py_px"] = (
                    J.log_count_given_x + self.prior.log_mass(J.y_types) - self.log_mass[J.x_index]
                )
        ls = self.lp.spec.cache["log_py_px"] - eps * J.distance
        ls = np.where(np.isfinite(ls), ls, -np.inf)
        top = np.full(J.x_types.shape[0], -np.inf)
        np.maximum.at(top, J.x_index, ls)
        return ls - top[J.x_index]

    def _log_kappa(self, mv) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return mv.log_kappa + self.log_mass[mv.x_dst] - self.log_mass[mv.x_src]

    def _exact_eps_X_ratio(self):  # noqa: ANN202 - Fraction | None
        """e^{ε_X} as an exact ratio of the prior defined by its float parameters: 1 (uniform), π_max/π_min
        (i.i.d.), and for an m = 2 exchangeable mixture the largest p_k/p_{k±1} of the exact masses
        p_k = Σ_j w_j π_j(0)^{n−k} π_j(1)^k (rational arithmetic, :func:`~problems.prior_constants.mixture_eps_X_ratio`); ``None`` for
        mixtures with m ≥ 3."""
        from fractions import Fraction

        if "exact_eps_X_ratio" in self.__dict__:
            return self.__dict__["exact_eps_X_ratio"]
        got = None
        if self.prior.kind == "uniform":
            got = Fraction(1)
        elif self.prior.kind == "iid" and self.prior.has_full_support:
            row = [Fraction(float(v)) for v in self.prior.row_pmfs[0]]
            got = max(row) / min(row)
        elif self.prior.m == 2 and self.prior.has_full_support:
            got = mixture_eps_X_ratio(self.prior)
        self.__dict__["exact_eps_X_ratio"] = got
        return got

    def _boundary(self, res: SolveResult, eps: float) -> SolveResult:
        """Near ε_X, where no LP point can be verified (no interior), the best constant mechanism is exactly
        feasible once ε ≥ ε_X is decided exactly; it replaces an answer without a finite upper bound."""
        from dataclasses import replace

        from ..certificate import theorem_certificate

        exact = self._exact_eps_X_ratio()
        if (
            math.isfinite(res.bounds.upper)
            or exact is None
            or self.prior.kind not in ("uniform", "iid")  # mixtures: the LP's answer and lower bound stand
            or not exp_at_least(eps, exact)
            or self.types is None
        ):
            return res
        const = self._constant_theorem(0.0)
        up = const.bounds.upper
        lower = min(res.bounds.lower, up)
        theorem = (
            "ε ≥ ε_X (decided exactly): the best constant mechanism is feasible (p_X(x) ≤ e^ε p_X(x')); "
            "lower bound from the LP's multipliers"
        )
        return replace(
            const,
            eps=eps,
            status=decide_status(lower, up),
            bounds=Bounds(lower, up),
            certificate=theorem_certificate(const.value, lower, up, theorem),
            extras={**const.extras, "theorem": theorem},
        )

    def _pair_log_kappa(self) -> np.ndarray | None:
        """PD-I in W = p_{Y|X}: W(x,y) ≤ e^ε (p_X(x')/p_X(x)) W(x',y) (κ = 1 exactly for the uniform prior)."""
        if self.prior.kind == "uniform":
            return None
        i, j = self.space.neighbour_pairs
        logp = np.log(self._lifted_p_x())
        return logp[j] - logp[i]

    def _log_kappa_error(self) -> float:
        """ln p(x') − ln p(x) in floating point: 2 ulp per logarithm and the difference (8u · max |ln p|)."""
        if self.prior.kind == "uniform":
            return 0.0
        return 8.0 * 2.0**-53 * float(np.max(np.abs(np.log(self._lifted_p_x())))) + 1e-300

    def _before_lp(self, eps: float) -> SolveResult | None:
        """Just above ε_X (no interior), a joint-type LP above ``BAND_LP_MAX_VARIABLES`` is not run: bounds."""
        size = math.comb(self.n + self.m**2 - 1, self.m**2 - 1)
        if self.reduction == "distance" or size <= BAND_LP_MAX_VARIABLES:
            return None
        return (
            band_answer(self, eps, size) if eps - self.eps_X <= INTERIOR_MARGIN * (1.0 + abs(eps)) else None
        )

    def _lp_backend(self, eps: float) -> str | tuple[str, ...]:
        """The back ends the LP at ε tries first (:func:`~problems.orbit.backend_choice.first_backends`)."""
        no_interior = eps - self.eps_X <= INTERIOR_MARGIN * (1.0 + abs(eps))  # as in solvers.chain
        return first_backends(
            self.backend, self.m, eps, eps_X=self.eps_X, at_boundary=no_interior, variables=self.lp.K
        )

    def solve(
        self, eps: float, *, solver: str | None = None, method: str = "auto", path: str | None = None
    ) -> SolveResult:
        """PD-I at ε (infeasible below ε_X); ``method`` and ``solver``: :mod:`problems.dispatch`."""
        if path is not None:  # the deprecated name of method=
            method = method_from_path(method, path)
        e = float(eps)
        if math.isinf(self.eps_X):
            raise InfeasibleProgramError(
                self.program,
                "the prior gives zero mass to some database, so ε_X = ∞ and no finite identifiability level "
                f"ε = {e:g} is achievable",
            )
        exact = self._exact_eps_X_ratio()
        if near_eps_X(e, self.eps_X) and exact is not None:
            below = not exp_at_least(e, exact)  # decided exactly for uniform and i.i.d. priors
        else:
            below = e < self.eps_X - 1e-12
        if below:
            raise InfeasibleProgramError(
                self.program,
                f"ε = {e!r} is below ε_X ≈ {self.eps_X!r}: summing (8) over y forces p_X(x) ≤ e^ε p_X(x') for "
                "all neighbours, which this prior violates (Wang, Ying & Zhang 2016, Lemma 3"
                + ("; decided exactly)" if near_eps_X(e, self.eps_X) and exact is not None else ")"),
            )
        res = super().solve(max(e, 0.0), solver=solver, method=method)
        return self._boundary(res, e) if near_eps_X(e, self.eps_X) else res


class ReducedRPD(_Base):
    """R-PD (Wang, Ying & Zhang 2016, (20)–(24)) reduced to the distance d(x, y): n + 1 variables, optimum h(ε) (Lemma 1).

    The lifted optimal joint has uniform input marginal (``extras["p_x"]`` when lifted).
    """

    program = "r-pd"

    def __init__(
        self,
        space: DatabaseSpace,
        *,
        backend: str | None = None,
        solver: str | None = None,
        lift_limit: int = LIFT_LIMIT,
    ) -> None:
        if not isinstance(space, DatabaseSpace):
            raise InvalidInputError(f"ReducedRPD needs a DatabaseSpace, got {type(space).__name__}")
        super().__init__(space.n, space.m, backend, solver, lift_limit)
        self.lp = DistanceLP(space.n, space.m, program=self.program).lp
        if self.backend == "auto":
            self.backend = choose_backend("distance", space.m, self.lp.K)

    def solve(
        self, eps: float, *, solver: str | None = None, method: str = "auto", path: str | None = None
    ) -> SolveResult:
        """R-PD at ε; ``method`` and ``solver``: :mod:`problems.dispatch` (``path``: deprecated)."""
        from ..closed_forms import check_eps

        if path is not None:  # the deprecated name of method=
            method = method_from_path(method, path)
        eps = check_eps(eps)
        if method not in METHODS:
            check_method(method)  # bad input naming the valid methods
        if (method != "lp" or eps == 0.0) and not in_tiny_regime(self.lp.spec, eps):
            res = self._distance_theorem(eps)
        else:
            sol = self.lp.solve(eps, prefer=self.backend, solver=solver or self.solver)
            res = self._result(sol, "distance", {})
        if self.space.size <= self.lift_limit:
            res.extras["p_x"] = self._lifted_p_x()
        return res


#: ε_X over the moves between x-types; defined with the other prior constants
#: (:func:`problems.prior_constants.eps_X_symmetric`).
_eps_X = eps_X_symmetric

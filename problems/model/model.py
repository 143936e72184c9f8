r"""The mechanism-design model: pose a privacy question as a CVXPY program, get the toolkit's certificate.

.. code-block:: python

    from problems.model import MechanismModel, privacy
    model = MechanismModel(prior=p, loss=L)          # N = len(p) inputs, K = L.shape[1] outputs
    model.add(privacy.differential(1.0, neighbours=pairs))
    res = model.solve()                               # minimise the expected loss Σ p(x) W[x,y] L[x,y]

The variable is the mechanism :math:`W[x,y] = p(y\mid x)` (``model.W``, a CVXPY variable, rows summing to
one).  The default objective is the expected loss; :meth:`MechanismModel.minimise` switches to the mutual
information I(X;Y) (then bound the loss with ``privacy.expected_loss``).

**How it is solved** (``res.path`` says which way it went; the solve choice ``formulation=``, ``method=``,
``solver=`` is that of :mod:`problems.dispatch`):

* ``"program"`` — the model *is* PD-DP or PD-I of Wang, Ying & Zhang (2016) (:meth:`MechanismModel.recognised`):
  the program of :data:`problems.dispatch.REGISTRY` answers, with its theorem path;

* ``"lp-core"`` — every constraint has the ratio form :math:`W[i,y] \le e^{a_p} W[j,y]` (ε-DP, local,
  metric, identifiability, (ε, 0)-DP), the objective is the expected loss with L ≥ 0 and there are no
  user constraints: the model is exactly a :class:`~problems.lp.RatioLPSpec` (z = vec W, one group per row,
  ε = min a_p, κ_p = e^{a_p − ε}) and goes through :func:`problems.solvers.solve` — the chain of back ends,
  the exact repair and the safe dual bound of ``docs/certificates.md``;
* ``"cvxpy-lp"`` / ``"cvxpy-conic"`` — anything else: the CVXPY problem is solved with Clarabel (SCS, and
  HiGHS for LPs, on failure) and certified on the returned mechanism by :mod:`problems.model.certify`.

``method="lp"`` solves the model's own ratio LP (even for PD-DP / PD-I themselves), ``method="theorem"``
only the closed form of a recognised program; ``solver="cvxpy"`` solves the CVXPY problem whatever the model
(another ``solver`` names the back end tried first).  A model is solved in full (the N×N program of a
recognised one) unless ``formulation="reduced"`` asks for the orbit-reduced program of a recognised model
whose prior is invariant under permuting rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import cvxpy as cp
import numpy as np

from ..certificate import Certificate
from ..database import DatabaseSpace
from ..errors import InfeasibleProgramError, InvalidInputError, InvalidPriorError
from ..lp import Bounds, RatioLPSpec, Status
from ..lp.status import decide_status
from ..mechanism import Mechanism
from ..priors import Prior, validate_pmf
from ..result import SolveResult
from ..solve_choice import check_formulation, check_method
from ..solvers.chain import solve as solve_lp
from ..solvers.conic import solve_with_fallback
from ..solvers.settings import UNIT_ROUNDOFF as _U
from .certify import feasible_mixture, lagrangian_bound, margin_eta
from .conic_bounds import capacity_bound, refine_points
from .losses import as_loss
from .paths import PATHS, route_from_path
from .privacy import (
    Built,
    ExpectedLoss,
    ModelContext,
    MutualInformation,
    PrivacyConstraint,
    mutual_information_expr,
    mutual_information_grad,
    mutual_information_size,
    mutual_information_value,
)

__all__ = ["MechanismModel", "ModelResult", "PATHS", "OBJECTIVES"]

OBJECTIVES = ("expected_loss", "mutual_information")


@dataclass(frozen=True, eq=False)
class ModelResult(SolveResult):
    """A :class:`~problems.result.SolveResult` with the model's own fields in ``extras``.

    ``path`` (``"lp-core"``, ``"cvxpy-lp"``, ``"cvxpy-conic"``), ``violations`` (largest violation of every
    constraint on the returned mechanism, ≤ 0 when satisfied), ``covers`` (the constraints the certificate
    covers) and ``unchecked`` (user CVXPY constraints: evaluated in floating point, not proved).
    """

    @property
    def path(self) -> str:
        return self.extras["path"]

    @property
    def violations(self) -> dict[str, float]:
        return self.extras["violations"]

    @property
    def covers(self) -> list[str]:
        return self.extras["covers"]

    @property
    def unchecked(self) -> list[dict]:
        return self.extras["unchecked"]

    def to_dict(self, **kwargs) -> dict:
        d = super().to_dict(**kwargs)
        d["extras"].pop("model_spec", None)  # the full model goes to export_model, not to every summary
        d["path"] = self.path
        return d


def _prior(prior) -> np.ndarray:
    p = getattr(prior, "pmf", prior)
    try:
        arr = np.asarray(p, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidPriorError(f"prior must be a vector of probabilities, got {prior!r}") from exc
    if arr.ndim != 1:
        raise InvalidPriorError(f"prior must be a 1-D vector p(x), got shape {arr.shape}")
    return validate_pmf(arr, name="prior")


class MechanismModel:
    """A mechanism-design program on ``N = len(prior)`` inputs and ``K = loss.shape[1]`` outputs.

    Parameters
    ----------
    prior:
        p(x), a pmf (array or :class:`~problems.priors.Prior`).
    loss:
        ``(N, K)`` loss matrix L[x, y] (see :mod:`problems.model.losses`).
    name:
        Program name in results and messages.
    input_labels, output_labels:
        Labels of the mechanism's rows and columns (default ``"0", "1", …``).
    """

    def __init__(
        self,
        prior,
        loss,
        *,
        name: str = "model",
        input_labels=None,
        output_labels=None,
    ) -> None:
        p = _prior(prior)
        L = as_loss(loss, p.size)
        self._source_prior = prior if isinstance(prior, Prior) else None  # its kind: formulation="reduced"
        self.ctx = ModelContext(p, L)
        self.name = str(name)
        self.input_labels = tuple(input_labels) if input_labels is not None else None
        self.output_labels = tuple(output_labels) if output_labels is not None else None
        self.W = cp.Variable((self.N, self.K), nonneg=True, name="W")
        self.constraints: list[PrivacyConstraint] = []
        self.user_constraints: list[tuple[str, cp.Constraint]] = []
        self.objective = "expected_loss"
        self._built: tuple[cp.Problem, list[Built]] | None = None

    # ------------------------------------------------------------------------------------ sizes
    @property
    def N(self) -> int:
        return self.ctx.N

    @property
    def K(self) -> int:
        return self.ctx.K

    @property
    def prior(self) -> np.ndarray:
        return self.ctx.prior

    @property
    def loss(self) -> np.ndarray:
        return self.ctx.loss

    # ------------------------------------------------------------------------------------ building
    def add(self, constraint: PrivacyConstraint) -> MechanismModel:
        """Add a toolkit constraint (from :mod:`problems.model.privacy`); returns the model."""
        if not isinstance(constraint, PrivacyConstraint):
            raise InvalidInputError(
                f"add() takes a constraint from problems.model.privacy, got {type(constraint).__name__}; "
                "use add_constraint() for your own CVXPY constraints on model.W"
            )
        self._require_memory(constraint)
        constraint.validate(self.ctx)
        self.constraints.append(constraint)
        self._built = None
        return self

    def _require_memory(self, constraint: PrivacyConstraint) -> None:
        """Refuse (ProblemTooLargeError) a constraint whose ratio rows would not fit the memory budget.

        A ratio constraint has one row per (ordered neighbour pair, output): its neighbour relation's
        :func:`~problems.model.neighbours.pair_count` times K; a metric constraint up to N(N−1)·K.  The peak is
        estimated as for the dense programs (:data:`problems.resources.BYTES_PER_RATIO_ROW` per row), on top
        of the rows of the constraints already added.  Checked before any pair is built.
        """
        from .neighbours import pair_count, require_model_memory

        def rows(c: PrivacyConstraint) -> int:
            if getattr(c, "kind", "") == "metric":
                return self.N * (self.N - 1) * self.K
            if hasattr(c, "neighbours"):
                return pair_count(c.neighbours, self.N) * self.K
            return 0

        total = sum(rows(c) for c in (*self.constraints, constraint))
        require_model_memory(self.name, self.N, self.K, total)

    def add_constraint(self, constraint: cp.Constraint, name: str | None = None) -> MechanismModel:
        """Add your own CVXPY constraint on ``model.W``.  The certificate does not prove it (see ``unchecked``)."""
        if not isinstance(constraint, cp.constraints.constraint.Constraint):
            raise InvalidInputError(
                f"add_constraint() takes a CVXPY constraint, got {type(constraint).__name__}"
            )
        self.user_constraints.append((name or f"user {len(self.user_constraints)}", constraint))
        self._built = None
        return self

    def minimise(self, objective) -> MechanismModel:
        """Choose the objective: ``"expected_loss"`` (default) or ``privacy.mutual_information()``."""
        if isinstance(objective, MutualInformation) and objective.at_most is None:
            objective = "mutual_information"
        if objective not in OBJECTIVES:
            raise InvalidInputError(
                f"objective must be 'expected_loss' or privacy.mutual_information() (no at_most), got {objective!r}"
            )
        self.objective = objective
        self._built = None
        return self

    minimize = minimise

    def _names(self) -> list[str]:
        return [f"{k}:{c.kind}" for k, c in enumerate(self.constraints)]

    @property
    def linear(self) -> bool:
        """Whether every toolkit constraint and the objective are linear in W (user constraints not counted)."""
        return self.objective == "expected_loss" and all(c.linear for c in self.constraints)

    def _objective_expr(self) -> cp.Expression:
        if self.objective == "mutual_information":
            return mutual_information_expr(self.W, self.prior)
        return cp.sum(cp.multiply(self.prior[:, None] * self.loss, self.W))

    def _build(self) -> tuple[cp.Problem, list[Built]]:
        if self._built is None:
            builts = [c.build(self.W, self.ctx) for c in self.constraints]
            cons = [cp.sum(self.W, axis=1) == 1]
            for b in builts:
                cons += b.constraints
            cons += [c for _, c in self.user_constraints]
            self._built = (cp.Problem(cp.Minimize(self._objective_expr()), cons), builts)
        return self._built

    @property
    def problem(self) -> cp.Problem:
        """The CVXPY problem (objective, row sums, every constraint); solve it yourself if you like."""
        return self._build()[0]

    def recognised(self) -> tuple[str, Any, float] | None:
        """``(program, space, ε)`` when the model *is* PD-DP or PD-I of Wang, Ying & Zhang (2016), else ``None``.

        That is: the expected Hamming loss on the databases of a :class:`~problems.database.DatabaseSpace`
        (outputs = inputs), one ε-DP or ε-identifiability constraint with that space's neighbours, and nothing
        else.  Such a model is solved by :class:`~problems.programs.PDDP` / :class:`~problems.programs.PDI`,
        with their theorem path (closed forms of Wang, Ying & Zhang (2016)) and structured interior-point method.
        """
        from .privacy import Differential, Identifiability

        if self.objective != "expected_loss" or self.user_constraints or len(self.constraints) != 1:
            return None
        c = self.constraints[0]
        if type(c) not in (Differential, Identifiability):
            return None
        c = cast(Differential | Identifiability, c)
        if not isinstance(c.neighbours, DatabaseSpace):
            return None
        space = c.neighbours
        if space.size != self.N or self.K != self.N:
            return None
        from .losses import hamming

        if not np.array_equal(self.loss, hamming(space)):
            return None
        return ("pd-dp" if type(c) is Differential else "pd-i"), space, float(c.eps)

    def route(self) -> str:
        """``"program"`` for PD-DP / PD-I themselves (:meth:`recognised`), ``"lp-core"`` for any other ratio
        LP, else ``"cvxpy"``."""
        if self.recognised() is not None:
            return "program"
        if self.objective != "expected_loss" or self.user_constraints or np.any(self.loss < 0):
            return "cvxpy"
        if all(c.ratio_rows(self.ctx) is not None for c in self.constraints):
            return "lp-core"
        return "cvxpy"

    # ------------------------------------------------------------------------------------ values
    def objective_value(self, W: np.ndarray) -> float:
        """The objective at a mechanism (NumPy)."""
        if self.objective == "mutual_information":
            return mutual_information_value(W, self.prior)
        return float(np.sum(self.prior[:, None] * self.loss * W))

    def _f_and_grad(self, W: np.ndarray) -> tuple[float, np.ndarray]:
        if self.objective == "mutual_information":
            return mutual_information_value(W, self.prior), mutual_information_grad(W, self.prior)
        c = self.prior[:, None] * self.loss
        return float(np.sum(c * W)), c

    def check(self, W) -> dict[str, float]:
        """Largest violation of every toolkit constraint on ``W`` (≤ 0: satisfied), plus the row sums."""
        W = np.asarray(getattr(W, "matrix", W), dtype=float)
        out = {"rows": float(np.max(np.abs(W.sum(axis=1) - 1.0))), "nonnegativity": float(-W.min(initial=0))}
        for name, c in zip(self._names(), self.constraints):
            out[name] = c.violation(W, self.ctx)
        return out

    def _user_violations(self, W: np.ndarray) -> list[dict]:
        if not self.user_constraints:
            return []
        old = self.W.value
        self.W.value = W
        try:
            out = [
                {"name": n, "violation": float(np.max(c.violation(), initial=0.0))}
                for n, c in self.user_constraints
            ]
        finally:
            self.W.value = old
        return out

    # ------------------------------------------------------------------------------------ solving
    def solve(
        self,
        *,
        formulation: str = "auto",
        method: str = "auto",
        solver: str | None = None,
        time_limit: float | None = None,
        path: str | None = None,
    ) -> ModelResult:
        """Solve the model and certify the answer (``res.path`` says how; module docstring).

        ``method``: ``"auto"`` — a model that is PD-DP or PD-I itself as that program (closed form where one
        applies), else the model's ratio LP, else its CVXPY problem; ``"lp"`` — the model's own ratio LP (bad
        input when it is not one); ``"theorem"`` — the closed form of a recognised program only.
        ``formulation``: ``"auto"``/``"dense"`` solve in full; ``"reduced"`` is the orbit-reduced program of a
        recognised model (:mod:`problems.dispatch`).  ``solver``: the back end tried first; ``"cvxpy"`` solves
        the CVXPY problem.  ``path`` is deprecated (:mod:`problems.model.paths`).
        """
        route = None
        if path is not None:
            method, route = route_from_path(path, method)
        check_formulation(formulation)
        check_method(method)
        for c in self.constraints:
            reason = c.infeasibility(
                self.ctx
            )  # e.g. identifiability below ε_X (Wang, Ying & Zhang 2016, Lemma 3)
            if reason is not None:
                raise InfeasibleProgramError(self.name, reason)
        through_cvxpy = route == "cvxpy" or str(solver).strip().lower() == "cvxpy"
        route = self._choose_route(formulation, method, through_cvxpy, route == "program")
        if route == "program":
            return self._solve_program(formulation, method, solver)
        if route == "lp-core":
            return self._solve_lp_core(solver, time_limit)
        return self._solve_cvxpy(None if str(solver).strip().lower() == "cvxpy" else solver)

    def _choose_route(self, formulation: str, method: str, through_cvxpy: bool, insist: bool) -> str:
        """``"program"``, ``"lp-core"`` or ``"cvxpy"`` for the solve choice (bad input where it cannot apply)."""
        natural = self.route()
        if method == "theorem" or formulation == "reduced" or insist:
            if natural != "program":
                asked = "method='theorem'" if method == "theorem" else "formulation='reduced'"
                asked = "path='program'" if insist else asked
                raise InvalidInputError(
                    f"{asked} needs a model that is PD-DP or PD-I "
                    "itself: the Hamming loss on a DatabaseSpace and one ε-DP or ε-identifiability constraint "
                    "with that space's neighbours"
                )
            return "program"
        if method == "lp" and natural == "cvxpy":
            raise InvalidInputError(
                "method='lp' needs a ratio LP: only ε-DP / local / metric / identifiability / (ε, 0)-DP "
                "constraints, the expected-loss objective with L ≥ 0, and no user constraints"
            )
        if through_cvxpy:
            return "cvxpy"
        return "lp-core" if method == "lp" else natural

    def _solve_program(self, formulation: str, method: str, solver) -> ModelResult:  # noqa: ANN001
        """PD-DP / PD-I from :mod:`problems.dispatch` (theorem path where a closed form applies)."""
        from ..dispatch import make_program
        from ..priors import from_pmf

        recognised = self.recognised()
        assert recognised is not None  # route() chose "program"
        name, space, eps = recognised
        prior: Prior = from_pmf(space, self.prior)
        kwargs: dict[str, Any] = {"solver": solver}
        if formulation == "reduced":  # the prior's kind decides whether the reduction applies
            source = self._source_prior
            prior = source if source is not None and source.space == space else prior
            kwargs["lift_limit"] = space.size  # the model's result is the N×N mechanism
        chosen = "reduced" if formulation == "reduced" else "dense"
        res = make_program(name, prior, chosen, **kwargs).solve(eps, method=method)
        return self._result(
            W=np.asarray(res.mechanism.matrix, dtype=float),
            value=res.value,
            status=res.status,
            bounds=res.bounds,
            cert=res.certificate,
            stats=res.stats,
            duals=res.duals,
            path="program",
            extras={"program": name, "program_path": res.extras.get("path", "lp")},
        )

    def ratio_spec(self) -> tuple[RatioLPSpec, float]:
        """The model as a :class:`~problems.lp.RatioLPSpec` and its ε (the smallest log-factor)."""
        N, K = self.N, self.K
        parts = [c.ratio_rows(self.ctx) for c in self.constraints]
        if any(r is None for r in parts):
            raise InvalidInputError("the model is not a ratio LP")
        rows = [r for r in parts if r is not None]
        if rows:
            i = np.concatenate([r[0] for r in rows]).astype(np.int64)
            j = np.concatenate([r[1] for r in rows]).astype(np.int64)
            a = np.concatenate([r[2] for r in rows]).astype(float)
        else:
            i = j = np.zeros(0, np.int64)
            a = np.zeros(0)
        if i.size:  # one row per ordered pair: the tightest factor
            code = i * N + j
            order = np.lexsort((a, code))
            first = np.ones(order.size, bool)
            first[1:] = code[order][1:] != code[order][:-1]
            sel = order[first]
            i, j, a = i[sel], j[sel], a[sel]
        eps = float(a.min()) if a.size else 1.0
        y = np.arange(K)
        spec = RatioLPSpec(
            c=(self.prior[:, None] * self.loss).ravel(),
            group=np.repeat(np.arange(N), K),
            b=np.ones(N),
            src=(i[:, None] * K + y).ravel(),
            dst=(j[:, None] * K + y).ravel(),
            log_kappa=np.repeat(a - eps, K),
            program=self.name,
            log_profile=lambda e: np.zeros(N * K),  # the constant mechanism: strictly feasible for ε > 0
            eps_min=0.0,
        )
        return spec, eps

    def _labels(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        ins = self.input_labels or tuple(str(k) for k in range(self.N))
        outs = self.output_labels or tuple(str(k) for k in range(self.K))
        return ins, outs

    def _result(self, *, W, value, status, bounds, cert, stats, duals, path, extras) -> ModelResult:
        ins, outs = self._labels()
        unchecked = self._user_violations(W)
        if any(u["violation"] > 0 for u in unchecked) and status is Status.OPTIMAL:
            # a user constraint is violated in floating point: the point is not proved feasible
            status = decide_status(bounds.lower, bounds.upper, feasible=False)
        info = {
            "path": path,
            "objective": self.objective,
            "violations": self.check(W),
            "covers": ["rows sum to 1", "W ≥ 0"] + [c.describe() for c in self.constraints],
            "unchecked": unchecked,
            "model": self.name,
            "model_spec": self.to_dict(),
            **extras,
        }
        if unchecked:
            info["note"] = (
                "the bounds and status cover the toolkit's constraints; user constraints are evaluated in "
                "floating point on the returned mechanism (violation must be ≤ 0 for 'optimal'), not proved"
            )
        D = [c.at_most for c in self.constraints if isinstance(c, ExpectedLoss)]
        return ModelResult.from_mechanism(
            self.name,
            Mechanism(W, ins, outs),
            self.prior,
            status=status,
            value=float(value),
            certificate=cert,
            stats=stats,
            bounds=bounds,
            distortion=float(min(D)) if D else None,
            duals=duals,
            unit="nats" if self.objective == "mutual_information" else "loss",
            extras=info,
        )

    def _solve_lp_core(self, solver, time_limit) -> ModelResult:
        spec, eps = self.ratio_spec()
        if eps == 0.0 and spec.P:
            res = self._zero_level(spec)
            if res is not None:
                return res
        sol = solve_lp(spec, eps, solver=solver, time_limit=time_limit)
        W = sol.z.reshape(self.N, self.K)
        W = W / W.sum(axis=1, keepdims=True)
        return self._result(
            W=W,
            value=sol.value,
            status=sol.status,
            bounds=sol.bounds,
            cert=sol.certificate,
            stats=sol.stats,
            duals={"ratio": sol.lam, "normalisation": sol.nu},
            path="lp-core",
            extras={"lp_eps": eps, "mix": sol.mix},
        )

    def _infeasible(self, exc: InfeasibleProgramError, solver) -> Exception:
        """A solver's "infeasible", proved or not.  Without loss caps the constant mechanism satisfies every
        toolkit constraint (identifiability above ε_X), so only a loss cap can make the model infeasible: it
        is proved when the certified lower bound of min E L under the other constraints exceeds the cap."""
        from ..errors import SolverFailedError

        caps = [c.at_most for c in self.constraints if isinstance(c, ExpectedLoss)]
        if caps and not self.user_constraints:
            sub = MechanismModel(self.prior, self.loss, name=f"{self.name} (without loss caps)")
            for c in self.constraints:
                if c.kind != "expected_loss":
                    sub.add(c)
            try:
                res = sub.solve(solver=solver)
            except Exception:  # noqa: BLE001 - no proof; reported below
                res = None
            if res is not None and res.bounds.lower > min(caps):
                return InfeasibleProgramError(
                    self.name,
                    f"the smallest expected loss under the other constraints is ≥ {res.bounds.lower:.10g} "
                    f"(proved bound), above the cap {min(caps):.10g}",
                )
        return SolverFailedError(
            self.name, [("solver", f"{exc.reason}; the toolkit could not prove the model infeasible")]
        )

    def _zero_level(self, spec: RatioLPSpec) -> ModelResult | None:
        """Every ratio row at level 0 and symmetric (e.g. ε = 0): the rows of W are equal on each connected
        component of the neighbour graph, so the optimum is, per component, the best constant row (an exact
        closed form; the LP has no interior there, so the chain could not prove it)."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components

        from ..certificate import theorem_certificate
        from ..programs.theorem import best_constant
        from ..solvers.stats import SolverStats

        if np.any(spec.log_kappa != 0.0):
            return None
        K = self.K
        i, j = spec.src[::K] // K, spec.dst[::K] // K
        code = set((i * self.N + j).tolist())
        if any(int(b) * self.N + int(a) not in code for a, b in zip(i, j)):
            return None
        graph = csr_matrix((np.ones(i.size), (i, j)), shape=(self.N, self.N))
        ncomp, label = connected_components(graph, directed=False)
        cost = self.prior[:, None] * self.loss
        W = np.zeros((self.N, K))
        lo = up = 0.0
        for comp in range(ncomp):
            rows = np.flatnonzero(label == comp)
            y, a, b = best_constant(cost[rows])
            W[rows, y] = 1.0
            lo, up = lo + a, up + b
        lo, up = lo * (1 - 4 * ncomp * _U), up * (1 + 4 * ncomp * _U)
        theorem = (
            "level 0: rows equal on each component of the neighbour graph; the best constant row of each"
        )
        return self._result(
            W=W,
            value=float(np.sum(cost * W)),
            status=decide_status(max(lo, 0.0), up),
            bounds=Bounds(max(lo, 0.0), up),
            cert=theorem_certificate(float(np.sum(cost * W)), max(lo, 0.0), up, theorem),
            stats=SolverStats("theorem", 0.0, 0.0, 0, (("theorem", theorem),)),
            duals={},
            path="lp-core",
            extras={"lp_eps": 0.0, "theorem": theorem},
        )

    def _solve_cvxpy(self, solver) -> ModelResult:
        prob, builts = self._build()
        linear = self.linear
        try:
            stats = solve_with_fallback(
                prob, program=self.name, solver=solver, lp=linear and not self.user_constraints
            )
        except InfeasibleProgramError as exc:
            raise self._infeasible(exc, solver) from exc
        W_raw = None if self.W.value is None else np.asarray(self.W.value, dtype=float)
        aux = [[np.asarray(v.value, dtype=float) for v, _ in b.aux] for b in builts]
        domains = [[d for _, d in b.aux] for b in builts]
        mults = [[np.asarray(c.dual_value, dtype=float) for c in b.dual] for b in builts]
        eta = margin_eta(self.N, self.K)
        fixed = feasible_mixture(W_raw, self.constraints, self.ctx, self.objective_value, eta)
        if fixed.W is not None:
            W = fixed.W
            value = self.objective_value(W)
            if self.objective == "expected_loss":
                terms = float(np.abs(self.prior[:, None] * self.loss * W).sum())
            else:
                terms = mutual_information_size(W, self.prior)
            upper = value + 64.0 * W.size * _U * (1.0 + abs(value) + float(terms))
            if self.objective == "mutual_information" and np.all(W == W[:1]):
                value = upper = 0.0  # identical rows: I = 0 exactly
        else:  # nothing proved feasible: show the solver's point (normalised), upper bound ∞
            W = np.clip(
                np.nan_to_num(W_raw if W_raw is not None else np.full((self.N, self.K), 1.0)), 0, None
            )
            W = W / W.sum(axis=1, keepdims=True)
            value, upper = self.objective_value(W), math.inf
        lags = [b.lagrangian for b in builts]
        start = W_raw if W_raw is not None else W
        lower, fw = lagrangian_bound(
            start, aux, domains, lags, mults, self._f_and_grad, linear, self._refine(start, aux, lags, mults)
        )
        trivial = 0.0
        if self.objective == "expected_loss":
            trivial = float(np.sum(self.prior * self.loss.min(axis=1)))
            trivial -= (
                64.0 * self.loss.size * _U * (1.0 + float(np.sum(self.prior * np.abs(self.loss).max(axis=1))))
            )
        lower = max(lower, trivial, self._capacity_bound(start, aux, lags, mults, builts))
        if lower > upper:
            lower = upper  # equal up to the margins of two different proofs
        status = decide_status(lower, upper, feasible=fixed.W is not None)
        viol = max([0.0] + [max(v, 0.0) for k, v in self.check(W).items()])
        cert = Certificate(
            primal_residual=viol,
            dual_residual=max(fw, 0.0) if math.isfinite(fw) else math.inf,
            complementary_slackness=math.nan,
            duality_gap=float(upper - lower) if math.isfinite(upper) else math.inf,
            primal_objective=float(value),
            dual_objective=float(lower),
            lower_bound=float(lower),
            upper_bound=float(upper),
            basis=(
                "model: Lagrangian lower bound from the solver's multipliers (domain: simplices and boxes) and "
                "a mechanism proved feasible for every toolkit constraint with a relative margin"
            ),
        )
        duals = {}
        for name, ms in zip(self._names(), mults):
            for k, m in enumerate(ms):
                duals[f"{name}" + (f"[{k}]" if len(ms) > 1 else "")] = m
        return self._result(
            W=W,
            value=value,
            status=status,
            bounds=Bounds(float(lower), float(upper)),
            cert=cert,
            stats=stats,
            duals=duals,
            path="cvxpy-lp" if linear else "cvxpy-conic",
            extras={"repair": {"reference": fixed.reference, "t": fixed.t}, "margin_eta": eta},
        )

    _capacity_bound = capacity_bound
    _refine = refine_points

    # ------------------------------------------------------------------------------------ export
    def to_dict(self) -> dict:
        """The model's data and constraints (pairs resolved), JSON-serialisable."""
        ins, outs = self._labels()
        return {
            "format": "privacy-problems model v1",
            "name": self.name,
            "prior": self.prior.tolist(),
            "loss": self.loss.tolist(),
            "objective": self.objective,
            "input_labels": list(ins),
            "output_labels": list(outs),
            "constraints": [c.to_dict(self.ctx) for c in self.constraints],
            "user_constraints": [n for n, _ in self.user_constraints],
        }

    def to_json(self, *, indent: int | None = 1) -> str:
        from ..cli_common import dumps

        return dumps(self.to_dict(), indent=indent)

    def __repr__(self) -> str:
        cons = ", ".join(c.describe() for c in self.constraints) or "no constraints"
        return f"MechanismModel(N={self.N}, K={self.K}, objective={self.objective}, {cons})"

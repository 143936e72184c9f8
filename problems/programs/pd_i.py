r"""PD-I: the privacy–distortion program under identifiability (Wang, Ying & Zhang 2016, (8)–(12)).

The paper states PD-I in :math:`(p_{X|Y}, p_Y)`, where it is bilinear.  With the joint
:math:`q(x,y) = p_Y(y)\,p_{X|Y}(x|y)` it is the exact linear program (``docs/programs.md``, notes §1)

.. math::

    D^*_{\mathrm i}(\epsilon) = \min_{q \ge 0} \sum_{x,y} q(x,y)\,d(x,y)
    \ \text{s.t.}\ q(x,y) \le e^{\epsilon} q(x',y)\ (x\sim x'),\ \textstyle\sum_y q(x,y) = p_X(x).

*Exactness.* Multiplying (8) by :math:`p_Y(y) \ge 0` gives the ratio constraint on q; (9)–(12) say exactly
that q is a non-negative joint with X-marginal p_X.  Conversely from q recover :math:`p_Y = \sum_x q`,
:math:`p_{X|Y} = q/p_Y` where :math:`p_Y > 0` (and any feasible posterior, e.g. the one of a neighbouring
column, where :math:`p_Y = 0`), with the same objective.

*Scaling.* We solve it in :math:`W = q/p_X` (rows sum to one), where the ratio constraint reads
:math:`W(x,y) \le e^\epsilon \frac{p_X(x')}{p_X(x)} W(x',y)`: the same LP up to a diagonal change of
variables, but with O(1) entries however small the prior masses are (in q, Clarabel stalled at
"inaccurate" on Dirichlet priors with ε_X ≈ 2.6 at N = 64).  The certificate is that of the scaled LP.

*Theorem path.*  For ε ≥ ε̃_X the optimum is h(ε) with the mechanism E_i (Lemma 4; lower bound from the
R-PD relaxation, Lemma 1); :mod:`problems.programs.theorem` verifies E_i and returns it with bounds.
Every LP solve carries h(ε) as a known lower bound.

*Infeasibility.* Summing the ratio constraint over y gives :math:`p_X(x) \le e^\epsilon p_X(x')`, so PD-I is
infeasible for ε < ε_X (Lemma 3); with a zero-mass database ε_X = ∞ and it is infeasible for every ε.  The
solver layer raises :class:`~problems.errors.InfeasibleProgramError` with this reason before solving.
"""

from __future__ import annotations

import math

import numpy as np

from ..closed_forms import check_eps
from ..errors import InfeasibleProgramError, InvalidInputError, InvalidPrivacyLevelError
from ..lp.tiny import in_tiny_regime
from ..mechanism import identifiability_matrix
from ..prior_constants import at_least_eps_X, eps_tilde, eps_X, eps_X_ratio, near_eps_X, round_up_eps_X
from ..priors import Prior, require_prior
from ..resources import require_dense_lp
from ..result import SolveResult
from ..solve_choice import METHODS, check_method, method_from_path
from ..solvers.backends import check_solver
from ._lp_result import lp_result, verified_theorem_result
from .pd_dp import constant_result
from .ratio_lp import RatioLP
from .theorem import best_constant, safe_h_lower, small_eps

__all__ = ["PDI", "solve_pd_i", "EPS_X_TOLERANCE"]

#: ε may fall below ε_X by this much (round-off) and still be solved.
EPS_X_TOLERANCE = 1e-12


class PDI:
    """PD-I for a prior, compiled once; :meth:`solve` re-solves for each ε ≥ ε_X."""

    program = "pd-i"

    def __init__(
        self, prior: Prior, *, distortion_matrix: np.ndarray | None = None, solver: str | None = None
    ):
        prior = require_prior(prior, "PD-I")
        if distortion_matrix is None:
            require_dense_lp(prior.space, "PD-I")
        self.prior, self.space, self.solver = prior, prior.space, solver
        check_solver(solver)
        # the smallest float ε ≥ the exact ε_X of the float masses: PD-I is feasible from here on (Lemma 3)
        self.eps_X = round_up_eps_X(eps_X(prior), eps_X_ratio(prior))
        self.hamming = distortion_matrix is None
        self.d = prior.space.hamming_matrix() if distortion_matrix is None else np.asarray(distortion_matrix)
        if math.isfinite(self.eps_X):
            # Solve in W = q / p_X (rows sum to 1): q(x,y) ≤ e^ε q(x',y)  ⇔  W(x,y) ≤ e^ε (p_X(x')/p_X(x)) W(x',y).
            pi, pj = self.space.neighbour_pairs
            logp = np.log(prior.pmf)
            self.lp: RatioLP | None = RatioLP(
                self.space,
                prior.pmf[:, None] * self.d,
                np.ones(self.space.size),
                program=self.program,
                pair_log_kappa=logp[pj] - logp[pi],
                eps_min=self.eps_X,
            )
            self.lp.spec.alt_log_scale = self._ei_log_scale
            self._eps_tilde: float | None = None
        else:
            self.lp = None

    def infeasibility_reason(self, eps: float) -> str | None:
        """Why PD-I has no feasible point at ε, or ``None`` if it has one."""
        if math.isinf(self.eps_X):
            k = int(np.flatnonzero(self.prior.pmf <= 0)[0])
            return (
                f"the prior gives zero mass to database ({self.space.labels[k]}), so ε_X = ∞ and no finite "
                f"identifiability level ε = {eps:g} is achievable"
            )
        if near_eps_X(eps, self.eps_X):
            if self._feasible_at(eps):
                return None
            return (
                f"ε = {eps!r} is below ε_X = ln max p_X(x)/p_X(x') over neighbours (≈ {self.eps_X!r}; decided "
                "exactly: e^ε < p_X(x)/p_X(x') for some neighbours): summing (8) over y forces p_X(x) ≤ "
                "e^ε p_X(x') (Wang, Ying & Zhang 2016, Lemma 3)"
            )
        if eps < self.eps_X - EPS_X_TOLERANCE:
            return (
                f"ε = {eps:.6g} < ε_X = {self.eps_X:.6g}: summing (8) over y forces p_X(x) ≤ e^ε p_X(x') for all "
                "neighbours, which this prior violates (Wang, Ying & Zhang 2016, Lemma 3)"
            )
        return None

    def _feasible_at(self, eps: float) -> bool:
        """ε ≥ ε_X, decided exactly for the float masses (:func:`problems.prior_constants.at_least_eps_X`)."""
        return at_least_eps_X(self.prior, eps)

    def _boundary(self, res: SolveResult, eps: float) -> SolveResult:
        """At ε ≥ ε_X (exactly) the best constant mechanism is feasible: p_X(x)·1 ≤ e^ε p_X(x')·1 for all
        neighbours.  Where the LP proved no upper bound as good (near ε_X the feasible set has no interior, so
        no LP point can be verified), it is returned with the LP's lower bound (and h(ε)); the status follows."""
        from dataclasses import replace

        from ..certificate import theorem_certificate
        from ..lp import Bounds
        from ..lp.status import decide_status

        assert self.lp is not None  # ε_X < ∞: the LP exists
        cost = self.lp.spec.c.reshape(self.d.shape)
        y, _, up = best_constant(cost)
        if not (up < res.bounds.upper) or not self._feasible_at(eps):
            return res
        lower = min(res.bounds.lower, up)
        W = np.zeros_like(cost)
        W[:, y] = 1.0
        theorem = (
            "ε ≥ ε_X (decided exactly): the best constant mechanism is feasible (p_X(x) ≤ e^ε p_X(x')); "
            "lower bound from the LP's multipliers and h(ε)"
        )
        value = float(cost[:, y].sum())
        out = constant_result(self.program, self.space, self.prior.pmf, cost, 0.0)
        return replace(
            out,
            eps=eps,
            status=decide_status(lower, up),
            value=value,
            bounds=Bounds(lower, up),
            certificate=theorem_certificate(value, lower, up, theorem),
            extras={**out.extras, "theorem": theorem, "path": "dense"},
        )

    def _ei_log_scale(self, eps: float) -> np.ndarray:
        """ln of the shape of E_i at ε: p_Y(y) e^{−εd(x,y)}/p_X(x), p_Y = (K_ε⁻¹)^{⊗n} p_X floored at 1e-9·max p_X
        (negative below ε̃_X), rows normalised; a column scaling for the CLARABEL-ALT back end."""
        from scipy.special import logsumexp

        from ..closed_forms import apply_kron, kernel

        n, m, p = self.space.n, self.space.m, self.prior.pmf
        p_y = apply_kron(np.linalg.inv(kernel(max(eps, 1e-6), m)), p, n)
        q = np.maximum(p_y, 1e-9 * float(p.max()))
        logs = np.log(q)[None, :] - eps * self.d - np.log(p)[:, None]
        return (logs - logsumexp(logs, axis=1, keepdims=True)).ravel()

    @property
    def eps_tilde(self) -> float:
        if self._eps_tilde is None:
            self._eps_tilde = eps_tilde(self.prior)
        return self._eps_tilde

    def _theorem(self, eps: float) -> SolveResult | None:
        if not (self.hamming and eps > 0 and eps >= self.eps_tilde):
            return None
        try:
            E = identifiability_matrix(self.prior, eps)  # verified below (repair and exact test)
        except InvalidPrivacyLevelError:
            return None
        assert self.lp is not None  # ε ≥ ε̃_X ≥ ε_X: finite
        return verified_theorem_result(
            self.program,
            eps,
            self.lp,
            self.prior.pmf,
            E,
            safe_h_lower(eps, self.space.n, self.space.m),
            "Wang, Ying & Zhang (2016) Lemma 4 (E_i, ε ≥ ε̃_X) and the R-PD relaxation (Lemma 1)",
        )

    def solve(
        self, eps: float, *, solver: str | None = None, method: str = "auto", path: str | None = None
    ) -> SolveResult:
        """Minimum expected distortion D*_i(ε) with proved bounds; raises :class:`InfeasibleProgramError`
        below ε_X (Lemma 3).  ``method`` and ``solver``: :mod:`problems.dispatch` (``path``: deprecated)."""
        if path is not None:  # the deprecated name of method=
            method = method_from_path(method, path)
        eps = check_eps(eps)
        reason = self.infeasibility_reason(eps)
        if reason is not None:
            raise InfeasibleProgramError(self.program, reason)
        assert self.lp is not None  # ε_X < ∞, else infeasibility_reason refused every ε
        if eps == 0.0 or (self.eps_X == 0.0 and small_eps(eps, self.space.n)):
            # only reachable with ε_X = 0 (uniform): the W-form is PD-DP, at ε = 0 or nε ≤ 1e-7
            return constant_result(
                self.program, self.space, self.prior.pmf, self.lp.spec.c.reshape(self.d.shape), eps
            )
        if method not in METHODS:
            check_method(method)  # bad input naming the valid methods
        if method != "lp" and not in_tiny_regime(self.lp.spec, eps):  # large ε: lp.tiny answers
            res = self._theorem(eps)
            if res is not None:
                return res
            if method == "theorem":
                raise InvalidInputError(
                    f"the theorem path of PD-I needs ε ≥ ε̃_X = {self.eps_tilde:.6g} (Wang, Ying & Zhang 2016, Lemma 4)"
                )
        known = safe_h_lower(eps, self.space.n, self.space.m) if self.hamming else 0.0
        sol = self.lp.solve(eps, solver=solver or self.solver, known_lower=known)
        W = sol.Z
        res = lp_result(self.program, sol, self.space, W, self.prior.pmf)
        return self._boundary(res, eps) if near_eps_X(eps, self.eps_X) else res


def solve_pd_i(prior: Prior, eps: float, *, solver: str | None = None) -> SolveResult:
    """One-shot :class:`PDI` solve."""
    return PDI(prior, solver=solver).solve(eps)

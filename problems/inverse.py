r"""Privacy level for a given distortion: exact inversion of the monotone D*(ε).

The privacy–distortion function is :math:`\epsilon^*(D) = \inf\{\epsilon : D^*(\epsilon) \le D\}` (Wang, Ying & Zhang 2016,
(6)–(7)), where :math:`D^*(\epsilon)` is the optimum of PD-DP or PD-I — non-increasing in ε (the feasible set
grows with ε) and continuous on the feasible range.  We solve :math:`g(\epsilon) = D^*(\epsilon) - D = 0` by a
**safeguarded Newton iteration**:

* the derivative comes free with every solve, by the envelope theorem for the parametric LP
  :math:`\min\{c^\top z : Az=b,\ (S_1 - e^\epsilon S_2)z \le 0,\ z\ge 0\}`:
  :math:`dD^*/d\epsilon = -e^\epsilon \sum_k \lambda_k (S_2 z)_k` (one-sided where the active set changes);
* a bracket :math:`[a, b]` with :math:`g(a) > 0 \ge g(b)` is kept (seeded from earlier solves when a curve
  shares its cache); as in Numerical Recipes' *rtsafe*, a Newton step that leaves the bracket, or that does
  not shrink at least half as fast as the step before, is replaced by bisection, so convergence is
  guaranteed and typically takes 1–4 solves;
* the start is Theorem 1's upper bound (h⁻¹(D) for PD-DP, whose exponential mechanism E_d attains h(ε)),
  where for PD-I with D ≤ h(ε̃_X) the answer is reached on the first solve.

It stops when :math:`|g| \le` ``tol`` (default 1e-9, in rows) or the bracket is narrower than ``tol``; the
result records the bracket, the number of solves and the certificate of the last solve.  Edge cases are
exact: D = 0 needs the identity mechanism (ε* = ∞); D ≥ D*(ε_min) gives ε* = ε_min (0 for PD-DP, ε_X for
PD-I).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .closed_forms import check_distortion, h_inv
from .errors import InfeasibleProgramError
from .programs import PDDP, PDI
from .result import SolveResult

__all__ = ["InverseResult", "privacy_for_distortion", "constant_distortion", "boundary_proof"]


@dataclass(frozen=True)
class InverseResult:
    """ε*(D) with the evidence: bracket, solves used, and the solve at the returned ε."""

    program: str
    distortion: float
    eps: float
    bracket: tuple[float, float]
    solves: int
    result: SolveResult | None  # the solve at ``eps`` (None when ε* = ∞)

    def to_dict(self) -> dict:
        return {
            "program": self.program,
            "distortion": self.distortion,
            "eps": self.eps,
            "bracket": list(self.bracket),
            "solves": self.solves,
            "certificate": None if self.result is None else self.result.certificate.to_dict(),
        }


def constant_distortion(program) -> float:  # noqa: ANN001
    r"""The distortion of the best constant mechanism, :math:`\sum_k (1 - \max_a P(X_k = a))` (Hamming).

    A constant mechanism W(y|x) = q(y) satisfies the identifiability constraint
    p_X(x)W(y|x) ≤ e^ε p_X(x')W(y|x') exactly when p_X(x)/p_X(x') ≤ e^ε for all neighbours, i.e. at ε = ε_X
    by the definition of ε_X (Wang, Ying & Zhang 2016, (16); the proof of Lemma 3), and the best one outputs the most likely
    value of every row.  Works for the dense :class:`~problems.programs.PDI` and the reduced
    :class:`~problems.orbit.ReducedPDI`.
    """
    import numpy as np

    from .orbit.symmetric_prior import iid_row_pmf

    prior = getattr(program, "prior", None)
    row = iid_row_pmf(prior) if prior is not None else None
    if row is not None:  # an i.i.d. prior: P(X_k = a) = π(a) (a reduced program's joint types are not needed)
        return float(program.space.n * (1.0 - float(np.max(row))))
    types = getattr(program, "types", None)
    if types is not None:  # reduced, joint types: P(X_k = a) = E[t_a]/n for an exchangeable prior
        px = np.exp(program.log_px_type)
        mean_row = (px[:, None] * types.x_types).sum(axis=0) / program.n
        return float(program.n * (1.0 - float(np.max(mean_row))))
    prior = getattr(program, "prior", None)
    pmf = getattr(prior, "pmf", None)
    if pmf is None:  # the uniform prior on the distance reduction
        return float(program.n * (1.0 - 1.0 / program.m))
    e = program.space.elements
    pmf = np.asarray(pmf, dtype=float)
    total = 0.0
    for k in range(program.space.n):
        marg = np.bincount(e[:, k], weights=pmf, minlength=program.space.m)
        total += 1.0 - float(marg.max())
    return total


#: D must exceed the closed-form constant distortion by this relative margin (its rounding) to prove ε* = ε_X.
BOUNDARY_MARGIN = 1e-12


def boundary_proof(program, distortion: float) -> str | None:  # noqa: ANN001
    """For PD-I: the proof that ε_i*(D) = ε_X, or ``None``.

    Lemma 3 of Wang, Ying & Zhang (2016) gives ε_i*(D) ≥ ε_X (PD-I is infeasible below ε_X); the best constant mechanism is
    exactly feasible at ε_X (see :func:`constant_distortion`), so ε_i*(D) ≤ ε_X whenever its distortion is at
    most D.  No LP certificate is needed (at ε = ε_X the feasible set has no interior, so no floating-point
    point can be verified feasible there).
    """
    if getattr(program, "program", "") != "pd-i":
        return None
    dc = constant_distortion(program)
    if float(distortion) >= dc * (1.0 + BOUNDARY_MARGIN):
        return (
            "ε_i*(D) = ε_X: Wang, Ying & Zhang (2016) Lemma 3 (infeasible below ε_X) and the best constant mechanism, exactly "
            f"feasible at ε_X, with distortion {dc:.12g} ≤ D"
        )
    return None


def _slope(program, res: SolveResult) -> float:  # noqa: ANN001
    """dD*/dε: the slope a theorem answer carries (an i.i.d. prior: n × the one-row LP's envelope slope), h'(ε)
    on the other theorem paths (the value is h(ε)), else the LP's envelope-theorem sensitivity."""
    if "slope" in res.extras:
        return float(res.extras["slope"])
    if res.extras.get("path") == "theorem" or res.extras.get("theorem"):
        if res.eps and res.eps > 0 and "ε = 0" not in str(res.extras.get("theorem")):
            n, m = program.space.n, program.space.m
            a = math.exp(res.eps) / (m - 1)
            return -n * a / (1.0 + a) ** 2
        return math.nan  # no slope: the root finder bisects
    last = getattr(getattr(program, "lp", None), "last", None)
    if last is None or not hasattr(program.lp, "sensitivity"):
        return math.nan
    return program.lp.sensitivity(last)


def privacy_for_distortion(
    program: PDDP | PDI,
    distortion: float,
    *,
    tol: float = 1e-9,
    max_solves: int = 60,
    cache: dict | None = None,
) -> InverseResult:
    """ε*(D) for PD-DP (ε_d*) or PD-I (ε_i*), by safeguarded Newton on D*(ε) − D (see module docstring).

    ``cache`` (a dict, shared across calls for the same program) re-uses solves: a curve solves at
    ε_min once, not once per point.  ``solves`` counts the solves this call actually ran.
    """
    space = program.space
    n, m = space.n, space.m
    D = check_distortion(distortion, n)
    name = program.program
    # PD-I (dense or reduced) starts at ε_X; PD-DP at 0
    eps_min = float(getattr(program, "eps_X", 0.0)) if name == "pd-i" else 0.0
    if math.isinf(eps_min):
        raise InfeasibleProgramError(
            name, "ε_X = ∞ (the prior has zero-mass databases): PD-I is never feasible"
        )
    if D <= 0.0:
        return InverseResult(name, D, math.inf, (math.inf, math.inf), 0, None)

    solves = 0

    store = {} if cache is None else cache

    def evaluate(eps: float) -> tuple[float, float, SolveResult]:
        nonlocal solves
        if eps not in store:
            solves += 1
            res = program.solve(eps)
            store[eps] = (res.value, _slope(program, res), res)
        value, slope, res = store[eps]
        return value - D, slope, res

    # ε* ≥ eps_min always; at eps_min the answer may already be reached.
    g_a, _, res_min = evaluate(eps_min)
    if g_a <= tol:
        return InverseResult(name, D, eps_min, (eps_min, eps_min), solves, res_min)
    if name == "pd-i" and res_min.bounds.lower - D <= tol < g_a:
        # PD-I at ε_X: the feasible set has no interior and the answer there may be bounded only; its lower bound
        # already reaches D, so ε* is within tol of ε_X when an exactly feasible point just above it is proved to
        # reach D (its upper bound): then ε_X ≤ ε* ≤ e1 (Lemma 3 below).  One solve instead of a bisection.
        e1 = max(eps_min + tol, math.nextafter(eps_min, math.inf))
        evaluate(e1)
        res1 = store[e1][2]
        if res1.bounds.upper - D <= tol:
            return InverseResult(name, D, e1, (eps_min, e1), solves, res1)
    # Tightest bracket known from earlier solves (a curve shares them): g(a) > 0 ≥ g(b).
    a, b = eps_min, math.inf
    best: tuple[float, SolveResult] | None = None
    for e, (value, _, res) in store.items():
        if value - D > 0 and e > a:
            a = e
        elif value - D <= 0 and e < b:
            b, best = e, (e, res)
    # Start: Theorem 1's bound h⁻¹(D) (exact for PD-I below h(ε̃_X); an upper bound for PD-DP).
    eps = max(float(h_inv(D, n, m)), a)
    if not a < eps < b:
        eps = 0.5 * (a + b) if math.isfinite(b) else max(2 * a, a + 1.0)
    step_old = math.inf if math.isinf(b) else b - a
    step = step_old
    while solves < max_solves:
        g, slope, res = evaluate(eps)
        if abs(g) <= tol:
            return InverseResult(name, D, eps, (a, min(b, eps)), solves, res)
        if g > 0:
            a = eps
        else:
            b, best = eps, (eps, res)
        if b - a <= tol:
            break
        # rtsafe (Newton–bisection): Newton while it stays in the bracket and the steps shrink fast enough
        newton = eps - g / slope if slope < 0 else math.nan
        if math.isinf(b):
            eps = newton if newton > a else max(2 * a, a + 1.0)
            continue
        if not (a < newton < b) or abs(2 * g) > abs(step_old * slope):
            step_old, step = step, 0.5 * (b - a)
            eps = a + step
        else:
            step_old, step = step, abs(newton - eps)
            eps = newton
    if best is None:
        raise InfeasibleProgramError(
            name, f"no ε ≤ {eps:g} reaches distortion {D:g} within {max_solves} solves"
        )
    return InverseResult(name, D, best[0], (a, best[0]), solves, best[1])

r"""PD-I (Wang, Ying & Zhang 2016, (8)–(12)) for an exchangeable mixture of i.i.d. priors: Lemma 4 per component.

For p_X = Σ_j w_j π_j^{⊗n} and ε > 0 write t = e^{−ε}, K₁(a|b) = t^{[a≠b]}/(1 + (m−1)t) (one row of E_d) and

.. math::

    \rho_j(b) = \frac{\pi_j(b)\,(e^\epsilon + m - 1) - 1}{e^\epsilon - 1}.

**Theorem.**  If every component satisfies Lemma 4's condition :math:`\pi_j(a)(e^\epsilon + m - 1) \ge 1` (all
j, a; for m = 2 that is ε ≥ max_j ln(max π_j / min π_j)), then PD-I_n(ε) = h(ε) = n(m−1)e^{−ε}/(1 + (m−1)e^{−ε}),
attained by the joint

.. math::

    q(x, y) = p_Y(y)\,K(x|y),\qquad p_Y = \sum_j w_j \rho_j^{\otimes n},\qquad K = K_1^{\otimes n},

i.e. W(y|x) = Σ_j P(j | x) Π_k W_j(y_k|x_k) with W_j the one-row E_i of π_j: draw the component from its
posterior given x, then apply that component's E_i to every row.

*Proof.*  K₁ = ((1 − t)I + tJ)/(1 + (m−1)t), so K₁ρ_j = π_j (ρ_j = (π_j(1 + (m−1)t) − t)/(1 − t), and Σ_b ρ_j(b) = 1),
hence K ρ_j^{⊗n} = π_j^{⊗n} and Σ_y q(x, y) = Σ_j w_j π_j^{⊗n}(x) = p_X(x): q is a joint with input law p_X.  It is
non-negative because every ρ_j is (the condition).  For neighbours x ~ x', q(x, y)/q(x', y) = K(x|y)/K(x'|y) ∈
{e^{−ε}, 1, e^ε}: the constraints of PD-I hold.  Its distortion is Σ_y p_Y(y) Σ_x K(x|y) d(x, y) = h(ε), since every
column of K is the law of E_d's output distance.  Conversely PD-I ⊂ R-PD, whose optimum is h(ε) (Lemma 1).  ∎

Lemma 4 of the paper is the case of one component (E_i = E_i^{(1)⊗n} for an i.i.d. prior); the mixture of the
components' output laws is what keeps the rows of (8)–(12) linear in the prior.  The condition is sufficient, not
necessary (a mixture's p_Y can be non-negative while a component's ρ_j is not); below it the LP answers.

**Computation** (:func:`mixture_identifiability_theorem`).  The mechanism in joint types,
u[T] = c(T|t) W(y|x) = c(T|t) Σ_j w_j Π_{a,b} (ρ_j(b) K₁(a|b))^{T_ab} / p_X(x), is evaluated in logarithms (a
log-sum-exp over the components, as :meth:`~problems.orbit.symmetric_prior.SymmetricPrior.log_mass`), so nothing
underflows at n = 200.  Its tight rows hold only up to rounding, so the point goes through the exact repair of
:mod:`problems.lp.bounds` (mixing with the reference point by the smallest weight that makes every row hold
exactly) and the proved upper bound is that of the repaired point, the object returned; the lower bound is h(ε)
widened by :data:`~problems.programs.theorem.CLOSED_FORM_MARGIN`.  The condition is required with a relative
margin of :data:`CONDITION_MARGIN` (at equality some ρ_j(b) = 0 and the LP answers).  The answer goes through the
reduced program's result path: for N = mⁿ up to the lift limit the N × N mechanism is verified exactly feasible
in floating point (and repaired where a tight row fails by rounding).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..lp import Bounds
from ..lp.bounds import repair, upper_bound, verify
from ..result import SolveResult
from .mixture_prior import components

__all__ = [
    "mixture_identifiability_theorem",
    "identifiability_condition",
    "CONDITION_MARGIN",
    "TIGHTENING",
]

#: Lemma 4's condition π_j(a)(e^ε + m − 1) ≥ 1 is required with this relative margin.
CONDITION_MARGIN = 1e-9

#: The mechanism is built at the level ε − δ, δ = TIGHTENING·max(1, ε), so that it is exactly feasible at ε.
TIGHTENING = 1e-9

_THEOREM = (
    "Wang, Ying & Zhang (2016) Lemma 4 per component of the exchangeable mixture Σ_j w_j π_j^⊗n ({k} components, "
    "each with π_j(a)(e^ε + m − 1) ≥ 1): E_i with output law Σ_j w_j ρ_j^⊗n is feasible with distortion h(ε), "
    "and PD-I ⊂ R-PD = h(ε) (Lemma 1); docs/orbit_reduction.md §15"
)


def identifiability_condition(row_pmfs: list[np.ndarray], eps: float) -> bool:
    """Whether every component satisfies π_j(a)(e^ε + m − 1) ≥ 1 with the relative margin (t = e^{−ε} form:
    π_j(a)(1 + (m − 1)t) ≥ t, which does not overflow at large ε)."""
    if not (eps > 0.0 and math.isfinite(eps)):
        return False
    t = math.exp(-eps)
    for r in row_pmfs:
        m = r.size
        if float(np.min(r)) * (1.0 + (m - 1) * t) < t * (1.0 + CONDITION_MARGIN):
            return False
    return True


def _output_rows(row_pmfs: list[np.ndarray], eps: float) -> list[np.ndarray]:
    """ρ_j = (π_j(1 + (m − 1)t) − t)/(1 − t), t = e^{−ε} (non-negative under the condition)."""
    t = math.exp(-eps)
    return [np.maximum((r * (1.0 + (r.size - 1) * t) - t) / (-math.expm1(-eps)), 0.0) for r in row_pmfs]


def _joint_type_point(program: Any, comps: list[tuple[float, np.ndarray]], eps: float) -> np.ndarray:
    """u[T] = c(T|t) Σ_j w_j Π_{a,b} (ρ_j(b) K₁(a|b))^{T_ab} / p_X(x) at level ε, in logarithms."""
    from scipy.special import logsumexp

    m = program.m
    J = program.types
    T = J.T.astype(float)  # (K, m, m): T[a, b] = #{k : x_k = a, y_k = b}
    log_k1 = np.where(np.eye(m, dtype=bool), 0.0, -eps) - math.log1p((m - 1) * math.exp(-eps))  # [a, b]
    terms = []
    for (w, _), rho in zip(comps, _output_rows([r for _, r in comps], eps)):
        with np.errstate(divide="ignore"):
            coef = np.log(rho)[None, :] + log_k1  # ln ρ_j(b) K₁(a|b)
        with np.errstate(invalid="ignore"):  # 0·(−inf): a cell that no joint type uses
            per = np.where(T > 0, T * coef[None, :, :], 0.0).sum(axis=(1, 2))
        terms.append(math.log(w) + per)
    log_u = J.log_count_given_x + logsumexp(np.stack(terms, axis=1), axis=1) - program.log_mass[J.x_index]
    return np.exp(log_u)


def mixture_identifiability_theorem(program: Any, eps: float) -> SolveResult | None:
    """PD-I for an exchangeable mixture prior at ε by Lemma 4 per component (module docstring).

    ``program`` is a :class:`~problems.orbit.programs.ReducedPDI` on joint types.  Returns ``None`` (the LP
    answers) for PD-DP, an i.i.d. prior, or where the condition does not hold with its margin.
    """
    from ..closed_forms import h
    from ..programs.theorem import CLOSED_FORM_MARGIN

    if program.program != "pd-i" or program.reduction != "joint-type":
        return None
    comps = components(program.prior)
    rows = [r for _, r in comps]
    if len(comps) < 2 or not identifiability_condition(rows, eps):
        return None
    n, m = program.n, program.m
    spec = program.lp.spec
    # the mechanism at the tightened level ε − δ: its rows then hold at ε with relative slack e^δ − 1 ≈ δ, far
    # above the rounding of the float point (~1e-12), so the point is verified exactly feasible at ε as it is
    # (else it is repaired); it costs about |h′(ε)|·δ, within the certificate's tolerance
    u = None
    for delta in (TIGHTENING * max(1.0, eps), 0.0):
        if not identifiability_condition(rows, eps - delta):
            continue
        z = _joint_type_point(program, comps, eps - delta)
        if verify(spec, z, eps):
            u = z
        else:
            u, _ = repair(spec, z, eps)
        if u is not None:
            break
    if u is None:
        return None
    h_eps = float(h(eps, n, m))
    upper = upper_bound(spec, u)
    lower = h_eps * (1.0 - CLOSED_FORM_MARGIN)
    if not upper >= lower:  # cannot happen for a correct point; never report a contradiction
        return None
    value = min(max(float(spec.c @ u), lower), upper)
    bounds = Bounds(lower, upper)
    theorem = _THEOREM.format(k=len(comps))
    sol = program._theorem_solution(u, value, bounds, theorem, eps)
    res = program._result(sol, program.reduction, program._extras())
    res.extras["theorem"] = theorem
    return res

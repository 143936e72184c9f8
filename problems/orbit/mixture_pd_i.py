r"""PD-I (Wang, Ying & Zhang 2016, (8)–(12)) for exchangeable priors in type space: Lemma 4 at any n.

For p_X = Σ_j w_j π_j^{⊗n} (i.i.d. mixtures; a contagious prior's point masses are e_a^{⊗n}) and ε > 0 write
t = e^{−ε}, K₁(a|b) = t^{[a≠b]}/(1 + (m−1)t) (one row of E_d), K = K₁^{⊗n}, and

.. math::

    \rho_j = K_1^{-1}\pi_j,\qquad \rho_j(b) = \frac{\pi_j(b)(1 + (m-1)t) - t}{1 - t},\qquad
    p_Y = K^{-1} p_X = \sum_j w_j \rho_j^{\otimes n}.

**Theorem** (Lemma 4 of the paper, at one ε).  If p_Y ≥ 0, then PD-I_n(ε) = h(ε) = n(m−1)t/(1 + (m−1)t), attained
by E_i, the joint q(x, y) = p_Y(y) K(x|y).

*Proof.*  K₁ = ((1 − t)I + tJ)/(1 + (m−1)t) gives K₁ρ_j = π_j, hence K ρ_j^{⊗n} = π_j^{⊗n} and
Σ_y q(x, y) = p_X(x): q is a joint with input law p_X, non-negative as p_Y is.  For neighbours x ~ x',
q(x, y)/q(x', y) = K(x|y)/K(x'|y) ∈ {e^{−ε}, 1, e^ε}: the constraints of PD-I hold.  Its distortion is
Σ_y p_Y(y) Σ_x K(x|y) d(x, y) = h(ε), every column of K being E_d's output-distance law.  PD-I ⊂ R-PD = h(ε)
(Lemma 1).  ∎

p_Y(y) depends on y through its type s (counts s_b): p_Y(s) = Σ_j w_j Π_b ρ_j(b)^{s_b}, so the condition is
C(n+m−1, m−1) signed sums, decided rigorously (:func:`log_output_law`).  A sufficient condition is ρ_j ≥ 0 for
every component, π_j(a)(e^ε + m − 1) ≥ 1 (for m = 2: ε ≥ max_j ln(max π_j/min π_j)); but negative entries can
cancel — a contagious prior's point masses have ρ(b) = −t/(1 − t) off their value, and p_Y ≥ 0 from about ε_X on
(the paper's ε̃_X).  As a mechanism, for a mixture with ρ_j ≥ 0, W(y|x) = Σ_j P(j | x) Π_k W_j(y_k|x_k), W_j the
one-row E_i of π_j: draw the component from its posterior given x, then apply its E_i to every row.

**Computation** (:func:`mixture_identifiability_theorem`).  The mechanism in joint types,
u[T] = c(T|t) p_Y(s(T)) Π_{a,b} K₁(a|b)^{T_ab} / p_X(x), in logarithms (nothing underflows at n = 200).  Its tight
rows hold only to rounding, so it is built at a tightened level ε − δ, δ = τ·max(1, ε) (τ in :data:`TIGHTENING`),
where every row has relative slack ≈ δ at ε, and the first point verified exactly feasible at ε
(:func:`problems.lp.bounds.verify`) is kept; the exact repair is the last resort (entries that underflow at
large ε).  The upper bound is that of this point, the object returned; the lower bound is h(ε) widened by
:data:`~problems.programs.theorem.CLOSED_FORM_MARGIN`.  Lifted answers (N up to the lift limit) go through the
floating-point verification of every lifted reduced answer.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..lp import Bounds
from ..lp.bounds import repair, upper_bound, verify
from ..lp.status import refined
from ..result import SolveResult
from ..solvers.settings import UNIT_ROUNDOFF
from .mixture_prior import components
from .symmetric_prior import SymmetricPrior
from .types import compositions

__all__ = ["mixture_identifiability_theorem", "log_output_law", "TIGHTENING"]

#: The mechanism is built at the level ε − δ, δ = τ·max(1, ε) for τ in this order (the first point verified
#: exactly feasible at ε is kept), so that its rows have slack at ε: 1e-11 suffices where the float point is
#: accurate to ~1e-12 (n ≤ 200 measured), 1e-9 covers larger rounding; the exact repair is the last resort.
TIGHTENING = (1e-11, 1e-9)

_THEOREM = (
    "Wang, Ying & Zhang (2016) Lemma 4 for the exchangeable prior Σ_j w_j π_j^⊗n ({k} components): E_i with output "
    "law p_Y = Σ_j w_j (K₁⁻¹π_j)^⊗n ≥ 0 (checked per output type) is feasible with distortion h(ε), and "
    "PD-I ⊂ R-PD = h(ε) (Lemma 1); docs/orbit_reduction.md §15"
)

_U = UNIT_ROUNDOFF


def log_output_law(prior: SymmetricPrior, eps: float) -> np.ndarray | None:
    """ln p_Y(y) for one y of each type s (rows of ``compositions(n, m)``), p_Y = Σ_j w_j Π_b ρ_j(b)^{s_b}, when
    p_Y ≥ 0 is proved; ``None`` when it is not (a negative entry, or a sign that rounding could change).

    Rigour: ρ_j(b) = (π_j(b)(1 + (m−1)t) − t)/(1 − t) is computed with an absolute error below
    6u(π_j(b)(1 + (m−1)t) + t) in its numerator (u = 2⁻⁵³), so its sign is taken only when the numerator is larger
    than that, and its relative error is bounded; each term's logarithm then carries a bounded error, and a
    type's sum of positive terms P is accepted against its negative terms N only when ln P − ln N exceeds twice
    the largest such error (plus the log-sum-exp's rounding).
    """
    if not (eps > 0.0 and math.isfinite(eps)):
        return None
    n, m = prior.n, prior.m
    t = math.exp(-eps)
    one_minus_t = -math.expm1(-eps)
    comps = components(prior)
    w = np.array([c[0] for c in comps])
    pi = np.stack([c[1] for c in comps])  # (J, m)
    a = pi * (1.0 + (m - 1) * t)
    num = a - t
    bound = 6.0 * _U * (a + t)
    if np.any(np.abs(num) <= bound):
        return None  # a sign (or a zero) that rounding could hide: the LP answers
    rel = bound / np.abs(num) + 3.0 * _U  # relative error of ρ_j(b)
    log_abs = np.log(np.abs(num) / one_minus_t)  # (J, m)
    neg = num < 0
    s = compositions(n, m).astype(float)  # (S, m)
    log_terms = np.log(w)[None, :] + s @ log_abs.T  # (S, J)
    sign_neg = (s @ neg.T.astype(float)) % 2 == 1  # (S, J): an odd power of a negative entry
    err = 2.0 * _U + s @ (rel + 2.0 * _U).T + 4.0 * (m + 2) * _U * np.abs(log_terms)  # (S, J)

    def lse(mask: np.ndarray) -> np.ndarray:
        x = np.where(mask, log_terms, -np.inf)
        top = np.max(x, axis=1)
        safe = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore"):
            return safe + np.log(np.sum(np.exp(x - safe[:, None]), axis=1))

    log_p, log_n = lse(~sign_neg), lse(sign_neg)
    slack = 2.0 * np.max(err, axis=1) + 8.0 * (len(comps) + 1) * _U * (1.0 + np.abs(log_p))
    has_neg = np.any(sign_neg, axis=1)
    if np.any(has_neg & ~(log_p - log_n > slack)):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(has_neg, log_p + np.log1p(-np.exp(log_n - log_p)), log_p)


def _joint_type_point(program: Any, log_py: np.ndarray, eps: float) -> np.ndarray:
    """u[T] = c(T|t) p_Y(s(T)) Π_{a,b} K₁(a|b)^{T_ab} / p_X(x) at level ε, in logarithms."""
    from .types import composition_keys

    n, m = program.n, program.m
    J = program.types
    log_k1 = np.where(np.eye(m, dtype=bool), 0.0, -eps) - math.log1p((m - 1) * math.exp(-eps))  # [a, b]
    y_index = np.searchsorted(composition_keys(compositions(n, m), n), composition_keys(J.y_types, n))
    log_k = J.flat.astype(float) @ log_k1.ravel()  # Σ_{a,b} T_ab ln K₁(a|b) (T flattened row-major: a*m + b)
    log_u = J.log_count_given_x + log_py[y_index] + log_k - program.log_mass[J.x_index]
    return np.exp(log_u)


def mixture_identifiability_theorem(program: Any, eps: float) -> SolveResult | None:
    """PD-I for an exchangeable prior at ε by Lemma 4 in type space (module docstring).

    ``program`` is a :class:`~problems.orbit.programs.ReducedPDI` on joint types.  Returns ``None`` (the LP
    answers) for PD-DP, an i.i.d. prior (single-letterisation answers it), where p_Y ≥ 0 is not proved, or where
    the returned point's bounds do not agree to 1e-6 relative.
    """
    from ..closed_forms import h
    from ..programs.theorem import CLOSED_FORM_MARGIN

    if program.program != "pd-i" or program.reduction != "joint-type":
        return None
    comps = components(program.prior)
    if len(comps) < 2 or log_output_law(program.prior, eps) is None:
        return None
    n, m = program.n, program.m
    spec = program.lp.spec
    # the mechanism at the tightened level ε − δ: its rows then hold at ε with relative slack e^δ − 1 ≈ δ, far
    # above the rounding of the float point (~1e-12), so the point is verified exactly feasible at ε as it is
    # (else it is repaired); it costs about |h′(ε)|·δ, within the certificate's tolerance
    u = z = None
    for tau in TIGHTENING:
        level = eps - tau * max(1.0, eps)
        log_py = log_output_law(program.prior, level)
        if log_py is None:
            continue
        z = _joint_type_point(program, log_py, level)
        if verify(spec, z, eps):
            u = z
            break
    if u is None:  # no tightened point verified (rounding, or underflow at large ε): the exact repair
        if z is None:
            log_py = log_output_law(program.prior, eps)
            assert log_py is not None
            z = _joint_type_point(program, log_py, eps)
        u, _ = repair(spec, z, eps)
    if u is None:
        return None
    h_eps = float(h(eps, n, m))
    upper = upper_bound(spec, u)
    lower = h_eps * (1.0 - CLOSED_FORM_MARGIN)
    if not upper >= lower:  # cannot happen for a correct point; never report a contradiction
        return None
    if not refined(lower, upper):
        # not proved to 1e-6 relative (e.g. entries that underflow at large ε, a contagious prior at n = 100): the
        # LP path, which refines an answer certified by the absolute tolerance only, answers instead
        return None
    value = min(max(float(spec.c @ u), lower), upper)
    bounds = Bounds(lower, upper)
    theorem = _THEOREM.format(k=len(comps))
    sol = program._theorem_solution(u, value, bounds, theorem, eps)
    res = program._result(sol, program.reduction, program._extras())
    res.extras["theorem"] = theorem
    return res

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

**Computation** (:func:`mixture_identifiability_theorem`).  The returned mechanism is E_i at a tightened level
ε' = ε − δ, δ = τ·max(1, ε) (τ in :data:`TIGHTENING`), described by ln p̂_Y per output type
(:func:`output_law`) and exactly normalised (:mod:`problems.orbit.output_law`): nothing of the size of the joint
types is built.  Its certificate is analytic.  :func:`output_law` bounds the relative error η of every p̂_Y(s);
as p_Y ≥ 0 at ε' (proved) and K ≥ 0, every input's normalising sum is within (1 ± η) of p_X(x).  The ratios of
q̂(x, y) = p̂_Y(y)K(x|y) between neighbours are exactly e^{0, ±ε'}, so after normalisation the PD-I rows hold at
ε' + ln((1 + η)/(1 − η)) ≤ ε (δ is enlarged until it is), and the distortion is at most
h(ε')(1 + η)/(1 − η).  The bounds are [h(ε), h(ε')(1 + η)/(1 − η)], widened by
:data:`~problems.programs.theorem.CLOSED_FORM_MARGIN`; the answer is returned only when they agree to 1e-6
relative.  Lifted answers (N up to the lift limit) go through the floating-point verification of every lifted
answer; larger ones carry the type channel P(s(Y) = s | t(X) = t).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..errors import ProblemTooLargeError
from ..lp import Bounds
from ..lp.status import refined
from ..mechanism import Mechanism
from ..result import SolveResult
from ..solvers.settings import UNIT_ROUNDOFF
from ..solvers.stats import SolverStats
from .mixture_prior import components
from .output_law import channel_mechanism, lifted, type_sums
from .symmetric_prior import SymmetricPrior
from .theorem_answer import reduced_theorem_answer
from .types import compositions

__all__ = ["mixture_identifiability_theorem", "log_output_law", "TIGHTENING"]

#: The mechanism is E_i at the level ε − δ, δ = τ·max(1, ε) for τ in this order (enlarged where the output law's
#: error η needs more): the first level whose output law is proved non-negative is used.  1e-11 costs about
#: 1e-11 relative in the upper bound; η is 1e-13 to 1e-8 (m = 2, n = 30–200, ε_X + 0.01 and above).
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


def mixture_identifiability_theorem(program: Any, eps: float) -> SolveResult | None:
    """PD-I for an exchangeable prior at ε by Lemma 4 in type space (module docstring).

    ``program`` is a :class:`~problems.orbit.programs.ReducedPDI` on joint types.  Returns ``None`` (the LP
    answers) for PD-DP, an i.i.d. prior (single-letterisation answers it), where p_Y ≥ 0 is not proved, or where
    the returned point's bounds do not agree to 1e-6 relative.
    """
    from ..closed_forms import h
    from ..programs.theorem import CLOSED_FORM_MARGIN

    if program.program != "pd-i" or program.reduction == "distance":
        return None
    comps = components(program.prior)
    if len(comps) < 2 or log_output_law(program.prior, eps) is None:
        return None
    n, m = program.n, program.m
    prior = program.prior
    start = time.perf_counter()
    log_mass = prior.log_mass(compositions(n, m))  # ln p_X(x) per input type
    with np.errstate(divide="ignore"):
        size = max(abs(math.log(w)) + n * float(np.max(np.abs(np.log(r[r > 0])))) for w, r in comps)
    mass_error = 16.0 * _U * (size + len(comps) + 4.0)  # ln p_X's rounding (a log-sum-exp over components)
    small = program.space.size <= program.lift_limit
    found = None
    try:
        for tau in TIGHTENING:
            delta = tau * max(1.0, eps)
            for _ in range(3):
                level = eps - delta
                log_py = log_output_law(prior, level)
                if log_py is None:
                    break
                sums = type_sums(n, m, level, log_py, channel=not small)
                log_r = sums.log_sums - log_mass  # ln R(t) = ln ŝ(x)/p_X(x)
                spread = float(np.max(log_r) - np.min(log_r)) + 2.0 * (sums.error + mass_error)
                if eps - level >= spread * (1.0 + 1e-6) + 4.0 * _U * max(1.0, eps):
                    found = (level, log_py, sums, spread)
                    break
                delta = 2.0 * (delta + spread)
            if found is not None:
                break
    except ProblemTooLargeError:
        return None
    if found is None:
        return None
    level, log_py, sums, spread = found
    h_level = float(h(level, n, m))
    lower = float(h(eps, n, m)) * (1.0 - CLOSED_FORM_MARGIN)
    # the distortion is at most h(ε')·max R/min R (and the prior's float mass, Σ_j w_j (Σ_a π_j(a))ⁿ ≤ 1 + 4nmu)
    upper = h_level * math.exp(spread) * (1.0 + CLOSED_FORM_MARGIN + 4.0 * (n * m + 4) * _U)
    if not (upper >= lower and refined(lower, upper)):
        return None  # not proved to 1e-6 relative: the LP path answers
    value = min(max(h_level, lower), upper)
    bounds = Bounds(lower, upper)
    theorem = _THEOREM.format(k=len(comps))
    extras: dict[str, Any] = {
        "path": "theorem",
        "theorem": theorem,
        "reduction": "output-law",
        "n": n,
        "m": m,
        "prior": prior.to_dict(),
        "level": level,
        "log_output_law": log_py,
        "normalisation_spread": spread,
    }
    stats = SolverStats("theorem", time.perf_counter() - start, 0.0, 0, (("theorem", theorem),))

    def type_level() -> tuple[Mechanism, np.ndarray]:
        assert sums.channel is not None
        return channel_mechanism(n, m, sums.channel), np.exp(prior.log_type_probability(compositions(n, m)))

    return reduced_theorem_answer(
        program,
        eps,
        value,
        bounds,
        theorem,
        extras,
        stats,
        lambda: lifted(n, m, level, log_py),
        type_level,
    )

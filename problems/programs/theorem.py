r"""The theorem path: optima that Wang, Ying & Zhang (2016) gives in closed form, returned with bounds that prove them.

=========  ========================  ===================  =========================================  =========================
program    when                      optimum              upper bound (exactly feasible point)       lower bound
=========  ========================  ===================  =========================================  =========================
R-PD       every ε                   h(ε)                 the kernel joint e^{−εd}/(N(1+(m−1)e^{−ε})ⁿ)   Lemma 1
PD-I       ε ≥ ε̃_X                   h(ε)                 E_i (26), repaired and verified             PD-I ⊂ R-PD: ≥ h(ε)
PD-DP      uniform prior             h(ε)                 E_d (27), repaired and verified             Theorem 1 (19): ≥ h(ε + ε_X) = h(ε)
PD-DP      ε = 0, any prior          min_y Σ_x p(x)d(x,y)  the constant mechanism onto the best y      rows of a 0-DP mechanism are equal
=========  ========================  ===================  =========================================  =========================

The closed-form value is evaluated in floating point and widened by :data:`CLOSED_FORM_MARGIN` (relative),
far above its rounding error.  The upper bound is the objective of a point that :func:`problems.lp.bounds.verify`
proves feasible, so the numerical check of the mechanism is part of the proof.
"""

from __future__ import annotations

import math

import numpy as np

from ..closed_forms import h
from ..lp import Bounds, RatioLPSpec, repair, upper_bound
from ..lp.status import refined

__all__ = [
    "CLOSED_FORM_MARGIN",
    "SMALL_EPS_SPREAD",
    "safe_h_lower",
    "theorem_point",
    "best_constant",
    "small_eps",
    "constant_lower",
    "SMALL_EPS_THEOREM",
]

#: Relative widening of a closed-form value evaluated in floating point (its rounding error is ~1e-15).
CLOSED_FORM_MARGIN = 1e-13

#: PD-DP (and PD-I with ε_X = 0) at 0 < n·ε ≤ this is answered by the best constant mechanism: it is within the
#: factor e^{nε} ≤ 1 + 1.0000001e-7 of the optimum (:func:`constant_lower`), well inside the 1e-6 of the rule.
SMALL_EPS_SPREAD = 1e-7

SMALL_EPS_THEOREM = (
    "0 < nε ≤ 1e-7: an ε-DP mechanism has W(y|x) ≥ e^{−nε} W(y|x₀) (n steps between any two databases), so the "
    "optimum is at least e^{−nε} times the best constant mechanism's distortion, which is returned"
)


def small_eps(eps: float, n: int) -> bool:
    """True for 0 < ε with n·ε ≤ :data:`SMALL_EPS_SPREAD` (including ε so small that e^ε rounds to 1)."""
    return 0.0 < eps and n * eps <= SMALL_EPS_SPREAD


def constant_lower(lower_at_0: float, eps: float, n: int) -> float:
    r"""A lower bound on D*(ε) from one on D*(0): D*(ε) ≥ e^{−nε} D*(0).

    Any ε-DP W satisfies W(y|x) ≥ e^{−nε} W(y|x₀) for a fixed x₀ (n neighbour steps), so with the cost
    C(x, y) ≥ 0: Σ_{x,y} C(x,y) W(y|x) ≥ e^{−nε} Σ_y W(y|x₀) Σ_x C(x,y) ≥ e^{−nε} min_y Σ_x C(x,y) = e^{−nε} D*(0).
    The same holds for PD-I with ε_X = 0 (a uniform prior: the same constraints).  The factor is evaluated
    with ``expm1`` and lowered by 4 ulp.
    """
    return lower_at_0 * (1.0 + math.expm1(-n * eps)) * (1.0 - 4 * 2.0**-53)


def safe_h_lower(eps: float, n: int, m: int) -> float:
    """A lower bound on h(ε) that rounding cannot overstate."""
    return float(h(eps, n, m)) * (1.0 - CLOSED_FORM_MARGIN)


def theorem_point(
    spec: RatioLPSpec, eps: float, z: np.ndarray, lower: float
) -> tuple[np.ndarray, Bounds] | None:
    """Verify the closed-form point ``z`` (repairing round-off) and return it with ``[lower, its objective]``,
    or ``None`` when the bounds do not agree to the relative tolerance (:func:`problems.lp.status.refined`)."""
    zr, _ = repair(spec, z, eps)
    if zr is None:
        return None
    up = upper_bound(spec, zr)
    lo = min(lower, up)
    if not refined(lo, up):  # the LP may still prove the value to the relative tolerance
        return None
    return zr, Bounds(lo, up)


def best_constant(cost: np.ndarray) -> tuple[int, float, float]:
    """The best 0-DP mechanism for the cost C(x, y) = p(x) d(x, y): all rows equal to e_{y*}.

    Returns ``(y*, lower, upper)`` for the value min_y Σ_x C(x, y) (exact up to the summation error, widened).
    """
    col = cost.sum(axis=0)
    y = int(np.argmin(col))
    v = float(col[y])
    err = 4.0 * (cost.shape[0] + 2) * 2.0**-53 * v
    return y, max(0.0, v - err - math.ulp(v)), v + err + math.ulp(v)

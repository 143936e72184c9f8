r"""Ratio LPs at privacy levels so large that the optimum is below :data:`~problems.lp.status.REFINE_GAP` (1e-200).

At large ε the optimum of PD-DP, PD-I and R-PD (Hamming distortion) lies in :math:`[0, h(\epsilon - \epsilon_{\min})]`
(Wang, Ying & Zhang 2016, Theorem 1: E_d at level ε − ε_min is feasible, with distortion h), and h(ε) ≈ n(m−1)e^{−ε} leaves
the range of normal doubles near ε ≈ 700 (e^ε overflows at 709.78).  There the LP means nothing numerically,
and no LP is needed: the enclosure :math:`[\ell, U]`, with U the objective of an exactly feasible point, is
taken as soon as :math:`U - \ell \le` ``REFINE_GAP`` (no LP could improve it) and certified by the absolute
tolerance of the status rule (:func:`~problems.lp.status.decide_status`).

**The point.**  E_d at the level :math:`L = \epsilon - \epsilon_{\min} - \eta` in the spec's variables
(``spec.log_profile``), every entry raised to at least :math:`2^{-1000}` (:data:`FLOOR_LOG`), then normalised.
E_d at level L is feasible at ε (``tight_reference``), and raising entries to a floor keeps every row
:math:`z_s \le \rho_p z_d` with :math:`\rho_p = e^\epsilon\kappa_p \ge 1`: a raised z_s equals the floor, which
is at most z_d (raised or not) and so at most ρ_p z_d.  The floor keeps every entry a normal double, so
the test below is sound (no underflow), while the entries of E_d itself would reach e^{−εn}.

**The proof** (:func:`verify_log`).  Row p of the exact normalisation :math:`z'' = z\,b_g/s_g` holds iff
:math:`\ln z_{s_p} + \ln b_{g_s} - \ln s_{g_s} \le \epsilon + \ln\kappa_p + \ln z_{d_p} + \ln b_{g_d} - \ln s_{g_d}`.
It is tested in logarithms, so e^ε is never formed (ε = 1e308 is fine), with the group sums bracketed by
their summation error, the stored ln κ_p lowered by its assumed error, and a margin of 1e-9 (far above the
rounding of logarithms of numbers in [2^{−1000}, 1]).  The objective is bounded above as in
:func:`~problems.lp.bounds.upper_bound`, plus :math:`K\cdot 2^{-1073}` for products that underflow.

The lower bound is 0 (c ≥ 0, z ≥ 0), or a closed form passed in (Theorem 1's h(ε + ε_X)).
"""

from __future__ import annotations

import math

import numpy as np

from .bounds import Bounds, _gamma, upper_bound
from .spec import RatioLPSpec
from .status import REFINE_GAP, decide_status, refined

__all__ = [
    "FLOOR_LOG",
    "TINY_MIN_LEVEL",
    "tiny_point",
    "verify_log",
    "tiny_solution",
    "in_tiny_regime",
    "TINY_BASIS",
]

#: ln 2^{-1000}: the smallest entry of the constructed point (a normal double, so no step underflows).
FLOOR_LOG = -1000.0 * math.log(2.0)

#: Below this ε − ε_min the point is not even tried (h(300) ≈ 5e-131 · n(m−1) is far above REFINE_GAP).
TINY_MIN_LEVEL = 300.0

#: ``certificate.basis`` of such an answer.
TINY_BASIS = (
    "theorem: Wang, Ying & Zhang (2016) Theorem 1 (0 ≤ optimum ≤ h(ε − ε_min)); the exactly feasible point is E_d at "
    "ε − ε_min with entries floored at 2^-1000 (verified in logarithms); the enclosure is narrower than "
    f"{REFINE_GAP:g}, certified by the absolute tolerance of the status rule"
)


def tiny_point(spec: RatioLPSpec, eps: float) -> np.ndarray | None:
    """E_d at level ε − ε_min − η with entries floored at 2^{−1000}, normalised per group (``None`` below
    :data:`TINY_MIN_LEVEL`)."""
    level = eps - spec.eps_min
    if not (math.isfinite(level) and level >= TINY_MIN_LEVEL):
        return None
    level -= 1e-9 * level
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        logz = np.asarray(spec.log_profile(level), dtype=float)
    if logz.shape != (spec.K,) or np.any(np.isnan(logz)):
        return None
    z = np.exp(np.maximum(logz, FLOOR_LOG))
    sums = np.bincount(spec.group, weights=z, minlength=spec.G)
    z = z * (spec.b / sums)[spec.group]
    # renormalising can move an entry just below the floor; raise it back (feasibility is decided below)
    return np.maximum(z, math.exp(FLOOR_LOG))


def verify_log(spec: RatioLPSpec, z: np.ndarray, eps: float) -> bool:
    """True if the exact normalisation z·b_g/s_g satisfies every ratio row at ε (tested in logarithms)."""
    if z.shape != (spec.K,) or not np.all(np.isfinite(z)) or np.any(z < math.exp(FLOOR_LOG)):
        return False
    sums = np.bincount(spec.group, weights=z, minlength=spec.G)
    counts = np.bincount(spec.group, minlength=spec.G)
    g = _gamma(counts)
    s_lo, s_hi = sums * (1 - g), sums * (1 + g)
    if np.any(s_lo <= 0) or np.any(spec.b <= 0):
        return False
    gs, gd = spec.group[spec.src], spec.group[spec.dst]
    logz, logb = np.log(z), np.log(spec.b)
    lhs = logz[spec.src] + logb[gs] - np.log(s_lo[gs])
    rest = (spec.log_kappa - 1.01 * spec.log_kappa_error) + logz[spec.dst] + logb[gd] - np.log(s_hi[gd])
    need = lhs - rest  # every row holds iff need ≤ ε (up to the rounding covered by the margin)
    margin = 1e-9 + 1e-12 * (np.abs(lhs) + np.abs(rest))
    # ε·(1 − 4u) is below the exact ε; the sum need + margin is rounded up by the relative 4u
    return bool(np.all((need + margin) * (1 + 4 * 2.0**-53) + 1e-300 <= eps * (1 - 4 * 2.0**-53)))


def tiny_solution(spec: RatioLPSpec, eps: float, known_lower: float = 0.0):  # noqa: ANN201 - LPSolution
    """The certified answer at a level where the optimum is below ``REFINE_GAP``, or ``None`` (then the
    LP is solved as usual).  The answer is an :class:`~problems.lp.solution.LPSolution` without multipliers."""
    key = ("tiny", float(eps))
    if key not in spec.cache:
        spec.cache[key] = None
        z = tiny_point(spec, eps)
        if z is not None and verify_log(spec, z, eps):
            with np.errstate(under="ignore"):
                up = upper_bound(spec, z) * (1 + 1e-12) + spec.K * 2.0**-1073
            spec.cache[key] = (z, up)
    got = spec.cache[key]
    if got is None:
        return None
    z, up = got
    lo = min(max(0.0, float(known_lower)), up)
    if not refined(lo, up):
        return None
    return _solution(spec, eps, z, Bounds(lo, up))


def in_tiny_regime(spec: RatioLPSpec, eps: float) -> bool:
    """True when :func:`tiny_solution` answers at ε (the theorem paths of the programs step aside)."""
    return tiny_solution(spec, eps) is not None


def _solution(spec: RatioLPSpec, eps: float, z: np.ndarray, bounds: Bounds):  # noqa: ANN202
    from ..certificate import Certificate
    from ..solvers.stats import SolverStats
    from .solution import LPSolution

    value = float(spec.c @ z)
    cert = Certificate(
        primal_residual=0.0,
        dual_residual=0.0,
        complementary_slackness=0.0,
        duality_gap=float(bounds.upper - bounds.lower),
        primal_objective=value,
        dual_objective=float(bounds.lower),
        lower_bound=float(bounds.lower),
        upper_bound=float(bounds.upper),
        basis=TINY_BASIS,
    )
    stats = SolverStats(
        "theorem", 0.0, 0.0, 0, (("theorem", "large ε: optimum below the absolute tolerance"),)
    )
    return LPSolution(
        z=z,
        value=value,
        bounds=bounds,
        status=decide_status(bounds.lower, bounds.upper),
        nu=np.zeros(spec.G),
        lam=np.zeros(spec.P),
        reduced_costs=spec.c.copy(),
        certificate=cert,
        stats=stats,
        eps=float(eps),
        mix=0.0,
    )

r"""Bounds on a rate–distortion optimum (PD-MIP), in the unit of the result.

*Upper bound.*  I(X;Y) of a mechanism that satisfies E d ≤ D: the returned W, after
:func:`within_distortion` has mixed it with the minimum-distortion mechanism when round-off left
E d above D (mixing lowers E d linearly), and with I = 0 exactly when every row of W is the same.

*Lower bound.*  The Csiszár–Gallager dual bound −λD + Σ p_X ln c − ln M of
:func:`problems.programs.pd_mip.rate_distortion_lower_bound`, valid for every λ ≥ 0.

Both are evaluated in floating point and widened by ``64·k·u·(1 + |value|)`` (k terms, u = 2⁻⁵³), far
above the rounding error of sums of k logarithmic terms; unlike the LP bounds (``docs/certificates.md``)
they are not evaluated term by term with directed rounding.
"""

from __future__ import annotations

import math

import numpy as np

from ..certificate import Certificate
from ..lp import Bounds, certified
from ..solvers.settings import UNIT_ROUNDOFF as _U
from ..units import to_unit

__all__ = ["within_distortion", "information_certificate"]


def within_distortion(W: np.ndarray, p_x: np.ndarray, d: np.ndarray, D: float) -> tuple[np.ndarray, float]:
    """``(W', E d)`` with E_{W'} d ≤ D: W mixed with x ↦ argmin_y d(x, y) just enough (W itself if it fits)."""
    exp_d = float(np.sum(p_x[:, None] * W * d))
    if exp_d <= D:
        return W, exp_d
    best = np.zeros_like(W)
    best[np.arange(W.shape[0]), np.argmin(d, axis=1)] = 1.0
    d_min = float(np.sum(p_x[:, None] * best * d))
    t = min(1.0, (exp_d - D) / max(exp_d - d_min, 1e-300) * (1 + 1e-9) + 1e-15)
    W2 = (1.0 - t) * W + t * best
    W2 = W2 / W2.sum(axis=1, keepdims=True)
    return W2, float(np.sum(p_x[:, None] * W2 * d))


def information_certificate(
    value_nats: float,
    bound_nats: float,
    *,
    terms: int,
    primal: float,
    dual: float,
    slack: float,
    unit: str,
    exact_zero: bool = False,
    feasible: bool = True,
) -> tuple[Certificate, Bounds]:
    """The certificate and bounds of a PD-MIP answer, converted to ``unit``."""
    margin = 64.0 * max(terms, 1) * _U * (1.0 + abs(value_nats))
    upper = 0.0 if exact_zero else (value_nats + margin if feasible else math.inf)
    lower = max(0.0, bound_nats - margin)
    if lower > upper:
        lower = upper
    lo, up = float(to_unit(lower, unit)), float(to_unit(upper, unit))
    cert = Certificate(
        primal_residual=primal,
        dual_residual=dual,
        complementary_slackness=slack,
        duality_gap=float(to_unit(abs(value_nats - bound_nats), unit)),
        primal_objective=float(to_unit(value_nats, unit)),
        dual_objective=float(to_unit(bound_nats, unit)),
        lower_bound=lo,
        upper_bound=up,
        basis="rate-distortion dual (Csiszár–Gallager) and the mutual information of the returned mechanism",
    )
    assert cert.certified == certified(lo, up)
    return cert, Bounds(lo, up)
